/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtag-launcher -- run a command with the MTE policy of its systemd unit.
 *
 *   mtag-launcher [OPTIONS] [--] COMMAND [ARG...]
 *
 * Looks up the policy (mtag-policy.conf(5)) for the unit it runs in, sets
 * GLIBC_TUNABLES so that glibc enables tag checking and heap tagging at
 * start-up, logs what it did, and execs COMMAND.  See mtag-launcher(8).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "admin.h"
#include "applied.h"
#include "conffiles.h"
#include "systemd-time.h"
#include "exec.h"
#include "execdef.h"
#include "launcher-args.h"
#include "exitcodes.h"
#include "log.h"
#include "main-func.h"
#include "mte.h"
#include "policy.h"
#include "report.h"
#include "sdlib.h"
#include "tunables.h"
#include "upgrade.h"
#include "util.h"

#ifndef MTAG_VERSION
#define MTAG_VERSION "unknown"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mtag-launcher [OPTIONS] [--] COMMAND [ARG...]\n"
		"       mtag-launcher --print [OPTIONS]\n"
		"       mtag-launcher --apply-cpu-preferred [--strict]\n"
		"\n"
		"Run COMMAND with the Memory Tagging Extension policy of its systemd unit.\n"
		"\n"
		"  -u, --unit NAME        use the policy of unit NAME (default: the unit\n"
		"                         this process runs in)\n"
		"  -m, --mode MODE        use MODE (off, async, sync, asymm, report); no\n"
		"                         policy lookup\n"
		"      --heap on|off      with --mode: tag malloc memory (default on)\n"
		"      --reenable TIME    with --mode report: turn checks back on in a thread\n"
		"                         after TIME of its CPU time (default infinity)\n"
		"  -c, --config FILE      read only FILE instead of the installed policy\n"
		"      --root DIR         read the installed policy files under DIR\n"
		"      --require          refuse to run (exit 78) without MTE\n"
		"      --strict           refuse to run (exit 78) if the policy has errors\n"
		"      --argv0 NAME       run COMMAND with NAME as its argv[0]\n"
		"      --policy-entry OPTIONS --policy-source FILE:LINE [--policy-errors N]\n"
		"                         with --unit: use this entry, which mtag-generator\n"
		"                         resolved from the policy; read no policy file\n"
		"  -q, --quiet            no informational message on stderr\n"
		"      --print            show the resolved policy and environment, run nothing\n"
		"      --apply-cpu-preferred\n"
		"                         write the policy's cpu-preferred mode to every CPU\n"
		"      --upgrade-prepare --unit NAME\n"
		"                         (ExecStartPre=+, added by mtag-generator) after an\n"
		"                         async fault of NAME, let this start run in sync for\n"
		"                         the policy's upgrade= window\n"
		"  -h, --help             show this help\n"
		"  -V, --version          show the version\n"
		"\n"
		"Checking the policy and showing what runs: mtagctl check, mtagctl status\n"
		"[-p PID].  See mtag-launcher(8), mtag-policy.conf(5) and mtagctl(8).\n");
}

static void load_policy(struct policy *p, const struct launcher_opts *o, bool report)
{
	struct conf_opts co = { .root = o->root, .single = o->config };

	policy_init(p);
	conf_load(p, &co);
	if (report)
		for (size_t i = 0; i < p->n_diags; i++)
			log_diag(&p->diags[i]);
}

static char *join_argv(char **argv)
{
	size_t len = 1;
	char *s, *q;

	for (char **a = argv; *a; a++)
		len += strlen(*a) + 1;
	s = q = xmalloc(len);
	for (char **a = argv; *a; a++)
		q += sprintf(q, "%s%s", a == argv ? "" : " ", *a);
	*q = '\0';
	return s;
}

static void warn_asymm(const char *who)
{
	struct cpu_pref_count c;
	unsigned n = mte_cpu_preferred(SYSFS_CPU_DIR, &c);

	if (n == 0)
		log_msg(LOG_WARNING, NULL,
			"%s asks for asymm, but this kernel has no %s/cpu*/mte_tcf_preferred: it checks in async mode",
			who, SYSFS_CPU_DIR);
	else if (c.asymm != n)
		log_msg(LOG_WARNING, NULL,
			"%s asks for asymm, but %u of %u CPUs prefer another mode (sync %u, async %u): the kernel uses those there; add 'cpu-preferred asymm' to the policy",
			who, n - c.asymm, n, c.sync, c.async);
}

