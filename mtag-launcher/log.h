/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.h -- messages to the journal (under systemd) or to stderr. */
#ifndef MTAG_LOG_H
#define MTAG_LOG_H

#include <stdbool.h>
#include <stdint.h>

#include "policy.h"

/* Message IDs (journalctl MESSAGE_ID=...), see docs/CONVENTIONS.md. */
#define MSGID_APPLIED "bf385b8ac1d643ae9fd31184e584bd06"
#define MSGID_CONFIG "45b1f191647949c384fa4bd2829040bd"
#define MSGID_NO_MTE "79bce142ef54497aa3087509adfb4ec4"

enum log_target { LOG_AUTO, LOG_STDERR, LOG_JOURNAL };

/* PROG: name used as prefix / SYSLOG_IDENTIFIER.  LOG_AUTO picks the
 * journal when running inside a systemd unit (INVOCATION_ID is set). */
void log_setup(const char *prog, enum log_target t, bool quiet);
bool log_to_journal(void);

/* PRIORITY as syslog(3); MSGID may be NULL. */
void log_msg(int priority, const char *msgid, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A policy diagnostic: "FILE:LINE: reason". */
void log_diag(const struct diag *d);

struct applied {
	const char *unit;      /* may be NULL */
	enum mtag_mode mode;
	bool heap;
	unsigned tunable;
	bool hw_mte;
	const char *source;    /* FILE:LINE, "--mode" or "built-in" */
	const char *command;
	/* Mode report: is it on (false: the kernel has no report-only mode,
	 * so tag checking was left off), and the re-enable time. */
	bool report_on;
	uint64_t reenable_ns;  /* DURATION_INFINITY: never */
	/* The kernel's exec default set for the process tree (patch 0006):
	 * "sync heap", "none", ... or "unsupported" (not the mtag kernel). */
	const char *exec_default;
};

/* The one informational entry per start. */
void log_applied(const struct applied *a);

#endif
