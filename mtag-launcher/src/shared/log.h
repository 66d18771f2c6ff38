/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.h -- the one logger of mtag's programs: messages to the journal
 * (under systemd) or to stderr as "PROG: error: ...", "PROG: warning:
 * ...", "PROG: ...". */
#ifndef MTAG_LOG_H
#define MTAG_LOG_H

#include <stdbool.h>

/* Message IDs (journalctl MESSAGE_ID=...), see docs/CONVENTIONS.md. */
#define MSGID_APPLIED "bf385b8ac1d643ae9fd31184e584bd06"
#define MSGID_CONFIG "45b1f191647949c384fa4bd2829040bd"
#define MSGID_NO_MTE "79bce142ef54497aa3087509adfb4ec4"

enum log_target {
	LOG_AUTO,     /* the journal inside a systemd unit (INVOCATION_ID
		       * set and journald there), else stderr */
	LOG_STDERR,   /* stderr */
	LOG_JOURNAL,  /* the journal (sd_journal_send) */
	LOG_STREAM,   /* stderr; when it is systemd's journal stream
		       * ($JOURNAL_STREAM), lines as "<PRIORITY>MESSAGE" */
};

/* PROG: name used as prefix / SYSLOG_IDENTIFIER.  QUIET: nothing below
 * LOG_WARNING on stderr. */
void log_setup(const char *prog, enum log_target t, bool quiet);
/* A systemd generator's log_setup() (systemd's log_setup_generator()):
 * stderr, quiet; run by systemd, whose PID 1's stderr reaches no log,
 * the kernel log instead, which journald imports. */
void log_setup_generator(const char *prog);
bool log_to_journal(void);
const char *log_prog(void);

/* PRIORITY as syslog(3); MSGID may be NULL. */
void log_msg(int priority, const char *msgid, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* TEXT on stderr, as log_msg() writes it there. */
void log_stderr(int priority, const char *text);

#endif
