/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-status.c -- "mtagctl status": per service, the policy, what
 * really runs (the tag-check mode of every process and thread in its
 * cgroup, heap tagging from smaps, report mode), the faults of this boot
 * and a verdict with its reason. */
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
#include "conffiles.h"
#include "duration.h"
#include "escape.h"
#include "log.h"
#include "mte.h"
#include "procmte.h"
#include "jemallocid.h"
#include "smaps.h"
#include "json.h"
#include "mtagctl-sd.h"
#include "mtagctl-status.h"
#include "mtagctl-verdict.h"
#include "policy.h"
#include "upgrade.h"
#include "util.h"

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case V_PROTECTED:
		return "protected";
	case V_REPORT_ONLY:
		return "report only";
	case V_INACTIVE:
		return "inactive";
	case V_NOT_PROTECTED:
		break;
	}
	return "not protected";
}

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

/* Whether the generator's drop-in at PATH hands the launcher another
 * entry than E (the policy changed after the last daemon-reload): the
 * entry it hands, in LOADED.  A drop-in of an older generator without
 * --policy-entry is not stale by this test. */
static bool dropin_stale(const char *path, const struct policy_entry *e, char *loaded, size_t len)
{
	static const char key[] = " --policy-entry=\"";
	char *buf = NULL, *want, *k, *end;
	size_t n = 0;
	bool stale = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return false;
	if (read_fd_all(fd, 1 << 20, &buf, &n) == 0 && (k = strstr(buf, key)) &&
	    (end = strchr(k + strlen(key), '"'))) {
		*end = '\0';
		snprintf(loaded, len, "%s", k + strlen(key));
		want = policy_entry_options(e);
		stale = strcmp(want, loaded) != 0;
		free(want);
	}
	free(buf);
	close(fd);
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

		if (mte_read_proc(c->proc, pids[i], &m) < 0 && !m.comm[0])
			continue; /* gone */
		s->procs++;
		s->threads += m.threads;
		s->anon_kb += m.anon_kb;
		s->mt_anon_kb += m.mt_anon_kb;
		s->malloc_kb += m.malloc_kb;
		s->mt_malloc_kb += m.mt_malloc_kb;
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
		if (s->has_policy && !odd_pid) {
			const char *want = expected_tcf(s->mode);

			if (strcmp(m.tcf, want) != 0) {
				odd_libc = proc_ignores_execdef(&m);
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
		/* The async fault's time: the grant is world-readable. */
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
	};
	if (e && u && u->dropin && !pid && dropin_stale(u->dropin, e, loaded, sizeof(loaded))) {
		want_opts = policy_entry_options(e);
		f.dropin_stale = true;
		f.dropin_runs = loaded;
		f.policy_now = want_opts;
	}
	svc_verdict(&f, s);
	free(want_opts);
}

static void heap_str(const struct svc_state *s, char *buf, size_t len)
{
	if (!s->procs || !s->malloc_kb)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%llu%%", s->mt_malloc_kb * 100 / s->malloc_kb);
}

static void policy_str(const struct svc_state *s, char *buf, size_t len)
{
	if (!s->has_policy)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s%s (%s)", mode_name(s->mode), s->heap ? "" : " heap=off", s->source);
}

static const char *verdict_color(const struct ctl *c, enum verdict v)
{
	switch (v) {
	case V_PROTECTED:
		return ctl_color(c, ANSI_GREEN);
	case V_REPORT_ONLY:
		return ctl_color(c, ANSI_YELLOW);
	case V_INACTIVE:
		return ctl_color(c, ANSI_GREY);
	case V_NOT_PROTECTED:
		break;
	}
	return ctl_color(c, ANSI_RED);
}

static void json_row(struct json *w, const struct svc_state *s)
{
	json_begin_object(w);
	json_kv_string(w, "unit", s->unit);
	json_kv_string(w, "active", s->active);
	json_key(w, "policy");
	if (s->has_policy) {
		json_begin_object(w);
		json_kv_string(w, "mode", mode_name(s->mode));
		json_kv_bool(w, "heap", s->heap);
		json_kv_string(w, "source", s->source);
		json_kv_bool(w, "names_unit", s->named);
		json_end_object(w);
	} else {
		json_null(w);
	}
	json_key(w, "running");
	json_begin_object(w);
	json_kv_string(w, "mode", s->running);
	json_kv_uint(w, "processes", s->procs);
	json_kv_uint(w, "threads", s->threads);
	json_kv_uint(w, "report_on_processes", s->report_on_procs);
	json_kv_uint(w, "threads_suspended", s->threads_suspended);
	json_key(w, "mode_origin");
	json_begin_object(w);
	json_kv_uint(w, "environment", s->origin_env);
	json_kv_uint(w, "kernel", s->origin_kernel);
	json_end_object(w);
	json_end_object(w);
	json_key(w, "heap");
	json_begin_object(w);
	json_kv_uint(w, "anonymous_kb", s->anon_kb);
	json_kv_uint(w, "tagged_kb", s->mt_anon_kb);
	json_kv_uint(w, "malloc_kb", s->malloc_kb);
	json_kv_uint(w, "malloc_tagged_kb", s->mt_malloc_kb);
	json_end_object(w);
	json_key(w, "faults");
	json_begin_object(w);
	json_kv_uint(w, "total", s->faults);
	for (int k = 0; k < 5; k++)
		json_kv_uint(w, mte_cause_name((enum mte_cause)k), s->by_cause[k]);
	json_end_object(w);
	json_kv_string(w, "verdict", verdict_name(s->verdict));
	json_kv_uint(w, "upgrades", s->upgrades);
	json_key(w, "upgraded_until_usec");
	if (s->upgraded_procs)
		json_uint(w, s->upgrade_until_usec);
	else
		json_null(w);
	json_kv_string(w, "reason", s->reason);
	json_kv_bool(w, "as_asked", s->as_asked);
	json_end_object(w);
}

static void print_table(const struct ctl *c, const struct svc_state *rows, size_t n)
{
	int wu = 4, wp = 6, wr = 7;
	char buf[600];

	for (size_t i = 0; i < n; i++) {
		int l = (int)strlen(rows[i].unit);

		wu = l > wu ? l : wu;
		policy_str(&rows[i], buf, sizeof(buf));
		l = (int)strlen(buf);
		wp = l > wp ? l : wp;
		l = (int)strlen(rows[i].running);
		wr = l > wr ? l : wr;
	}
	if (!c->no_legend)
		printf("%s%-*s  %-*s  %-*s  %4s  %6s  %s%s\n", ctl_color(c, ANSI_BOLD),
		       wu, "UNIT", wp, "POLICY", wr, "RUNNING", "HEAP", "FAULTS", "VERDICT",
		       ctl_color(c, ANSI_RESET));
	for (size_t i = 0; i < n; i++) {
		const struct svc_state *s = &rows[i];
		char heap[16];

		policy_str(s, buf, sizeof(buf));
		heap_str(s, heap, sizeof(heap));
		printf("%-*s  %-*s  %-*s  %4s  %6u  %s%s%s: %s\n", wu, s->unit, wp, buf, wr, s->running,
		       heap, s->faults, verdict_color(c, s->verdict), verdict_name(s->verdict),
		       ctl_color(c, ANSI_RESET), s->reason);
	}
	if (!c->no_legend) {
		unsigned prot = 0, rep = 0, not = 0;

		for (size_t i = 0; i < n; i++) {
			prot += rows[i].verdict == V_PROTECTED;
			rep += rows[i].verdict == V_REPORT_ONLY;
			not += rows[i].verdict == V_NOT_PROTECTED;
		}
		printf("\n%zu service%s listed: %u protected, %u report only, %u not protected.%s\n",
		       n, n == 1 ? "" : "s", prot, rep, not,
		       c->all ? "" : " (--all: every loaded service)");
	}
}

static void print_pid(const struct ctl *c, const struct svc_state *s, pid_t pid)
{
	struct proc_mte m;
	char buf[600], ecomm[256];

	if (mte_read_proc(c->proc, pid, &m) < 0 && !m.comm[0])
		return;
	policy_str(s, buf, sizeof(buf));
	printf("pid %d (%s)\n", (int)pid, cescape(m.comm, ecomm, sizeof(ecomm)));
	printf("unit:           %s\n", s->unit);
	printf("policy:         %s\n", buf);
	if (m.has_tcf_line)
		printf("tag checking:   %s%s\n", m.tcf,
		       m.threads_tcf_differ ? " (some threads differ)" : "");
	else
		printf("tag checking:   unknown (this kernel does not show MTE_TCF in %s/%d/status)\n",
		       c->proc, (int)pid);
	if (m.has_mask_line)
		printf("tag mask:       %s\n", m.tag_include);
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
	printf("verdict:        %s%s%s: %s\n", verdict_color(c, s->verdict), verdict_name(s->verdict),
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

int verb_status(const struct ctl *c, char **names, int nnames)
{
	struct conf_opts co = { .root = c->root, .single = c->config };
	struct policy p;
	struct svc_state *rows = NULL;
	size_t nrows = 0, cap = 0;
	int rc = CTL_EXIT_OK, r;
	bool hw = mte_supported();

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
			return CTL_EXIT_FAIL;
		}
		if (name && sd_ctl_get_unit(name, &u) < 0) {
			unit_info_free(&u);
			u.name = xstrdup(name);
		}
		svc_state_get(c, &p, name ? &u : NULL, c->pid, &s);
		if (c->json) {
			struct json w;

			json_init(&w, stdout, c->json_pretty);
			json_row(&w, &s);
			json_finish(&w);
		} else {
			pager_open(c);
			print_pid(c, &s, c->pid);
		}
		rc = s.as_asked ? CTL_EXIT_OK : CTL_EXIT_NOTICE;
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
				rc = CTL_EXIT_FAIL;
				unit_info_free(&u);
				continue;
			} else if (r < 0) {
				log_msg(LOG_ERR, NULL, "cannot ask systemd about %s: %s", names[i], strerror(-r));
				unit_info_free(&u);
				policy_free(&p);
				free(rows);
				return CTL_EXIT_FAIL;
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
			return CTL_EXIT_FAIL;
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
		/* Units the policy names exactly that systemd does not have:
		 * a typo or a package not installed. */
		for (size_t i = 0; i < p.n_entries && !c->prometheus; i++) {
			const struct policy_entry *e = &p.entries[i];
			bool seen = false;

			if (e->kind != ENTRY_EXACT)
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
			rc = rc == CTL_EXIT_OK ? CTL_EXIT_NOTICE : rc;

	if (c->prometheus) {
		if (prom_write(c, rows, nrows, hw) < 0)
			rc = CTL_EXIT_FAIL;
	} else if (c->json) {
		struct json w;

		json_init(&w, stdout, c->json_pretty);
		json_begin_array(&w);
		for (size_t i = 0; i < nrows; i++)
			json_row(&w, &rows[i]);
		json_end_array(&w);
		json_finish(&w);
	} else {
		pager_open(c);
		if (!hw)
			printf("%sThis CPU or kernel has no MTE (no HWCAP2_MTE): nothing is checked.%s\n",
			       ctl_color(c, ANSI_RED), ctl_color(c, ANSI_RESET));
		print_table(c, rows, nrows);
	}
	free(rows);
	policy_free(&p);
	sd_ctl_close();
	return rc;
}
