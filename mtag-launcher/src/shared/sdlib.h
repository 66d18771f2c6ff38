/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sdlib.h -- libsystemd, loaded on first use.
 *
 * Outside a systemd unit the launcher needs nothing from libsystemd, and
 * loading it (with liblzma, libzstd, liblz4, libgcrypt, libcap) is most of
 * the launcher's start cost: an empty program linked with -lsystemd starts
 * ~1.2 ms slower.  So it is dlopen()ed only when the journal or
 * sd_pid_get_unit() is needed.
 */
#ifndef MTAG_SDLIB_H
#define MTAG_SDLIB_H

#include <sys/types.h>
#include <sys/uio.h>

struct sdlib {
	int (*pid_get_unit)(pid_t pid, char **unit);
	int (*journal_sendv)(const struct iovec *iov, int n);  /* log_struct_send() */
};

/* The loaded library, or NULL (with a reason logged once to stderr) if
 * libsystemd.so.0 cannot be loaded. */
const struct sdlib *sdlib(void);

/* Where sdlib() says why libsystemd cannot be used (PRIORITY as
 * syslog(3)): the logger sets its stderr writer (log_setup()); until then,
 * plain stderr. */
void sdlib_set_warn(void (*warn)(int priority, const char *text));

#endif