/* What the policy asks for, this machine cannot give.  With REQUIRE
 * (require=yes): "REFUSED: not starting PROG" as an error, true.  Else
 * "WARNED: running PROG HOW" as a warning, false.  Frees both texts. */
static bool refuse_or_warn(bool require, char *refused, char *warned, const char *prog,
			   const char *how)
{
	if (require)
		log_msg(LOG_ERR, MSGID_NO_MTE, "%s: not starting %s", refused, prog);
	else
		log_msg(LOG_WARNING, MSGID_NO_MTE, "%s: running %s %s", warned, prog, how);
	free(refused);
	free(warned);
	return require;
}

/*
 * An upgraded start: --upgrade-prepare (root, ExecStartPre=+) granted this
 * start, by its $INVOCATION_ID, a window in sync after an async fault of
 * the unit.  The kernel's timed upgrade (patch 0008) makes the whole
 * process tree check synchronously until then and asynchronously after,
 * without a restart; glibc still asks for async.
 */
static void apply_upgrade(const struct launcher_opts *o, const char *unit, uint64_t window_ns)
{
	const char *inv = getenv("INVOCATION_ID");
	struct upgrade_rec g;
	uint64_t until_boot, until_usec;
	char span[64], when[64], until_s[64], fault_usec[32];
	int r = upgrade_grant_for(o->upgrade_dir, unit, inv, &g);

	if (r == 0)
		return;
	if (r < 0) {
		log_msg(LOG_WARNING, MSGID_UPGRADE_REFUSED,
			"%s: cannot use the upgrade grant in %s/upgrade-grant: %s: running in async",
			unit, o->upgrade_dir ? o->upgrade_dir : UPGRADE_BASE_DIR, strerror(-r));
		return;
	}
	until_boot = upgrade_boottime_ns() + window_ns;
	until_usec = upgrade_realtime_usec() + window_ns / 1000;
	r = upgrade_set_kernel(until_boot);
	duration_format(window_ns, span, sizeof(span));
	if (r < 0) {
		switch (upgrade_kernel_classify(r, upgrade_get_kernel())) {
		case UPGRADE_KERR_ABSENT:
			log_msg(LOG_WARNING, MSGID_UPGRADE_REFUSED,
				"%s: an upgraded start after the async fault was granted, but this kernel has no timed upgrade (PR_SET_MTE_UPGRADE: %s): running in async",
				unit, strerror(-r));
			break;
		case UPGRADE_KERR_REFUSED:
			log_msg(LOG_WARNING, MSGID_UPGRADE_REFUSED,
				"%s: an upgraded start after the async fault was granted, but the kernel refused its deadline, CLOCK_BOOTTIME %llu ns (upgrade=%s; PR_SET_MTE_UPGRADE: %s): running in async",
				unit, (unsigned long long)until_boot, span, strerror(-r));
			break;
		case UPGRADE_KERR_OTHER:
			log_msg(LOG_WARNING, MSGID_UPGRADE_REFUSED,
				"%s: an upgraded start after the async fault was granted, but PR_SET_MTE_UPGRADE failed: %s (a system call filter?): running in async",
				unit, strerror(-r));
			break;
		}
		return;
	}
	timestamp_format_local(g.fault_usec, "%H:%M:%S", "(unknown time)", when, sizeof(when));
	timestamp_format_local(until_usec, "%H:%M:%S", "?", until_s, sizeof(until_s));
	snprintf(fault_usec, sizeof(fault_usec), "%llu", (unsigned long long)g.fault_usec);
	if (log_to_journal()) {
		struct log_struct ls = { 0 };

		log_struct_begin(&ls, LOG_NOTICE, MSGID_UPGRADED,
				 "%s: upgraded to sync until %s (upgrade=%s) after the async fault at %s%s%s",
				 unit, until_s, span, when, g.fault_comm[0] ? " in " : "", g.fault_comm);
		log_struct_add(&ls, "MTAG_UNIT", "%s", unit);
		log_struct_add(&ls, "MTAG_MODE", "sync");
		log_struct_add(&ls, "MTAG_UPGRADED_FROM", "async");
		log_struct_add(&ls, "MTAG_UPGRADE_NSEC", "%llu", (unsigned long long)window_ns);
		log_struct_add(&ls, "MTAG_UPGRADE_UNTIL_USEC", "%llu", (unsigned long long)until_usec);
		log_struct_add(&ls, "MTAG_UPGRADE_UNTIL_BOOTTIME_NSEC", "%llu", (unsigned long long)until_boot);
		log_struct_add(&ls, "MTAG_UPGRADE_FAULT_USEC", "%s", fault_usec);
		log_struct_add(&ls, "MTAG_UPGRADE_FAULT_CURSOR", "%s", g.fault_cursor);
		log_struct(&ls);
		log_struct_free(&ls);
	} else {
		log_msg(LOG_NOTICE, MSGID_UPGRADED,
			"%s: upgraded to sync until %s (upgrade=%s) after the async fault at %s",
			unit, until_s, span, when);
	}
}

