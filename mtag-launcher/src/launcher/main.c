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

enum action { ACT_RUN, ACT_PRINT, ACT_CPU_PREFERRED, ACT_UPGRADE_PREPARE };

struct opts {
	enum action action;
	bool have_mode;
	enum mtag_mode mode;
	int heap; /* -1: not given */
	const char *unit;
	const char *config;
	const char *root;
	const char *argv0;
	bool require;
	bool strict;
	bool quiet;
	bool have_reenable;
	uint64_t reenable_ns;
	/* The entry mtag-generator resolved (as root) for this unit: */
	const char *policy_entry;   /* its options, "sync require=yes" */
	const char *policy_source;  /* FILE:LINE */
	long policy_errors;         /* errors in the policy then, -1: not given */
	const char *upgrade_dir;    /* tests: instead of /run/mtag */
};

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

enum { OPT_HEAP = 256, OPT_ROOT, OPT_REQUIRE, OPT_STRICT, OPT_ARGV0, OPT_PRINT,
       OPT_CHECK, OPT_CPU_PREFERRED, OPT_REENABLE, OPT_POLICY_ENTRY, OPT_POLICY_SOURCE,
       OPT_POLICY_ERRORS, OPT_UPGRADE_PREPARE, OPT_UPGRADE_DIR };

/* As systemd's parse_argv(): the index of COMMAND in ARGV (> 0), 0 when
 * the work is done (--help, --version), -1 on a usage error. */
