/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-prom.c -- "status --prometheus": the node_exporter textfile
 * collector format (prom.c), written atomically so the collector never
 * reads half a file. */
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "cause.h"
#include "log.h"
#include "mtagctl-status.h"
#include "prom.h"

/* The running mode as a label: "mixed (sync 3, none 1)" -> "mixed". */
static void running_label(const struct svc_state *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s", s->running);
	buf[strcspn(buf, " ")] = '\0';
}

/* One 0/1 gauge per unit. */
static void per_unit(struct prom *p, const struct svc_state *rows, size_t n, const char *name,
		     const char *help, int (*value)(const struct svc_state *))
{
	prom_family(p, name, "gauge", help);
	for (size_t i = 0; i < n; i++)
		prom_sample_u64(p, name, (const char *[]){ "unit", rows[i].unit, NULL },
				(uint64_t)value(&rows[i]));
}

static int is_protected(const struct svc_state *s) { return s->verdict == V_PROTECTED; }
static int is_report(const struct svc_state *s) { return s->verdict == V_REPORT_ONLY; }
static int is_as_asked(const struct svc_state *s) { return s->as_asked; }
static int is_upgraded(const struct svc_state *s) { return s->upgraded_procs > 0; }

static void metrics(struct prom *p, const struct svc_state *rows, size_t n, bool hw_mte)
{
	struct timespec ts;
	char run[96];

	prom_family(p, "mtag_mte_supported", "gauge",
		    "1 if this CPU and kernel offer MTE to user space (HWCAP2_MTE).");
	prom_sample_u64(p, "mtag_mte_supported", NULL, hw_mte);
	prom_family(p, "mtag_policy_mode", "gauge",
		    "The tag-check mode the policy asks for, per service (1 on the mode asked, with the policy line).");
	for (size_t i = 0; i < n; i++)
		if (rows[i].has_policy)
			prom_sample_u64(p, "mtag_policy_mode",
					(const char *[]){ "unit", rows[i].unit, "mode", mode_name(rows[i].mode),
							  "source", rows[i].source, NULL }, 1);
	prom_family(p, "mtag_running_mode", "gauge",
		    "The tag-check mode the service's processes run with (sync, async, sync,async, report, none, mixed, unknown; - when not running).");
	for (size_t i = 0; i < n; i++) {
		running_label(&rows[i], run, sizeof(run));
		prom_sample_u64(p, "mtag_running_mode",
				(const char *[]){ "unit", rows[i].unit, "mode", run, NULL }, 1);
	}
	per_unit(p, rows, n, "mtag_protected",
		 "1 if the service runs with tag checking that stops a fault, as its policy asks.", is_protected);
	per_unit(p, rows, n, "mtag_report_only",
		 "1 if the service runs in report mode (faults logged, not stopped).", is_report);
	per_unit(p, rows, n, "mtag_as_asked",
		 "0 if a policy asks for MTE and the service does not run so (restart needed, heap not tagged, modes differ, no MTE).",
		 is_as_asked);
	prom_family(p, "mtag_heap_tagged_ratio", "gauge",
		    "Share of the service's malloc-able memory (anonymous, in mappings without a file or [heap]) in PROT_MTE (tagged) mappings.");
	for (size_t i = 0; i < n; i++)
		if (rows[i].malloc_kb)
			prom_sample(p, "mtag_heap_tagged_ratio", (const char *[]){ "unit", rows[i].unit, NULL },
				    (double)rows[i].mt_malloc_kb / (double)rows[i].malloc_kb);
	prom_family(p, "mtag_faults_total", "counter",
		    "Tag-check faults of the service since boot, by cause (mtag-faultd's journal entries).");
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 5; k++)
			prom_sample_u64(p, "mtag_faults_total",
					(const char *[]){ "unit", rows[i].unit, "cause",
							  mte_cause_name((enum mte_cause)k), NULL },
					rows[i].by_cause[k]);
	prom_family(p, "mtag_upgrades_total", "counter",
		    "Upgraded starts of the service since boot: after an async fault, a start in sync for its upgrade= window (mtag-faultd's own journal entries of the faults that recorded one, each once, when the launcher's entry of a start names it).");
	for (size_t i = 0; i < n; i++)
		prom_sample_u64(p, "mtag_upgrades_total", (const char *[]){ "unit", rows[i].unit, NULL },
				rows[i].upgrades);
	per_unit(p, rows, n, "mtag_upgraded",
		 "1 while the service runs in sync after an async fault (upgrade=), until its window ends.", is_upgraded);
	clock_gettime(CLOCK_REALTIME, &ts);
	prom_family(p, "mtag_last_update_timestamp_seconds", "gauge", "When mtagctl wrote these metrics.");
	prom_sample_u64(p, "mtag_last_update_timestamp_seconds", NULL, (uint64_t)ts.tv_sec);
}

int prom_write(const struct ctl *c, const struct svc_state *rows, size_t n, bool hw_mte)
{
	struct prom p;
	int r = prom_init(&p);

	if (r >= 0) {
		metrics(&p, rows, n, hw_mte);
		r = strcmp(c->prometheus, "-") == 0 ? prom_output(&p, stdout) : prom_commit(&p, c->prometheus);
	}
	prom_free(&p);
	if (r < 0)
		log_msg(LOG_ERR, NULL, "cannot write the metrics to %s: %s",
			strcmp(c->prometheus, "-") == 0 ? "standard output" : c->prometheus, strerror(-r));
	return r;
}
