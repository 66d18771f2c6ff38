/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.h -- the one logger of mtag's programs: messages to the journal
 * (under systemd) or to stderr as "PROG: error: ...", "PROG: warning:
 * ...", "PROG: ...". */
#ifndef MTAG_LOG_H
#define MTAG_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Message IDs (journalctl MESSAGE_ID=...), see docs/CONVENTIONS.md. */
#define MSGID_APPLIED "bf385b8ac1d643ae9fd31184e584bd06"
#define MSGID_CONFIG "45b1f191647949c384fa4bd2829040bd"
#define MSGID_NO_MTE "79bce142ef54497aa3087509adfb4ec4"
#define MSGID_DEBIAN_BUILD "8ed2fad41e0548cba4545ddcef5db26e" /* mtagctl check-packages */

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

/* A structured journal entry, the one builder of them all (systemd's
 * log_struct()): "NAME=value" fields, malloc'ed, in the order added.
 * log_struct_begin() empties S and starts it with MESSAGE=, MESSAGE_ID=
 * (MSGID NULL: none), PRIORITY= and SYSLOG_IDENTIFIER= (the program's
 * own, log_setup()); log_struct_add() appends one field.  Then
 * log_struct() writes it as log_msg() does (the journal, else MESSAGE on
 * stderr), log_struct_send() to the journal only (-errno when it cannot),
 * log_struct_print() as FIELD=VALUE lines and a blank line (tests). */
struct log_struct {
	char **fields;
	size_t n, cap;
	int priority;
};

void log_struct_begin(struct log_struct *s, int priority, const char *msgid, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void log_struct_add(struct log_struct *s, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The value of field NAME in S, or NULL. */
const char *log_struct_get(const struct log_struct *s, const char *name);
void log_struct(const struct log_struct *s);
int log_struct_send(const struct log_struct *s);
void log_struct_print(FILE *f, const struct log_struct *s);
void log_struct_free(struct log_struct *s);

#endif
