/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-state.c -- what "mtagctl status" reads about one service: the
 * policy, what really runs (the tag-check mode of every process and
 * thread in its cgroup, heap tagging from smaps, report mode), the faults
 * of this boot; then the verdict (mtagctl-verdict.c) on it.  No output
 * here: mtagctl-columns.c renders a row, mtagctl-status.c runs the verb. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "cause.h"
#include "cgroupfs.h"
#include "escape.h"
#include "execstart.h"
#include "jemallocid.h"
#include "launcher-args.h"
#include "log.h"
#include "mte.h"
#include "procmte.h"
#include "smaps.h"
#include "systemd-time.h"
#include "unitfile.h"
#include "mtagctl-sd.h"
#include "mtagctl-state.h"
#include "mtagctl-verdict.h"
#include "policy.h"
#include "upgrade.h"
#include "util.h"

/* What /proc/PID/status MTE_TCF shows for a process started under MODE. */
static const char *expected_tcf(enum mtag_mode m)
{
	switch (m) {
	case MTAG_MODE_OFF:
		return "none";
	case MTAG_MODE_ASYNC:
		return "async";
	case MTAG_MODE_ASYMM:
		return "sync,async";
	case MTAG_MODE_SYNC:
	case MTAG_MODE_REPORT:
		break;
	}
	return "sync";
}

struct tcf_count {
	char tcf[64];
	unsigned n;
};

static void count_tcf(struct tcf_count *t, size_t *nt, size_t max, const char *tcf, unsigned k)
{
	for (size_t i = 0; i < *nt; i++)
		if (strcmp(t[i].tcf, tcf) == 0) {
			t[i].n += k;
			return;
		}
	if (*nt < max) {
		snprintf(t[*nt].tcf, sizeof(t[*nt].tcf), "%s", tcf);
		t[(*nt)++].n = k;
	}
}

/* The options of the entry the generator's drop-in at PATH (of unit UNIT)
 * hands the launcher, read back with the launcher's own parser: its
 * ExecStart= commands that run mtag-launcher, their --policy-entry.
 * Malloc'ed, or NULL (a drop-in of an older generator hands none). */
static char *dropin_entry(const char *path, const char *unit)
{
	static const char *const keys[] = { "ExecStart" };
	struct unit_file_keys k = { 0 };
	struct strv execs = { 0 };
	char *err = NULL, *entry = NULL;

	if (unit_file_parse(path, keys, 1, &k, &err) == 0)
		unit_file_keys_apply(&k, 0, &execs, NULL);
	for (size_t i = 0; i < execs.n && !entry; i++) {
		struct strv cmds;

		unit_exec_split(execs.v[i], &cmds);
		for (size_t j = 0; j < cmds.n && !entry; j++) {
			struct launcher_opts o;
			struct strv w;
			char **argv;

			if (unit_exec_words(cmds.v[j], unit, &w) && w.n) {
				argv = xmalloc((w.n + 1) * sizeof(*argv));
				memcpy(argv, w.v, w.n * sizeof(*argv));
				argv[w.n] = NULL;
				if (launcher_args_parse((int)w.n, argv, &o, true) > 0 && o.policy_entry)
					entry = xstrdup(o.policy_entry);
				free(argv);
			}
			strv_free(&w);
		}
		strv_free(&cmds);
	}
	strv_free(&execs);
	unit_file_keys_free(&k);
	free(err);
	return entry;
}

/* Whether the generator's drop-in at PATH hands the launcher another
 * entry than E (the policy changed after the last daemon-reload): the
 * entry it hands, in LOADED.  A drop-in of an older generator without
 * --policy-entry is not stale by this test. */
static bool dropin_stale(const char *path, const char *unit, const struct policy_entry *e,
			 char *loaded, size_t len)
{
	char *have = dropin_entry(path, unit), *want;
	bool stale;

	if (!have)
		return false;
	snprintf(loaded, len, "%s", have);
	want = policy_entry_options(e);
	stale = strcmp(want, have) != 0;
	free(want);
	free(have);
	return stale;
}

