/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dropins.h -- the *.conf files of a set of directories, the way systemd
 * lists drop-ins: directories are added highest priority first, a file
 * name already seen masks the same name in later directories, and the
 * result is sorted by file name. */
#ifndef MTAG_DROPINS_H
#define MTAG_DROPINS_H

#include <stddef.h>

struct dropin {
	char *name; /* file name */
	char *path; /* path of the file that wins */
};

struct dropins {
	struct dropin *v;
	size_t n, cap;
};

/* Add DIR's *.conf files (not hidden ones, not one named SKIP).  A
 * missing DIR adds nothing and returns 0; one that cannot be read returns
 * -errno (the caller decides whether that is an error). */
int dropins_add_dir(struct dropins *d, const char *dir, const char *skip);
void dropins_sort(struct dropins *d);
void dropins_free(struct dropins *d);

#endif
