/* SPDX-License-Identifier: GPL-2.0-or-later */
/* applied.h -- the launcher's journal entries (through log.h): a policy
 * diagnostic (MSGID_CONFIG), and the one entry per start that says what
 * was applied (MSGID_APPLIED). */
#ifndef MTAG_APPLIED_H
#define MTAG_APPLIED_H

#include <stdbool.h>
#include <stdint.h>

#include "policy.h"

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
