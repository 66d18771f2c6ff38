/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-status.c -- the verb "mtagctl status": which services to show
 * (named ones, those the policy names or that run with tag checking, or
 * --all), their state (mtagctl-state.c) and verdict, then the table or
 * JSON (mtagctl-columns.c), the -p PID view or the Prometheus file
 * (mtagctl-prom.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "conffiles.h"
#include "escape.h"
#include "json.h"
#include "log.h"
#include "mte.h"
#include "procmte.h"
#include "smaps.h"
#include "systemd-time.h"
#include "mtagctl-columns.h"
#include "mtagctl-sd.h"
#include "mtagctl-prom.h"
#include "mtagctl-state.h"
#include "mtagctl-verdict.h"
#include "policy.h"
#include "util.h"

static void print_pid(const struct ctl *c, const struct svc_state *s, pid_t pid)
{
	struct proc_mte m;
	char buf[600], ecomm[256];

	if (mte_read_proc(c->proc, pid, &m) < 0 && !m.comm[0])
		return;
	status_policy_text(s, buf, sizeof(buf));
	printf("pid %d (%s)\n", (int)pid, cescape(m.comm, ecomm, sizeof(ecomm)));
	printf("unit:           %s\n", s->unit);
	printf("policy:         %s\n", buf);
	if (m.has_tcf_line)
		printf("tag checking:   %s%s\n", m.tcf,
		       m.threads_tcf_differ ? " (some threads differ)" : "");
	else
		printf("tag checking:   unknown (this kernel does not show MTE_TCF in %s/%d/status)\n",
		       c->proc, (int)pid);
	if (m.has_mask_line) {
		int n = tag_include_nonzero(m.tag_include);

		if (n >= 0 && n < 2)
			printf("tag mask:       %s (%d non-zero tag%s: too few, neighbouring allocations share their tag and faults go unseen)\n",
			       m.tag_include, n, n == 1 ? "" : "s");
		else
			printf("tag mask:       %s\n", m.tag_include);
	}
	{
		char exe[256], eexe[1024], why[64];
		unsigned priv = proc_exe_privilege(c->proc, pid, exe, sizeof(exe));

		if (priv || m.secure)
			printf("secure exec:    yes (%s%s%s): the kernel drops report mode and the exec default for it; it runs %s\n",
			       exe[0] ? cescape(exe, eexe, sizeof(eexe)) : "its program",
			       priv ? " is " : ", AT_SECURE",
			       priv ? proc_exe_privilege_str(priv, why, sizeof(why)) : "",
			       m.has_tcf_line ? m.tcf : "in a mode this kernel does not show");
	}
	if (m.has_execdef_line)
		printf("exec default:   %s (the kernel's, kept across exec)\n", m.execdef);
	switch (proc_mode_origin(&m)) {
	case MODE_ORIGIN_ENV:
		printf("mode from:      the environment (a glibc tunable)\n");
		break;
	case MODE_ORIGIN_KERNEL:
		printf("mode from:      the kernel's exec default (%s)\n",
		       m.secure ? "AT_SECURE: glibc ignores the tunables" : "no tunable in the environment");
		break;
	case MODE_ORIGIN_NONE:
		if (proc_ignores_execdef(&m))
			printf("mode from:      nowhere: this libc does not read the kernel's default\n");
		break;
	case MODE_ORIGIN_UNKNOWN:
		break;
	}
	printf("heap tagging:   %s (%llu of %llu kB malloc-able memory tagged; %llu of %llu kB anonymous memory in %u mt mappings of %u)\n",
	       m.mt_maps && smaps_heap_tagged(m.malloc_kb, m.mt_malloc_kb) ? "yes" : "no",
	       m.mt_malloc_kb, m.malloc_kb, m.mt_anon_kb, m.anon_kb, m.mt_maps, m.maps);
	if (!m.has_report_line) {
		printf("report mode:    not available (this kernel shows no MTE_Report in %s/%d/status)\n",
		       c->proc, (int)pid);
	} else if (!m.report_on) {
		printf("report mode:    off\n");
	} else {
		char span[64];

		if (m.report_reenable_ns)
			printf("report mode:    on (checks come back in a thread after %s of its CPU time)\n",
			       duration_format(m.report_reenable_ns, span, sizeof(span)));
		else
			printf("report mode:    on (a thread runs unchecked after its first fault)\n");
	}
	if (m.upgrade_until_ns) {
		char until[16], fault[16];

		clock_hms(s->upgrade_until_usec, until, sizeof(until));
		clock_hms(s->upgrade_fault_usec, fault, sizeof(fault));
		printf("upgrade:        upgraded to sync until %s after the async fault at %s (MTE_TCF shows the mode asked for, which comes back then)\n",
		       until, fault);
	}
	printf("threads:        %u", m.threads);
	if (m.has_report_line && m.threads_suspended) {
		printf(", tag checking suspended by a reported fault in %u:", m.threads_suspended);
		for (unsigned i = 0; i < m.threads_suspended && i < PROC_MTE_TIDS; i++)
			printf(" %d", (int)m.suspended[i]);
		if (m.threads_suspended > PROC_MTE_TIDS)
			printf(" ...");
	}
	if (m.threads_tcf_differ)
		printf(", %u with another mode (thread %d: %s)", m.threads_tcf_differ,
		       (int)m.tcf_differ_tid, m.tcf_differ);
	printf("\n");
	printf("faults:         %u this boot (unit %s)\n", s->faults, s->unit);
	printf("verdict:        %s%s%s: %s\n", status_verdict_color(c, s->verdict), verdict_name(s->verdict),
	       ctl_color(c, ANSI_RESET), s->reason);
}

/* Should an unlisted-by-name unit be a row? */
static bool interesting(const struct ctl *c, const struct policy *p, const struct svc_state *s,
			const struct unit_info *u)
{
	if (c->all)
		return true;
	if (policy_names_unit(p, u->name))
		return true;
	/* Tag checking on without an entry naming it ("default", or set up
	 * by hand). */
	return s->procs && s->running_known && strcmp(s->running, "none") != 0 &&
	       strcmp(s->running, "-") != 0;
}

int verb_status(const struct ctl *c0, char **names, int nnames)
{
	struct pkg_set pkgs;
	struct ctl cc = *c0;
	const struct ctl *c = &cc;
	struct conf_opts co = { .root = c->root, .single = c->config };
	struct policy p;
	struct svc_state *rows = NULL;
	size_t nrows = 0, cap = 0;
	int rc = EXIT_SUCCESS, r;
	bool hw = mte_supported();

	ctl_packages(c0, &pkgs);
	cc.pkgs = &pkgs;
	policy_init(&p);
	conf_load(&p, &co);
	if (policy_error_count(&p))
		log_msg(LOG_WARNING, NULL, "the policy has %zu error%s (mtagctl check shows them); the valid entries apply",
			policy_error_count(&p), policy_error_count(&p) == 1 ? "" : "s");

	if (c->pid) {
		struct unit_info u = { 0 };
		char *name = sd_ctl_pid_unit(c->pid);
		struct svc_state s;
		char path[64];

		snprintf(path, sizeof(path), "%s/%d", c->proc, (int)c->pid);
		if (access(path, F_OK) < 0) {
			log_msg(LOG_ERR, NULL, "cannot read %s: %s", path, strerror(errno));
			free(name);
			policy_free(&p);
			return EXIT_INVALIDARGUMENT;
		}
		if (name && sd_ctl_get_unit(name, &u) < 0) {
			unit_info_free(&u);
			u.name = xstrdup(name);
		}
		svc_state_get(c, &p, name ? &u : NULL, c->pid, &s);
		if (c->json) {
			struct json w;

			json_init(&w, stdout, c->json_pretty);
			status_json_row(&w, &s);
			json_finish(&w);
		} else {
			pager_open(c);
			print_pid(c, &s, c->pid);
		}
		rc = s.as_asked ? EXIT_SUCCESS : EXIT_FAILURE;
		unit_info_free(&u);
		free(name);
		policy_free(&p);
		return rc;
	}

	if (nnames > 0) {
		for (int i = 0; i < nnames; i++) {
			struct unit_info u;

			r = sd_ctl_get_unit(names[i], &u);
			if (r == -ENOENT) {
				log_msg(LOG_ERR, NULL, "unit %s not found", u.name ? u.name : names[i]);
				rc = EXIT_INVALIDARGUMENT;
				unit_info_free(&u);
				continue;
			} else if (r < 0) {
				log_msg(LOG_ERR, NULL, "cannot ask systemd about %s: %s", names[i], strerror(-r));
				unit_info_free(&u);
				policy_free(&p);
				free(rows);
				return EXIT_INVALIDARGUMENT;
			}
			grow_array((void **)&rows, &cap, nrows + 1, sizeof(*rows));
			svc_state_get(c, &p, &u, 0, &rows[nrows++]);
			unit_info_free(&u);
		}
	} else {
		struct unit_info *units;
		size_t nunits;

		r = sd_ctl_list_services(&units, &nunits);
		if (r < 0) {
			log_msg(LOG_ERR, NULL, "cannot ask systemd for the services over the system bus: %s (is systemd running?)", strerror(-r));
			policy_free(&p);
			return EXIT_INVALIDARGUMENT;
		}
		for (size_t i = 0; i < nunits; i++) {
			struct svc_state s;

			svc_state_get(c, &p, &units[i], 0, &s);
			if (interesting(c, &p, &s, &units[i])) {
				grow_array((void **)&rows, &cap, nrows + 1, sizeof(*rows));
				rows[nrows++] = s;
			}
			unit_info_free(&units[i]);
		}
		free(units);
		/* Units the admin's policy names exactly that systemd does
		 * not have: a typo or a package not installed.  Not the
		 * package's vendor defaults (/usr/lib/mtag/policy.d): they
		 * name the Debian daemons known to break, installed or not,
		 * and one not installed is as its entry asks. */
		for (size_t i = 0; i < p.n_entries && !c->prometheus; i++) {
			const struct policy_entry *e = &p.entries[i];
			bool seen = false;

			if (e->kind != ENTRY_EXACT || e->rank == POLICY_RANK_VENDOR)
				continue;
			for (size_t k = 0; k < nrows; k++)
				seen = seen || strcmp(rows[k].unit, e->pattern) == 0;
			if (!seen && strstr(e->pattern, ".service")) {
				struct unit_info u;

				if (sd_ctl_get_unit(e->pattern, &u) == -ENOENT) {
					struct svc_state *s;

					grow_array((void **)&rows, &cap, nrows + 1, sizeof(*rows));
					s = &rows[nrows++];
					svc_state_get(c, &p, &u, 0, s);
					s->verdict = V_NOT_PROTECTED;
					snprintf(s->active, sizeof(s->active), "not-found");
					snprintf(s->reason, sizeof(s->reason),
						 "no such unit: %s:%u names it (a typo, or its package is not installed?)",
						 e->file, e->line);
					s->as_asked = false;
				}
				unit_info_free(&u);
			}
		}
	}

	for (size_t i = 0; i < nrows; i++)
		if (!rows[i].as_asked)
			rc = rc == EXIT_SUCCESS ? EXIT_FAILURE : rc;

	if (c->prometheus) {
		/* As node_exporter's textfile scripts: the exit status says
		 * whether the file was written; what the services are is in
		 * it (mtag_as_asked).  Otherwise mtag-prometheus.service
		 * fails every minute on exactly the hosts that need a look,
		 * and trips every "failed unit" alert. */
		struct prom_host h = { .hw_mte = hw, .pkgs = pkgs };
		struct unit_info fu = { 0 };
		struct proc_mte self;

		h.kernel_execdef = mte_read_proc(c->proc, getpid(), &self) >= 0 && self.has_execdef_line;
		h.faultd_up = sd_ctl_get_unit("mtag-faultd.service", &fu) == 0 && fu.active_state &&
			      strcmp(fu.active_state, "active") == 0;
		unit_info_free(&fu);
		rc = prom_write(c, rows, nrows, &h) < 0 ? EXIT_INVALIDARGUMENT : EXIT_SUCCESS;
	} else if (c->json) {
		struct json w;

		json_init(&w, stdout, c->json_pretty);
		json_begin_array(&w);
		for (size_t i = 0; i < nrows; i++)
			status_json_row(&w, &rows[i]);
		json_end_array(&w);
		json_finish(&w);
	} else {
		pager_open(c);
		if (!hw)
			printf("%sThis CPU or kernel has no MTE (no HWCAP2_MTE): nothing is checked.%s\n",
			       ctl_color(c, ANSI_RED), ctl_color(c, ANSI_RESET));
		r = status_table_print(c, stdout, rows, nrows);
		if (r < 0) {
			log_msg(LOG_ERR, NULL, "cannot print the table: %s", strerror(-r));
			rc = EXIT_INVALIDARGUMENT;
		}
	}
	free(rows);
	policy_free(&p);
	sd_ctl_close();
	return rc;
}