void svc_state_get(const struct ctl *c, const struct policy *p, const struct unit_info *u,
		   pid_t pid, struct svc_state *s)
{
	const struct policy_entry *e = NULL;
	struct launcher_entry le;
	struct svc_facts f;
	char loaded[256] = "", *want_opts = NULL;
	struct tcf_count tcfs[8];
	size_t ntcf = 0, npids = 0;
	pid_t *pids = NULL, odd_pid = 0;
	char odd_tcf[64] = "", odd_comm[128] = "";
	char odd_execdef[64] = "";
	bool odd_libc = false;
	pid_t narrow_pid = 0;
	int narrow_tags = 0;
	char narrow_comm[128] = "", narrow_mask[32] = "";
	unsigned secure_procs = 0, secure_checking = 0, secure_report_off = 0;
	char secure_desc[1024] = "";
	bool hw = mte_supported(), le_found = false;
	enum jemalloc_kind jk = JEMALLOC_NONE;
	char jpath[256] = "";
	int r;

	memset(s, 0, sizeof(*s));
	snprintf(s->unit, sizeof(s->unit), "%s", u && u->name ? u->name : "-");
	snprintf(s->active, sizeof(s->active), "%s", u && u->active_state ? u->active_state : "-");
	if (u && u->name) {
		e = policy_lookup(p, u->name);
		s->named = policy_names_unit(p, u->name);
	}
	if (e) {
		s->has_policy = true;
		s->mode = e->mode;
		s->heap = e->heap;
		snprintf(s->source, sizeof(s->source), "%s:%u", e->file, e->line);
	}

	if (pid) {
		pids = xmalloc(sizeof(*pids));
		pids[npids++] = pid;
	} else if (u && u->cgroup && *u->cgroup) {
		cgroup_pids(c->cgroup_root, u->cgroup, &pids, &npids);
	}
	s->running_known = true;
	for (size_t i = 0; i < npids; i++) {
		struct proc_mte m;

		bool secure_exec = false;

		if (mte_read_proc(c->proc, pids[i], &m) < 0 && !m.comm[0])
			continue; /* gone */
		/* Mode report: a process that runs otherwise after a secure
		 * exec is said as such, not as a mode that differs. */
		if (s->has_policy && s->mode == MTAG_MODE_REPORT && m.has_tcf_line &&
		    (strcmp(m.tcf, "sync") != 0 || !m.report_on)) {
			char exe[256], why[64], ecomm[128], eexe[512];
			unsigned priv = proc_exe_privilege(c->proc, pids[i], exe, sizeof(exe));

			if (priv || m.secure) {
				size_t o = strlen(secure_desc);

				secure_exec = true;
				secure_procs++;
				if (strcmp(m.tcf, "none") != 0)
					secure_checking++;
				if (!m.report_on)
					secure_report_off++;
				if (priv)
					proc_exe_privilege_str(priv, why, sizeof(why));
				else
					snprintf(why, sizeof(why), "AT_SECURE");
				/* A process names itself, a path can hold
				 * anything: escaped (escape.h). */
				if (secure_procs <= 4 && o < sizeof(secure_desc))
					snprintf(secure_desc + o, sizeof(secure_desc) - o, "%s%d (%s, %s: %s) runs %s%s",
						 o ? ", " : "", (int)pids[i], cescape(m.comm, ecomm, sizeof(ecomm)),
						 exe[0] ? cescape(exe, eexe, sizeof(eexe)) : "?", why, m.tcf,
						 m.report_on ? "" : " without report mode");
				else if (secure_procs == 5 && o < sizeof(secure_desc))
					snprintf(secure_desc + o, sizeof(secure_desc) - o, ", ...");
			}
		}
		s->procs++;
		s->threads += m.threads;
		s->anon_kb += m.anon_kb;
		s->mt_anon_kb += m.mt_anon_kb;
		if (!secure_exec) {
			/* (A program that runs without mtag does not make the
			 * service's heap untagged: it is said above.) */
			s->malloc_kb += m.malloc_kb;
			s->mt_malloc_kb += m.mt_malloc_kb;
		}
		s->threads_suspended += m.threads_suspended;
		if (m.report_on)
			s->report_on_procs++;
		if (m.upgrade_until_ns) {
			struct timespec bt, rt;
			unsigned long long bn, usec;

			clock_gettime(CLOCK_BOOTTIME, &bt);
			clock_gettime(CLOCK_REALTIME, &rt);
			bn = (unsigned long long)bt.tv_sec * 1000000000ULL + (unsigned long long)bt.tv_nsec;
			usec = (unsigned long long)rt.tv_sec * 1000000ULL + (unsigned long long)rt.tv_nsec / 1000 +
			       (m.upgrade_until_ns > bn ? (m.upgrade_until_ns - bn) / 1000 : 0);
			s->upgraded_procs++;
			if (usec > s->upgrade_until_usec)
				s->upgrade_until_usec = usec;
		}
		if (!m.has_tcf_line) {
			s->running_known = false;
			continue;
		}
		count_tcf(tcfs, &ntcf, 8, m.tcf, m.threads - m.threads_tcf_differ);
		if (m.threads_tcf_differ)
			count_tcf(tcfs, &ntcf, 8, m.tcf_differ, m.threads_tcf_differ);
		if (proc_mode_origin(&m) == MODE_ORIGIN_ENV)
			s->origin_env++;
		else if (proc_mode_origin(&m) == MODE_ORIGIN_KERNEL)
			s->origin_kernel++;
		if (!narrow_pid && strcmp(m.tcf, "none") != 0 && m.has_mask_line &&
		    tag_include_nonzero(m.tag_include) >= 0 && tag_include_nonzero(m.tag_include) < 2) {
			narrow_pid = pids[i];
			narrow_tags = tag_include_nonzero(m.tag_include);
			snprintf(narrow_mask, sizeof(narrow_mask), "%s", m.tag_include);
			cescape(m.comm, narrow_comm, sizeof(narrow_comm));
		}
		if (s->has_policy && !odd_pid && !secure_exec) {
			const char *want = expected_tcf(s->mode);

			if (strcmp(m.tcf, want) != 0) {
				odd_libc = proc_ignores_execdef(&m);
				s->libc_ignores_execdef = odd_libc;
				snprintf(odd_execdef, sizeof(odd_execdef), "%s", m.execdef);
				odd_pid = pids[i];
				snprintf(odd_tcf, sizeof(odd_tcf), "%s", m.tcf);
				/* A process names itself: escaped (escape.h). */
				cescape(m.comm, odd_comm, sizeof(odd_comm));
			} else if (m.threads_tcf_differ) {
				odd_pid = m.tcf_differ_tid;
				snprintf(odd_tcf, sizeof(odd_tcf), "%s", m.tcf_differ);
				char ecomm[256];

				snprintf(odd_comm, sizeof(odd_comm), "%s (a thread of %d)",
					 cescape(m.comm, ecomm, sizeof(ecomm)), (int)pids[i]);
			}
		}
	}
	if (npids)
		jk = jemalloc_kind_pid(c->proc, pids[0], jpath, sizeof(jpath));
	free(pids);
	if (s->procs == 0) {
		snprintf(s->running, sizeof(s->running), "-");
	} else if (!s->running_known) {
		snprintf(s->running, sizeof(s->running), "unknown");
	} else if (ntcf == 1) {
		snprintf(s->running, sizeof(s->running), "%s", tcfs[0].tcf);
	} else {
		size_t o = (size_t)snprintf(s->running, sizeof(s->running), "mixed (");

		for (size_t i = 0; i < ntcf && o < sizeof(s->running); i++)
			o += (size_t)snprintf(s->running + o, sizeof(s->running) - o, "%s%s %u",
					      i ? ", " : "", tcfs[i].tcf, tcfs[i].n);
		if (o < sizeof(s->running))
			snprintf(s->running + o, sizeof(s->running) - o, ")");
	}
	if (strcmp(s->running, "sync") == 0 && s->report_on_procs == s->procs && s->procs)
		snprintf(s->running, sizeof(s->running), "report");

	r = sd_ctl_count_faults(u && u->name ? u->name : NULL, s->by_cause);
	s->faults = r > 0 ? (unsigned)r : 0;
	r = sd_ctl_count_upgrades(u && u->name ? u->name : NULL);
	s->upgrades = r > 0 ? (unsigned)r : 0;
	if (s->upgraded_procs) {
		/* The async fault's time: the grant is readable by root
		 * and the service's user only ("?" for anyone else). */
		struct upgrade_rec g;
		char *gp = upgrade_path(NULL, "upgrade-grant", s->unit, NULL);

		if (upgrade_read(gp, &g) > 0)
			s->upgrade_fault_usec = g.fault_usec;
		free(gp);
	}
	if (u && u->name && u->invocation[0])
		le_found = sd_ctl_launcher_entry(u->invocation, u->name, &le) > 0;

	/* The verdict, from what was read. */
	f = (struct svc_facts){
		.hw = hw,
		.by_pid = pid != 0,
		.has_unit = u && u->name,
		.wrapped = u && u->wrapped,
		.unwrapped_by = u ? u->unwrapped_by : NULL,
		.started = u && u->invocation[0],
		.launcher_entry = le_found,
		.le_mode = le_found ? le.mode : "",
		.le_heap = le_found ? le.heap : "",
		.le_source = le_found ? le.source : "",
		.odd_pid = odd_pid,
		.odd_libc = odd_libc,
		.odd_comm = odd_comm,
		.odd_tcf = odd_tcf,
		.odd_execdef = odd_execdef,
		.jemalloc = jk,
		.jemalloc_path = jpath,
		.narrow_pid = narrow_pid,
		.narrow_tags = narrow_tags,
		.narrow_comm = narrow_comm,
		.narrow_mask = narrow_mask,
		.secure_procs = secure_procs,
		.secure_checking = secure_checking,
		.secure_report_off = secure_report_off,
		.secure_desc = secure_desc,
		.pkgs = c->pkgs,
	};
	if (e && u && u->dropin && !pid && dropin_stale(u->dropin, u->name, e, loaded, sizeof(loaded))) {
		want_opts = policy_entry_options(e);
		f.dropin_stale = true;
		f.dropin_runs = loaded;
		f.policy_now = want_opts;
	}
	svc_verdict(&f, s);
	free(want_opts);
}