/* What this start runs with: the policy entry resolved for the unit,
 * then what the kernel offers. */
struct run {
	const char *unit;                 /* NULL: not in a unit, no --unit */
	char *own_unit;                   /* the unit systemd says we run in */
	const struct policy_entry *e;     /* NULL: --mode, or no entry */
	char *source;                     /* "FILE:LINE", "--mode", "built-in" */
	const char *prog;                 /* the command, for messages */
	enum mtag_mode mode;
	bool heap, require, hw, report_ok;
	uint64_t reenable;                /* report mode's reenable= */
	long report_flags;                /* report_get(): flags or -errno */
	unsigned value;                   /* the glibc tunable */
	char execdef_buf[64];
	const char *exec_default;         /* NULL: not set (unsupported) */
};

static const char *run_unit(const struct run *r)
{
	return r->unit ? r->unit : "-";
}

/* The entry: from --mode, from --policy-entry (what mtag-generator
 * resolved as root), or from the policy files.  0, or the exit status. */
static int resolve_policy(const struct launcher_opts *o, struct policy *p, struct run *r)
{
	const struct policy_entry *e;

	r->unit = o->unit;
	r->mode = MTAG_MODE_OFF;
	r->heap = true;
	r->reenable = DURATION_INFINITY;
	if (o->have_mode) {
		r->mode = o->mode;
		r->heap = o->heap != 0;
		r->reenable = o->reenable_ns;
		r->source = xstrdup("--mode");
		return 0;
	}
	if (o->policy_entry) {
		/* mtag-generator read the policy as root at the last
		 * daemon-reload and passed the entry: this process, which may
		 * run as the service's user in its sandbox, reads no policy
		 * file, so none it cannot read can weaken the policy. */
		char *line = xasprintf("%s %s\n", o->unit, o->policy_entry);
		bool refuse;

		policy_parse(p, "--policy-entry", line, strlen(line));
		free(line);
		e = policy_error_count(p) ? NULL : policy_lookup(p, r->unit);
		if (!e) {
			log_msg(LOG_ERR, NULL, "--policy-entry '%s': not a valid policy entry (%s)",
				o->policy_entry, p->n_diags ? p->diags[0].msg : "no entry");
			return EXIT_CANCELED;
		}
		r->e = e;
		r->mode = e->mode;
		r->heap = e->heap;
		r->reenable = e->reenable_ns;
		r->source = xstrdup(o->policy_source);
		if (o->policy_errors <= 0)
			return 0;
		refuse = o->strict || e->strict;
		log_msg(refuse ? LOG_ERR : LOG_WARNING, MSGID_CONFIG,
			"the policy had %ld error%s at the last daemon-reload (mtagctl check shows them)%s%s",
			o->policy_errors, o->policy_errors == 1 ? "" : "s",
			refuse ? " and strict behaviour was asked for: not starting " : "",
			refuse ? r->prog : "");
		return refuse ? EXIT_CONFIG : 0;
	}
	load_policy(p, o, true);
	if (!r->unit && sdlib() && sdlib()->pid_get_unit(0, &r->own_unit) >= 0)
		r->unit = r->own_unit;
	if (!r->unit)
		log_msg(LOG_WARNING, NULL,
			"not running in a systemd unit and no --unit given: using the 'default' entry");
	e = r->e = policy_lookup(p, r->unit);
	if (e) {
		r->mode = e->mode;
		r->heap = e->heap;
		r->reenable = e->reenable_ns;
		r->source = xasprintf("%s:%u", e->file, e->line);
	} else {
		r->source = xstrdup("built-in");
	}
	if ((o->strict || (e && e->strict)) && policy_error_count(p)) {
		log_msg(LOG_ERR, MSGID_CONFIG,
			"%zu error%s in the policy and strict behaviour was asked for (%s): not starting %s",
			policy_error_count(p), policy_error_count(p) == 1 ? "" : "s",
			o->strict ? "--strict" : r->source, r->prog);
		return EXIT_CONFIG;
	}
	return 0;
}

