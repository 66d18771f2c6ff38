/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conffiles.h -- which policy files are read, in which order, and whether
 * they are safe to trust. */
#ifndef MTAG_CONFFILES_H
#define MTAG_CONFFILES_H

#include <stdbool.h>
#include <stdint.h>

#include "policy.h"

#define POLICY_MAIN_FILE "/etc/mtag/policy.conf"

struct conf_opts {
	const char *root;   /* prefix for every default path ("" or NULL: /) */
	const char *single; /* --config FILE: read only this file */
};

/* Read the policy into P: FILE given by --config, or the main file then
 * the drop-ins from the policy.d directories (sorted by file name; a name
 * in /etc masks the same name in /run and /usr/lib; an empty file or a
 * symlink to /dev/null masks without adding anything).  Unsafe files are
 * refused with an error diagnostic.  Returns the number of files read. */
unsigned conf_load(struct policy *p, const struct conf_opts *o);

/* A fingerprint of the files conf_load() would read with O: the path,
 * device, inode, mode, owner, size, modification and change times of the
 * main file (or --config FILE), of each drop-in directory (an added,
 * removed or renamed file changes the directory's times) and of each
 * *.conf file in them, symlinks and their targets both, and of the
 * directories above the main file and the drop-in directories.  Equal
 * fingerprints: the same policy, which a reader such as mtag-faultd can
 * keep instead of parsing it again.  A handful of stat()s, no read. */
uint64_t conf_stamp(const struct conf_opts *o);

/* Is the file described by ST safe to read policy from?  Returns NULL if
 * so, else a static reason.  EXPLICIT: named on the command line, so a
 * file owned by the caller is acceptable too when not running as root. */
struct stat;
const char *conf_unsafe_reason(const struct stat *st, bool explicit_file);

#endif
