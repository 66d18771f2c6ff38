/* SPDX-License-Identifier: GPL-2.0-or-later */
/* faultd.h -- what mtag-faultd makes of one kernel line: a record of
 * data (struct faultd_record), on which every decision is made (the cause,
 * the unit, the upgraded start), then written once as the fields of its
 * journal entry (faultfields.h); and the cursor file that carries its
 * place in the journal across restarts.
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

#include "bugid.h"
#include "cause.h"
#include "faultline.h"
#include "log.h"
#include "upgrade.h"

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

/* The upgraded start (upgrade.h) as mtag-faultd decided it for a fault. */
enum faultd_upgrade {
	FAULTD_UPGRADE_NONE,      /* not a unit with upgrade=, or not decided */
	FAULTD_UPGRADE_NEXT,      /* async: the next start runs in sync */
	FAULTD_UPGRADE_LIMIT,     /* async: no, the one of this boot was used */
	FAULTD_UPGRADE_ERROR,     /* async: the record could not be written */
	FAULTD_UPGRADED,          /* sync, in the upgraded start after an async fault */
};

/* What mtag-faultd makes of one kernel line: data, decided once, then
 * written once as a journal entry by faultd_entry().  Strings "" when
 * unknown. */
struct faultd_record {
	enum faultd_kind kind;
	char *line;               /* the kernel's line, NULs made '?' */
	char *cursor;             /* its journal cursor, NULL: none */
	uint64_t realtime_usec;
	bool count_line;          /* FAULTD_UNPARSED: a "suppressed" line */
	struct mte_fault f;       /* FAULTD_FAULT */
	struct mte_suppressed sp; /* FAULTD_SUPPRESSED */
	struct mte_cause_info ci; /* FAULTD_FAULT */
	char unit[256];           /* the system unit of the cgroup */
	char user_unit[256];      /* within it, a unit of a user's manager */
	char mode[32];            /* the thread's MTE_TCF, if it is still there */
	char object[4096];        /* sync: the mapping of the PC */
	struct bug_object *bug;   /* the bug's identity (bugid.h): the pc's object,
	                             async: the main executable; NULL: none */
	const char *bug_why;      /* why there is none, NULL: no reason to say */
	char signature[BUG_SIGNATURE_LEN + 1]; /* of BUG, "" none */
	/* Filled by mtag-faultd's upgrade step: */
	enum faultd_upgrade upgrade;
	uint64_t upgrade_ns;       /* NEXT: the window */
	struct upgrade_rec grant;  /* LIMIT: the used marker; UPGRADED: the grant */
};

/* A fault whose core systemd-coredump may store: a sync fault that
 * killed its process (a signal, not report mode) and has a signature.
 * mtag-faultd keeps the last few, and when systemd-coredump's entry for
 * the process comes, writes the core's top frames (MSGID_FAULT_FRAMES). */
struct faultd_pending {
	pid_t pid, tid;
	char comm[64];
	char unit[256];
	char signature[BUG_SIGNATURE_LEN + 1];
	char cursor[512];         /* its kernel entry's, "" none */
	uint64_t usec;            /* its kernel entry's time */
};

/* Whether R (FAULTD_FAULT) is such a fault; then *P. */
bool faultd_pending_of(const struct faultd_record *r, struct faultd_pending *p);

/* The MSGID_FAULT_FRAMES entry of P's core: N frames FR (coreframes.h),
 * or none and WHY. */
void faultd_frames_entry(const struct faultd_pending *p, const struct bug_frame *fr, int n,
			 const char *why, struct log_struct *e);

/* Decide what K is into *R (emptied first).  PROC is the /proc to read
 * the faulting process's maps and status from (tests: a recorded tree),
 * NULL to read nothing.  Never fails but for memory (abort). */
enum faultd_kind faultd_decide(const char *proc, const struct faultd_kmsg *k,
			       struct faultd_record *r);

/* The journal entry of R (not FAULTD_NONE), into *E (log.h's builder;
 * emptied first): the one place its fields are written. */
void faultd_entry(const struct faultd_record *r, struct log_struct *e);

/* The unit of R for the counts, NULL: none. */
const char *faultd_record_unit(const struct faultd_record *r);

void faultd_record_free(struct faultd_record *r);

/* USEC as local HH:MM:SS, "(unknown time)" for 0, into BUF. */
void faultd_hhmmss(uint64_t usec, char *buf, size_t len);

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
