/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-prom.c -- "status --prometheus": the node_exporter textfile
 * collector format (prom.c), written atomically so the collector never
 * reads half a file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "cause.h"
#include "faultcount.h"
#include "log.h"
#include "mtagctl-prom.h"
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

#ifndef MTAG_VERSION
#define MTAG_VERSION "unknown"
#endif

/* The labels of a unit's counter: none for faults without a unit. */
static const char *const *unit_labels(const char *unit, const char **l, const char *cause)
{
	size_t i = 0;

	if (strcmp(unit, FAULTCOUNT_NO_UNIT) != 0) {
		l[i++] = "unit";
		l[i++] = unit;
	}
	if (cause) {
		l[i++] = "cause";
		l[i++] = cause;
	}
	l[i] = NULL;
	return l;
}

/* The rows of the status table first (every cause, 0 included, so that
 * a counter exists before its first fault), then the units only the
 * state file knows (a unit with no policy, user@UID.service, "-"). */
static bool is_row(const struct svc_state *rows, size_t n, const char *unit)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].unit, unit) == 0)
			return true;
	return false;
}

/*
 * The counters, from mtag-faultd's state file (faultcount.h), never from
 * the journal: journald's vacuuming must not make a counter go down.
 * They start at 0 at each boot, as counters do.  Without a state file
 * (mtag-faultd not run yet this boot: its first fault writes one) every
 * count is 0; a state file that does not parse gives no counter at all
 * and mtag_faultd_state_ok 0.
 */
static void counters(struct prom *p, const struct ctl *c, const struct svc_state *rows, size_t n)
{
	struct faultcount fc;
	const char *why, *l[6];
	char *path;
	size_t line;
	int r;

	if (asprintf(&path, "%s/state", c->state_dir) < 0)
		abort();
	r = faultcount_load(path, &fc, &line, &why);
	if (r == -EBADMSG)
		log_msg(LOG_WARNING, NULL, "%s:%zu: %s: no fault counters exported", path, line, why);
	else if (r < 0)
		log_msg(LOG_WARNING, NULL, "cannot read %s: %s: no fault counters exported", path, strerror(-r));
	prom_family(p, "mtag_faultd_state_ok", "gauge",
		    "1 if mtag-faultd's state file (its counts) was read or is not there yet, 0 if it could not be read.");
	prom_sample_u64(p, "mtag_faultd_state_ok", NULL, r >= 0);
	if (r < 0) {
		free(path);
		return;
	}
	prom_family(p, "mtag_faults_total", "counter",
		    "Tag-check faults the kernel logged a line for, since boot, by service and cause (mtag-faultd's counts; faults without a unit have no unit label).");
	for (size_t i = 0; i < n; i++) {
		const struct faultcount_unit *u = faultcount_find(&fc, rows[i].unit);

		for (int k = 0; k < FAULTCOUNT_NCAUSES; k++)
			prom_sample_u64(p, "mtag_faults_total",
					unit_labels(rows[i].unit, l, mte_cause_name((enum mte_cause)k)),
					u ? u->by_cause[k] : 0);
	}
	for (size_t i = 0; i < fc.n; i++)
		for (int k = 0; k < FAULTCOUNT_NCAUSES; k++)
			if (!is_row(rows, n, fc.units[i].unit) && fc.units[i].by_cause[k])
				prom_sample_u64(p, "mtag_faults_total",
						unit_labels(fc.units[i].unit, l, mte_cause_name((enum mte_cause)k)),
						fc.units[i].by_cause[k]);
	prom_family(p, "mtag_faults_suppressed_total", "counter",
		    "Tag-check faults the kernel's rate limit logged no line for (its \"N fault reports suppressed\" counts), since boot, by service.");
	for (size_t i = 0; i < n; i++) {
		const struct faultcount_unit *u = faultcount_find(&fc, rows[i].unit);

		prom_sample_u64(p, "mtag_faults_suppressed_total", unit_labels(rows[i].unit, l, NULL),
				u ? u->suppressed : 0);
	}
	for (size_t i = 0; i < fc.n; i++)
		if (!is_row(rows, n, fc.units[i].unit) && fc.units[i].suppressed)
			prom_sample_u64(p, "mtag_faults_suppressed_total", unit_labels(fc.units[i].unit, l, NULL),
					fc.units[i].suppressed);
	prom_family(p, "mtag_faultd_kernel_lines_total", "counter",
		    "Kernel log lines mtag-faultd read, since boot.");
	prom_sample_u64(p, "mtag_faultd_kernel_lines_total", NULL, fc.lines);
	prom_family(p, "mtag_faultd_unparsed_lines_total", "counter",
		    "Fault lines of the kernel mtag-faultd could not read, since boot (a kernel and mtag-faultd that differ).");
	prom_sample_u64(p, "mtag_faultd_unparsed_lines_total", NULL, fc.unparsed);
	faultcount_free(&fc);
	free(path);
}