/* The tunable's value and what the kernel offers for the mode. */
static void resolve_modes(struct run *r, const struct launcher_opts *o)
{
	r->require = o->require || (r->e && r->e->require);
	r->value = mode_tunable_value(r->mode, r->heap);
	r->hw = mte_supported();
	r->report_flags = r->hw ? report_get() : -EINVAL;
	if (r->mode == MTAG_MODE_REPORT) {
		r->report_ok = r->report_flags >= 0;
		/* Never sync (the first fault would stop the service) nor a
		 * silent off: checking off, and say so. */
		if (!r->report_ok)
			r->value = 0;
	} else {
		r->reenable = DURATION_INFINITY;
	}
}

/* --print: what a start would do, and stop. */
static void print_run(struct run *r)
{
	char *tun = tunables_merge(getenv("GLIBC_TUNABLES"), r->value);
	long cur = r->hw ? execdef_get() : -EINVAL;
	char span[64];

	printf("unit: %s\n", run_unit(r));
	printf("policy: %s", r->source);
	if (r->e)
		printf(" (%s)", r->e->pattern);
	printf("\nmode: %s\nheap: %s\nrequire: %s\nmte: %s\n",
	       mode_name(r->mode), r->heap ? "on" : "off", r->require ? "yes" : "no",
	       r->hw ? "supported" : "not supported");
	printf("report mode: %s\n", r->report_flags >= 0 ? "supported" :
	       r->hw ? "not supported (this kernel has no PR_GET_MTE_REPORT)" :
		       "not supported (no MTE)");
	if (r->mode == MTAG_MODE_REPORT)
		printf("reenable: %s\n", duration_format(r->reenable, span, sizeof(span)));
	if (r->mode == MTAG_MODE_ASYNC) {
		if (r->e && r->e->upgrade_ns)
			printf("upgrade: %s in sync after an async fault (once per boot)\n",
			       duration_format(r->e->upgrade_ns, span, sizeof(span)));
		else
			printf("upgrade: no\n");
	}
	printf("tunable: %u\n", r->value);
	if (cur >= 0)
		printf("exec default: %s (kernel, kept across exec)\n",
		       execdef_str(execdef_from_tunable(r->value), r->execdef_buf,
				   sizeof(r->execdef_buf)));
	else
		printf("exec default: not supported (%s)\n",
		       r->hw ? "this kernel has no PR_SET_MTE_EXEC_DEFAULT" : "no MTE");
	printf("GLIBC_TUNABLES=%s\n%s=%u\n", tun, ENV_ALIAS, r->value);
	free(tun);
	if (!r->heap) {
		char *mc = malloc_conf_heap_off(getenv("MALLOC_CONF"));

		printf("MALLOC_CONF=%s\n", mc);
		free(mc);
	}
}

/* Report-only mode: on for "report" (where the kernel has it), off where
 * it was inherited and the policy says another mode.  0, or the exit
 * status. */
static int set_report_mode(struct run *r)
{
	int e;

	if (r->mode == MTAG_MODE_REPORT && r->hw && r->report_ok) {
		e = report_enable(r->reenable);
		if (e < 0) {
			r->report_ok = false;
			r->value = 0;
			r->report_flags = e;
		}
	} else if (r->report_flags > 0 && (r->report_flags & PR_MTE_REPORT_ON)) {
		/* Inherited from whoever started us: the policy says another
		 * mode, so do not pass report-only mode on. */
		e = report_disable();
		if (e < 0) {
			log_msg(LOG_ERR, NULL, "%s: cannot turn off the report-only mode this process inherited: %s: not starting %s",
				run_unit(r), strerror(-e), r->prog);
			return EXIT_CANCELED;
		}
	}
	if (r->mode == MTAG_MODE_REPORT && r->hw && !r->report_ok &&
	    refuse_or_warn(r->require,
			   xasprintf("%s: mode report (%s) needs the report-only mode of the mtag kernel, which this kernel does not offer (%s), and require=yes",
				     r->unit ? r->unit : "the policy", r->source, strerror(-(int)r->report_flags)),
			   xasprintf("%s: mode report (%s) needs the report-only mode of the mtag kernel, which this kernel does not offer (%s)",
				     run_unit(r), r->source, strerror(-(int)r->report_flags)),
			   r->prog, "with tag checking off (not sync, which would stop it at the first fault)"))
		return EXIT_CONFIG;
	return 0;
}

/* Everything in the kernel before the exec: refuse or warn without MTE,
 * report mode, the exec default, an upgraded start.  0, or the exit
 * status. */
