/* SPDX-License-Identifier: GPL-2.0-or-later */
/* faultd.h -- what mtag-faultd makes of one kernel line: the fields of its
 * journal entry (faultfields.h), and the cursor file that carries its place
 * in the journal across restarts.
 *
 * Nothing here uses libsystemd: faultd-main.c reads the journal and writes
 * the entries, the tests (mtag-faultd --from-stdin) print them.
 */
#ifndef MTAG_FAULTD_H
#define MTAG_FAULTD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "log.h"

/* A kernel log line and where it came from. */
struct faultd_kmsg {
	const char *text;         /* the line (MESSAGE); no NUL needed */
	size_t len;
	const char *cursor;       /* journal cursor of its entry, NULL: none */
	uint64_t realtime_usec;   /* its __REALTIME_TIMESTAMP, 0: unknown */
};

enum faultd_kind {
	FAULTD_NONE,              /* not a fault line: nothing to write */
	FAULTD_FAULT,             /* E is a MSGID_FAULT entry */
	FAULTD_UNPARSED,          /* E is a MSGID_FAULT_UNPARSED entry */
	FAULTD_SUPPRESSED,        /* E is a MSGID_FAULT_SUPPRESSED entry */
};

/* Build the entry for K into *E (log.h's builder; emptied first).  PROC is the /proc to
 * read the faulting process's maps and status from (tests: a recorded
 * tree), NULL to read nothing.  Never fails but for memory (abort). */
enum faultd_kind faultd_build(const char *proc, const struct faultd_kmsg *k,
			      struct log_struct *e);

/* The state directory: DIR_OPT (--state-dir) if given, else the first of
 * $STATE_DIRECTORY (colon-separated, systemd's StateDirectory=), else
 * /var/lib/mtag.  Malloc'ed. */
char *faultd_state_dir(const char *dir_opt);

/* DIR/cursor, the journal cursor of the last kernel entry handled as
 * older versions saved it (the state file holds it now): 1 and *CURSOR
 * (malloc'ed), 0 when there is none (no file, or an empty one), -errno.
 * Sets *WHAT to DIR/cursor (a static buffer). */
int faultd_cursor_load(const char *dir, char **cursor, const char **what);

/* The boot ID ("b=" field, 32 hex digits) of a journal cursor into BOOT
 * (>= 33 bytes).  false when the cursor has none. */
bool faultd_cursor_boot(const char *cursor, char *boot, size_t len);

#endif