static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "unit", required_argument, NULL, 'u' },
		{ "mode", required_argument, NULL, 'm' },
		{ "heap", required_argument, NULL, OPT_HEAP },
		{ "reenable", required_argument, NULL, OPT_REENABLE },
		{ "config", required_argument, NULL, 'c' },
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "require", no_argument, NULL, OPT_REQUIRE },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "argv0", required_argument, NULL, OPT_ARGV0 },
		{ "policy-entry", required_argument, NULL, OPT_POLICY_ENTRY },
		{ "policy-source", required_argument, NULL, OPT_POLICY_SOURCE },
		{ "policy-errors", required_argument, NULL, OPT_POLICY_ERRORS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "print", no_argument, NULL, OPT_PRINT },
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "pid", required_argument, NULL, 'p' },
		{ "apply-cpu-preferred", no_argument, NULL, OPT_CPU_PREFERRED },
		{ "upgrade-prepare", no_argument, NULL, OPT_UPGRADE_PREPARE },
		{ "upgrade-dir", required_argument, NULL, OPT_UPGRADE_DIR },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->heap = -1;
	o->policy_errors = -1;
	o->action = ACT_RUN;
	/* "+": stop at the first non-option, which is COMMAND. */
	while ((c = getopt_long(argc, argv, "+u:m:c:qp:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'u':
			if (!unit_name_is_valid(optarg)) {
				log_msg(LOG_ERR, NULL, "--unit %s: not a service unit name (NAME.service)", optarg);
				return -1;
			}
			o->unit = optarg;
			break;
		case 'm':
			if (mode_from_string(optarg, &o->mode) < 0) {
				log_msg(LOG_ERR, NULL, "--mode %s: expected off, async, sync, asymm or report", optarg);
				return -1;
			}
			o->have_mode = true;
			break;
		case OPT_HEAP:
			if (strcmp(optarg, "on") == 0)
				o->heap = 1;
			else if (strcmp(optarg, "off") == 0)
				o->heap = 0;
			else {
				log_msg(LOG_ERR, NULL, "--heap %s: expected on or off", optarg);
				return -1;
			}
			break;
		case OPT_REENABLE: {
			const char *why = NULL;

			if (duration_parse(optarg, &o->reenable_ns, &why) == 0 &&
			    o->reenable_ns == 0)
				why = "must be more than 0";
			if (why) {
				log_msg(LOG_ERR, NULL, "--reenable %s: %s (expected a time span such as 500ms, 10s or 1min, or infinity)",
					optarg, why);
				return -1;
			}
			o->have_reenable = true;
			break;
		}
		case 'c':
			o->config = optarg;
			break;
		case OPT_ROOT:
			o->root = optarg;
			break;
		case OPT_REQUIRE:
			o->require = true;
			break;
		case OPT_STRICT:
			o->strict = true;
			break;
		case OPT_ARGV0:
			o->argv0 = optarg;
			break;
		case OPT_POLICY_ENTRY:
			o->policy_entry = optarg;
			break;
		case OPT_POLICY_SOURCE:
			o->policy_source = optarg;
			break;
		case OPT_POLICY_ERRORS: {
			char *end;

			errno = 0;
			o->policy_errors = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || o->policy_errors < 0) {
				log_msg(LOG_ERR, NULL, "--policy-errors %s: expected a count", optarg);
				return -1;
			}
			break;
		}
		case 'q':
			o->quiet = true;
			break;
		case OPT_PRINT:
			o->action = ACT_PRINT;
			break;
		case OPT_CHECK:
			/* The admin verbs live in mtagctl now; no unit file
			 * runs these, so they are not kept here. */
			log_msg(LOG_ERR, NULL, "--check has moved: run 'mtagctl check'");
			return -1;
		case 'p':
			log_msg(LOG_ERR, NULL, "-p has moved: run 'mtagctl status -p %s'", optarg);
			return -1;
		case OPT_CPU_PREFERRED:
			o->action = ACT_CPU_PREFERRED;
			break;
		case OPT_UPGRADE_PREPARE:
			o->action = ACT_UPGRADE_PREPARE;
			break;
		case OPT_UPGRADE_DIR:
			o->upgrade_dir = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("mtag-launcher %s\n", MTAG_VERSION);
			return 0;
		default:
			usage(stderr);
			return -1;
		}
	}
	if (o->have_mode && (o->unit || o->config || o->root)) {
		log_msg(LOG_ERR, NULL, "--mode takes no policy: it cannot be combined with --unit, --config or --root");
		return -1;
	}
	if (o->policy_entry && (!o->unit || !o->policy_source || o->have_mode || o->config || o->root)) {
		log_msg(LOG_ERR, NULL, "--policy-entry needs --unit and --policy-source, and takes no --mode, --config or --root");
		return -1;
	}
	if ((o->policy_source || o->policy_errors >= 0) && !o->policy_entry) {
		log_msg(LOG_ERR, NULL, "--policy-source and --policy-errors go with --policy-entry");
		return -1;
	}
	if (o->heap >= 0 && !o->have_mode) {
		log_msg(LOG_ERR, NULL, "--heap is only for --mode (a policy entry says heap=on|off)");
		return -1;
	}
	if (o->have_reenable && !(o->have_mode && o->mode == MTAG_MODE_REPORT)) {
		log_msg(LOG_ERR, NULL, "--reenable is only for --mode report (a policy entry says reenable=)");
		return -1;
	}
	if (!o->have_reenable)
		o->reenable_ns = DURATION_INFINITY;
	if (o->have_mode && o->mode == MTAG_MODE_ASYNC && o->heap == 0) {
		log_msg(LOG_ERR, NULL, "--mode async --heap off is not possible: glibc has no value for asynchronous checking without heap tagging");
		return -1;
	}
	if (o->config && o->root) {
		log_msg(LOG_ERR, NULL, "--config and --root cannot be combined");
		return -1;
	}
	if (o->action == ACT_UPGRADE_PREPARE && !o->unit) {
		log_msg(LOG_ERR, NULL, "--upgrade-prepare needs --unit");
		return -1;
	}
	if (o->action == ACT_RUN && optind >= argc) {
		log_msg(LOG_ERR, NULL, "no command given (see --help)");
		return -1;
	}
	if (o->action != ACT_RUN && o->action != ACT_PRINT && optind < argc) {
		log_msg(LOG_ERR, NULL, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return optind;
}

static void load_policy(struct policy *p, const struct opts *o, bool report)
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
static void apply_upgrade(const struct opts *o, const char *unit, uint64_t window_ns)
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
static int resolve_policy(const struct opts *o, struct policy *p, struct run *r)
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
static void resolve_modes(struct run *r, const struct opts *o)
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
static int set_up_kernel(struct run *r, const struct opts *o)
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
	struct opts o;
	struct policy p;
	struct run r = { 0 };
	char *command;
	int first, rc;

	log_setup("mtag-launcher", LOG_AUTO, false);
	first = parse_args(argc, argv, &o);
	if (first <= 0)
		return first < 0 ? EXIT_CANCELED : EXIT_SUCCESS;
	log_setup("mtag-launcher", o.action == ACT_RUN || o.action == ACT_UPGRADE_PREPARE ? LOG_AUTO : LOG_STDERR,
		  o.quiet);

	switch (o.action) {
	case ACT_CPU_PREFERRED: {
		struct conf_opts co = { .root = o.root, .single = o.config };

		return admin_apply_cpu_preferred(&co, o.strict);
	}
	case ACT_UPGRADE_PREPARE:
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
	if (o.action == ACT_PRINT) {
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