static int libc_ignores(const struct svc_state *s) { return s->libc_ignores_execdef; }

void prom_metrics(struct prom *p, const struct ctl *c, const struct svc_state *rows, size_t n,
		  const struct prom_host *h)
{
	struct timespec ts;
	char run[96];

	prom_family(p, "mtag_build_info", "gauge", "The mtag release that wrote these metrics (always 1).");
	prom_sample_u64(p, "mtag_build_info", (const char *[]){ "version", MTAG_VERSION, NULL }, 1);
	prom_family(p, "mtag_kernel_exec_default_supported", "gauge",
		    "1 if the running kernel is an mtag build with the MTE exec default (MTE_ExecDefault in /proc/PID/status).");
	prom_sample_u64(p, "mtag_kernel_exec_default_supported", NULL, h->kernel_execdef);
	prom_family(p, "mtag_faultd_up", "gauge",
		    "1 if mtag-faultd.service is active (the faults are being reported and counted).");
	prom_sample_u64(p, "mtag_faultd_up", NULL, h->faultd_up);

	prom_family(p, "mtag_mte_supported", "gauge",
		    "1 if this CPU and kernel offer MTE to user space (HWCAP2_MTE).");
	prom_sample_u64(p, "mtag_mte_supported", NULL, h->hw_mte);
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
	per_unit(p, rows, n, "mtag_libc_ignores_exec_default",
		 "1 if a process of the service runs unchecked although the kernel's exec default asks for a mode and no tunable reached it: its libc does not read the default (not the mtag glibc, or a static program).",
		 libc_ignores);
	prom_family(p, "mtag_package_is_mtag_build", "gauge",
		    "1 if the installed package (libc6, libjemalloc2; kernel: the running one) is mtag's build, 0 if Debian's (a Debian update won: what relies on it is not protected).");
	{
		const struct { const char *name; const struct pkg_info *pi; } pk[] = {
			{ "libc6", &h->pkgs.libc6 },
			{ "libjemalloc2", &h->pkgs.jemalloc },
			{ "kernel", &h->pkgs.kernel },
		};

		for (size_t i = 0; i < sizeof(pk) / sizeof(pk[0]); i++)
			if (pk[i].pi->build != PKG_UNKNOWN)
				prom_sample_u64(p, "mtag_package_is_mtag_build",
						(const char *[]){ "package", pk[i].name, "version", pk[i].pi->version, NULL },
						pk[i].pi->build == PKG_MTAG);
	}
	prom_family(p, "mtag_lost_protection", "gauge",
		    "1 for a service that lost its protection because a package is Debian's build, not mtag's (reason: libc6, libjemalloc2 or kernel).");
	for (size_t i = 0; i < n; i++)
		if (rows[i].lost[0])
			prom_sample_u64(p, "mtag_lost_protection",
					(const char *[]){ "unit", rows[i].unit, "reason", rows[i].lost,
							  "version", rows[i].lost_version, NULL }, 1);
	counters(p, c, rows, n);
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

int prom_write(const struct ctl *c, const struct svc_state *rows, size_t n, const struct prom_host *h)
{
	struct prom p;
	int r = prom_init(&p);

	if (r >= 0) {
		prom_metrics(&p, c, rows, n, h);
		r = strcmp(c->prometheus, "-") == 0 ? prom_output(&p, stdout) : prom_commit(&p, c->prometheus);
	}
	prom_free(&p);
	if (r < 0)
		log_msg(LOG_ERR, NULL, "cannot write the metrics to %s: %s",
			strcmp(c->prometheus, "-") == 0 ? "standard output" : c->prometheus, strerror(-r));
	return r;
}