static int set_up_kernel(struct run *r, const struct launcher_opts *o)
{
	int e;

	if (r->mode != MTAG_MODE_OFF && !r->hw &&
	    refuse_or_warn(r->require,
			   xasprintf("%s requires MTE (%s) but this CPU or kernel does not offer it (no HWCAP2_MTE)",
				     r->unit ? r->unit : "the policy", r->source),
			   xasprintf("%s: MTE %s requested (%s) but this CPU or kernel does not offer it (no HWCAP2_MTE)",
				     run_unit(r), mode_name(r->mode), r->source),
			   r->prog, "without tag checking"))
		return EXIT_CONFIG;
	if (r->mode == MTAG_MODE_ASYMM && r->hw)
		warn_asymm(r->unit ? r->unit : "the policy");
	e = set_report_mode(r);
	if (e)
		return e;
	/* The same request through the kernel, which keeps it across every
	 * exec of the process tree (a supervisor that cleans the environment,
	 * a set-user-ID helper); the mtag glibc applies it when no tunable is
	 * set.  Set for every mode, off included, so that nothing inherited
	 * from whoever started us reaches the service. */
	if (r->hw) {
		e = execdef_set(execdef_from_tunable(r->value));
		if (e == 0)
			r->exec_default = execdef_str(execdef_from_tunable(r->value), r->execdef_buf,
						      sizeof(r->execdef_buf));
		else if (e != -EINVAL)
			log_msg(LOG_WARNING, NULL, "%s: cannot set the kernel's MTE exec default: %s; the service gets the mode through GLIBC_TUNABLES only",
				run_unit(r), strerror(-e));
	}
	if (r->mode == MTAG_MODE_ASYNC && r->hw && r->e && r->e->upgrade_ns && r->unit)
		apply_upgrade(o, r->unit, r->e->upgrade_ns);
	return 0;
}

static int run(int argc, char **argv)
{
	struct launcher_opts o;
	struct policy p;
	struct run r = { 0 };
	char *command;
	int first, rc;

	log_setup("mtag-launcher", LOG_AUTO, false);
	first = launcher_args_parse(argc, argv, &o, false);
	if (first == LAUNCHER_ARGS_UNKNOWN)
		usage(stderr);
	if (first < 0)
		return EXIT_CANCELED;
	if (o.help)
		usage(stdout);
	else if (o.version)
		printf("mtag-launcher %s\n", MTAG_VERSION);
	if (first == 0)
		return EXIT_SUCCESS;
	log_setup("mtag-launcher", o.action == LAUNCHER_RUN || o.action == LAUNCHER_UPGRADE_PREPARE ? LOG_AUTO : LOG_STDERR,
		  o.quiet);

	switch (o.action) {
	case LAUNCHER_CPU_PREFERRED: {
		struct conf_opts co = { .root = o.root, .single = o.config };

		return admin_apply_cpu_preferred(&co, o.strict);
	}
	case LAUNCHER_UPGRADE_PREPARE:
		return upgrade_prepare(o.upgrade_dir, o.unit, getenv("INVOCATION_ID"));
	default:
		break;
	}

	policy_init(&p);
	r.prog = first < argc ? argv[first] : "anything";
	rc = resolve_policy(&o, &p, &r);
	if (rc)
		goto out;
	resolve_modes(&r, &o);
	if (o.action == LAUNCHER_PRINT) {
		print_run(&r);
		goto out;
	}
	rc = set_up_kernel(&r, &o);
	if (rc)
		goto out;
	if (tunables_apply(r.value) < 0) {
		log_msg(LOG_ERR, NULL, "cannot set GLIBC_TUNABLES: %s", strerror(errno));
		rc = EXIT_CANCELED;
		goto out;
	}
	/* heap=off for jemalloc too, which tags on its own when checking is
	 * on (patches/jemalloc): glibc's tunable does not reach it. */
	if (malloc_conf_apply(r.heap) < 0) {
		log_msg(LOG_ERR, NULL, "cannot set MALLOC_CONF: %s", strerror(errno));
		rc = EXIT_CANCELED;
		goto out;
	}
	command = join_argv(argv + first);
	log_applied(&(struct applied){ .unit = r.unit, .mode = r.mode, .heap = r.heap,
				       .tunable = r.value, .hw_mte = r.hw,
				       .source = r.source, .command = command,
				       .report_on = r.report_ok, .reenable_ns = r.reenable,
				       .exec_default = r.exec_default });
	free(command);
	free(r.source);
	free(r.own_unit);
	policy_free(&p);
	return exec_command(argv + first, o.argv0);
out:
	free(r.source);
	free(r.own_unit);
	policy_free(&p);
	return rc;
}

DEFINE_MAIN_FUNCTION(run)
