/* SPDX-License-Identifier: GPL-2.0-or-later */
/* applied.c -- the launcher's journal entries: a policy diagnostic, and
 * the one entry per start that says what was applied (see applied.h). */
#include "applied.h"

#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>

#include "systemd-time.h"
#include "log.h"
#include "util.h"

void log_diag(const struct diag *d)
{
	int prio = d->level == DIAG_ERROR ? LOG_ERR : LOG_WARNING;

	if (d->line)
		log_msg(prio, MSGID_CONFIG, "%s:%u: %s", d->file, d->line, d->msg);
	else
		log_msg(prio, MSGID_CONFIG, "%s: %s", d->file, d->msg);
}

void log_applied(const struct applied *a)
{
	const char *unit = a->unit ? a->unit : "-";
	bool report = a->mode == MTAG_MODE_REPORT;
	char span[64], nsec[32], *extra, *text;
	struct log_struct ls = { 0 };

	duration_format(a->reenable_ns, span, sizeof(span));
	if (a->reenable_ns == DURATION_INFINITY)
		snprintf(nsec, sizeof(nsec), "infinity");
	else
		snprintf(nsec, sizeof(nsec), "%llu", (unsigned long long)a->reenable_ns);
	if (!report)
		extra = xstrdup("");
	else if (a->report_on && a->reenable_ns == DURATION_INFINITY)
		extra = xstrdup(" (faults are reported, not fatal; a thread runs unchecked after its first fault)");
	else if (a->report_on)
		extra = xasprintf(" (faults are reported, not fatal; checks come back in a thread after %s of its CPU time)",
				  span);
	else if (a->hw_mte)
		extra = xstrdup(" not possible (no report-only mode in this kernel): tag checking off");
	else
		extra = xstrdup(" not possible (no MTE): tag checking off");
	text = xasprintf("%s: MTE %s%s%s (glibc tunable %u) from %s%s; running %s",
			 unit, mode_name(a->mode), extra, a->heap ? "" : ", heap not tagged",
			 a->tunable, a->source,
			 a->hw_mte ? "" : "; this CPU has no MTE, so nothing is checked",
			 a->command);
	free(extra);

	log_struct_begin(&ls, LOG_INFO, MSGID_APPLIED, "%s", text);
	log_struct_add(&ls, "MTAG_UNIT", "%s", unit);
	log_struct_add(&ls, "MTAG_MODE", "%s", mode_name(a->mode));
	log_struct_add(&ls, "MTAG_HEAP", "%s", a->heap ? "on" : "off");
	log_struct_add(&ls, "MTAG_TUNABLE", "%u", a->tunable);
	log_struct_add(&ls, "MTAG_HW_MTE", "%s", a->hw_mte ? "yes" : "no");
	log_struct_add(&ls, "MTAG_POLICY_SOURCE", "%s", a->source);
	log_struct_add(&ls, "MTAG_COMMAND", "%s", a->command);
	log_struct_add(&ls, "MTAG_EXEC_DEFAULT", "%s", a->exec_default ? a->exec_default : "unsupported");
	/* The report fields only in report mode. */
	if (report) {
		log_struct_add(&ls, "MTAG_REPORT", "%s", a->report_on ? "on" : "unsupported");
		log_struct_add(&ls, "MTAG_REENABLE_NSEC", "%s", nsec);
	}
	log_struct(&ls);
	log_struct_free(&ls);
	free(text);
}
