/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl -- the admin's view of MTE: which services really run with tag
 * checking, every tag-check fault as a report, and a Prometheus export.
 *
 *   mtagctl [OPTIONS] [status [UNIT...] | check | faults | bugs | apply-cpu-preferred]
 *
 * See mtagctl(8).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <syslog.h>
#include <unistd.h>

#include "log.h"
#include "main-func.h"
#include "mtagctl.h"
#include "mtagctl-bugs.h"
#include "systemd-time.h"
#include "util.h"

#ifndef MTAG_VERSION
#define MTAG_VERSION "unknown"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mtagctl [OPTIONS] [VERB [ARG...]]\n"
		"\n"
		"Verbs:\n"
		"  status [UNIT...]       policy, running tag-check mode, heap tagging, faults\n"
		"                         and a verdict per service (the default verb)\n"
		"  status -p PID          the same for one process\n"
		"  status --prometheus[=FILE]\n"
		"                         write the node_exporter textfile metrics (- or no\n"
		"                         FILE: standard output)\n"
		"  check                  validate the policy files (FILE:LINE: reason)\n"
		"  faults                 every tag-check fault as a report (cause, tags, pc)\n"
		"  bugs                   the faults grouped by bug signature: hosts, units,\n"
		"                         cause, count, first and last seen, package\n"
		"  apply-cpu-preferred    write the policy's cpu-preferred mode to sysfs\n"
		"  check-packages         log whether libc6, libjemalloc2 and the kernel are\n"
		"                         mtag's builds (one journal entry; exit 0)\n"
		"\n"
		"Options:\n"
		"  -a, --all              status: every loaded service, not just those with a\n"
		"                         policy entry or tag checking on\n"
		"  -p, --pid PID          status: one process\n"
		"      --prometheus[=FILE]\n"
		"  -u, --unit UNIT        faults, bugs: only this unit's\n"
		"  -S, --since TIME       faults, bugs: only those since TIME (systemd.time(7):\n"
		"                         \"today\", \"-1h\", \"2 days ago\", \"2026-12-04 10:00\",\n"
		"                         every time mtagctl prints)\n"
		"  -U, --until TIME       faults, bugs: only those until TIME\n"
		"  -b, --boot[=ID][±N]    faults: only those of this boot, or another\n"
		"  -n, --lines[=N]        faults: only the last N (10; \"all\": every one);\n"
		"                         bugs: the first N\n"
		"  -r, --reverse          faults: newest first\n"
		"  -o, --output MODE      short, json, json-pretty or cat (faults: the\n"
		"                         entries' messages)\n"
		"  -D, --directory DIR    faults, bugs: the journal files in DIR (journal-remote)\n"
		"      --file FILE        faults, bugs: this journal file (repeatable)\n"
		"  -m, --merge            faults, bugs: every machine's journal in /var/log/journal\n"
		"  -f, --follow           faults: print new faults as they happen\n"
		"      --no-core          faults: do not read core dumps\n"
		"      --json[=pretty|short]  machine-readable output\n"
		"      --no-pager         do not pipe the output into a pager\n"
		"      --no-legend        no column headers and footers\n"
		"      --config FILE      read only FILE as the policy\n"
		"      --root DIR         read the policy files under DIR\n"
		"      --dpkg-admindir DIR\n"
		"                         status, check-packages: dpkg's database in DIR\n"
		"                         (/var/lib/dpkg)\n"
		"      --strict           apply-cpu-preferred: fail if the policy has errors\n"
		"  -h, --help             this help\n"
		"      --version          the version\n"
		"\n"
		"Exit status: 0 all well; 1 a service does not run as its policy asks\n"
		"(status), the policy has errors (check), no fault found (faults), no bug\n"
		"signature (bugs); 2 usage\n"
		"or system error.\n");
}

enum {
	OPT_JSON = 256, OPT_NO_PAGER, OPT_NO_LEGEND, OPT_CONFIG, OPT_ROOT,
	OPT_PROMETHEUS, OPT_NO_CORE, OPT_VERSION, OPT_STRICT, OPT_PROC, OPT_STATE_DIR,
	OPT_CGROUP_ROOT, OPT_FILE, OPT_ADMINDIR,
};

static int parse_pid(const char *s, pid_t *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > INT_MAX)
		return -1;
	*out = (pid_t)v;
	return 0;
}

/* --since/--until VALUE (OPT), relative to now, into *USEC. */
static int parse_time_option(const char *opt, const char *value, uint64_t *usec)
{
	const char *why = NULL;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (timestamp_parse(value, (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000,
			    usec, &why) < 0) {
		log_msg(LOG_ERR, NULL, "%s '%s': %s", opt, value, why);
		return -1;
	}
	return 0;
}

/* What journalctl's -b takes: a boot ID (32 hex digits), an offset
 * ("-1", "+2", "0"), or an ID with an offset. */
static bool is_boot_descriptor(const char *s)
{
	size_t hex = strspn(s, "0123456789abcdefABCDEF");
	const char *n = hex >= 32 ? s + 32 : s;

	if (hex >= 32 && !*n)
		return true;
	if (hex >= 32 && *n != '+' && *n != '-')
		return false;
	if (*n == '+' || *n == '-')
		n++;
	return *n && strspn(n, "0123456789") == strlen(n);
}

/* The verbs, as coredumpctl has them: a name, how many arguments, which
 * of the verb-only options it takes, and the function. */
enum {
	VOPT_STATUS = 1 << 0, /* --pid, --prometheus, --all */
	VOPT_FAULTS = 1 << 1, /* --unit, --since, --until, -b, -n, -r, -o cat,
			       * -D, --file, -m, --follow, --no-core */
};

static int run_status(const struct ctl *c, char **args, int n)
{
	if (c->pid && n > 0) {
		log_msg(LOG_ERR, NULL, "status takes units or --pid, not both");
		return EXIT_INVALIDARGUMENT;
	}
	if (c->prometheus && (c->pid || n > 0 || c->json)) {
		log_msg(LOG_ERR, NULL, "status --prometheus covers every service; no units, --pid or --json with it");
		return EXIT_INVALIDARGUMENT;
	}
	return verb_status(c, args, n);
}

static int run_check(const struct ctl *c, char **args, int n)
{
	return verb_check(c);
}

static int run_faults(const struct ctl *c, char **args, int n)
{
	if (c->follow && c->json && c->json_pretty) {
		log_msg(LOG_ERR, NULL, "faults --follow --json writes one object per line: use --json or --json=short");
		return EXIT_INVALIDARGUMENT;
	}
	if (c->follow && (c->reverse || c->has_until)) {
		log_msg(LOG_ERR, NULL, "faults --follow shows what comes: not with --reverse or --until");
		return EXIT_INVALIDARGUMENT;
	}
	if (c->has_since && c->has_until && c->since_usec > c->until_usec) {
		log_msg(LOG_ERR, NULL, "--since is after --until: no fault can be in between");
		return EXIT_INVALIDARGUMENT;
	}
	return verb_faults(c);
}

static int run_bugs(const struct ctl *c, char **args, int n)
{
	if (c->follow || c->boot || c->reverse || c->output_cat) {
		log_msg(LOG_ERR, NULL, "bugs counts every boot of every host: --follow, --boot, --reverse and -o cat go with 'faults'");
		return EXIT_INVALIDARGUMENT;
	}
	if (c->has_since && c->has_until && c->since_usec > c->until_usec) {
		log_msg(LOG_ERR, NULL, "--since is after --until: no fault can be in between");
		return EXIT_INVALIDARGUMENT;
	}
	return verb_bugs(c);
}

static int run_apply_cpu_preferred(const struct ctl *c, char **args, int n)
{
	return verb_apply_cpu_preferred(c);
}

static int run_check_packages(const struct ctl *c, char **args, int n)
{
	return verb_check_packages(c);
}

static int run_help(const struct ctl *c, char **args, int n)
{
	usage(stdout);
	return EXIT_SUCCESS;
}

#define ARGS_ANY INT_MAX
static const struct verb {
	const char *name;
	int max_args;
	unsigned opts;
	int (*run)(const struct ctl *c, char **args, int n);
} verbs[] = {
	{ "status", ARGS_ANY, VOPT_STATUS, run_status }, /* the default */
	{ "check", 0, 0, run_check },
	{ "faults", 0, VOPT_FAULTS, run_faults },
	{ "bugs", 0, VOPT_FAULTS, run_bugs },
	{ "apply-cpu-preferred", 0, 0, run_apply_cpu_preferred },
	{ "check-packages", 0, 0, run_check_packages },
	{ "help", 0, 0, run_help },  /* last: not in the list of verbs an error gives */
};

/* Run VERB with its N arguments ARGS after checking that the options
 * given (C; HAS_SINCE: --since) belong to it. */
static int dispatch(const struct ctl *c, bool has_since, const char *name, char **args, int n)
{
	const struct verb *v = NULL;

	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]) && !v; i++)
		if (strcmp(verbs[i].name, name) == 0)
			v = &verbs[i];
	if (!v) {
		char list[256] = "";

		for (size_t i = 0; i + 1 < sizeof(verbs) / sizeof(verbs[0]); i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", verbs[i].name);
		log_msg(LOG_ERR, NULL, "unknown verb '%s' (%s)", name, list);
		return EXIT_INVALIDARGUMENT;
	}
	/* Options that belong to one verb are refused with the others. */
	if (!(v->opts & VOPT_FAULTS) &&
	    (c->unit || has_since || c->has_until || c->boot || c->lines >= 0 || c->reverse ||
	     c->output_cat || c->directory || c->files || c->merge || c->follow || c->no_core)) {
		log_msg(LOG_ERR, NULL, "--unit, --since, --until, --boot, --lines, --reverse, -o cat, "
			"--directory, --file, --merge, --follow and --no-core go with 'faults', not '%s'", name);
		return EXIT_INVALIDARGUMENT;
	}
	if (!(v->opts & VOPT_STATUS) && (c->pid || c->prometheus || c->all)) {
		log_msg(LOG_ERR, NULL, "--pid, --prometheus and --all go with 'status', not '%s'", name);
		return EXIT_INVALIDARGUMENT;
	}
	if (n > v->max_args) {
		log_msg(LOG_ERR, NULL, "%s takes no arguments ('%s')", name, args[0]);
		return EXIT_INVALIDARGUMENT;
	}
	return v->run(c, args, n);
}

static int run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "pid", required_argument, NULL, 'p' },
		{ "prometheus", optional_argument, NULL, OPT_PROMETHEUS },
		{ "unit", required_argument, NULL, 'u' },
		{ "since", required_argument, NULL, 'S' },
		{ "until", required_argument, NULL, 'U' },
		{ "boot", optional_argument, NULL, 'b' },
		{ "lines", optional_argument, NULL, 'n' },
		{ "reverse", no_argument, NULL, 'r' },
		{ "output", required_argument, NULL, 'o' },
		{ "directory", required_argument, NULL, 'D' },
		{ "file", required_argument, NULL, OPT_FILE },
		{ "merge", no_argument, NULL, 'm' },
		{ "follow", no_argument, NULL, 'f' },
		{ "no-core", no_argument, NULL, OPT_NO_CORE },
		{ "json", optional_argument, NULL, OPT_JSON },
		{ "no-pager", no_argument, NULL, OPT_NO_PAGER },
		{ "no-legend", no_argument, NULL, OPT_NO_LEGEND },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "dpkg-admindir", required_argument, NULL, OPT_ADMINDIR },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		/* For the tests: recorded /proc and cgroup trees. */
		{ "proc", required_argument, NULL, OPT_PROC },
		{ "cgroup-root", required_argument, NULL, OPT_CGROUP_ROOT },
		/* And mtag-faultd's state directory (its counts). */
		{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
		{ NULL, 0, NULL, 0 },
	};
	struct ctl c = { .proc = "/proc", .cgroup_root = "/sys/fs/cgroup", .lines = -1,
			.state_dir = "/var/lib/mtag" };
	const char *since = NULL, *until = NULL, *verb, **files = NULL;
	size_t n_files = 0, files_cap = 0;
	int opt, r;

	log_setup("mtagctl", LOG_STDERR, false);
	while ((opt = getopt_long(argc, argv, "ap:u:S:U:b::n::ro:D:mfh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'U':
			until = optarg;
			break;
		case 'b':
			/* As journalctl: "-b -1" takes the next word when it
			 * is a boot descriptor. */
			c.boot = optarg ? optarg : "";
			if (!optarg && optind < argc && is_boot_descriptor(argv[optind]))
				c.boot = argv[optind++];
			break;
		case 'n': {
			const char *a = optarg;

			if (!a && optind < argc && (strcmp(argv[optind], "all") == 0 ||
						    strspn(argv[optind], "0123456789") == strlen(argv[optind])))
				a = argv[optind++];
			if (!a) {
				c.lines = 10;
			} else if (strcmp(a, "all") == 0) {
				c.lines = -1;
			} else {
				char *end;

				errno = 0;
				c.lines = strtol(a, &end, 10);
				if (errno || end == a || *end || c.lines < 0) {
					log_msg(LOG_ERR, NULL, "--lines '%s': expected a number or all", a);
					return EXIT_INVALIDARGUMENT;
				}
			}
			break;
		}
		case 'r':
			c.reverse = true;
			break;
		case 'o':
			c.json = c.json_pretty = c.output_cat = false;
			if (strcmp(optarg, "json") == 0) {
				c.json = true;
			} else if (strcmp(optarg, "json-pretty") == 0) {
				c.json = c.json_pretty = true;
			} else if (strcmp(optarg, "cat") == 0) {
				c.output_cat = true;
			} else if (strcmp(optarg, "short") != 0) {
				log_msg(LOG_ERR, NULL, "--output '%s': expected short, json, json-pretty or cat", optarg);
				return EXIT_INVALIDARGUMENT;
			}
			break;
		case 'D':
			c.directory = optarg;
			break;
		case OPT_FILE:
			grow_array((void **)&files, &files_cap, n_files + 2, sizeof(*files));
			files[n_files++] = optarg;
			files[n_files] = NULL;
			c.files = files;
			break;
		case 'm':
			c.merge = true;
			break;
		case 'a':
			c.all = true;
			break;
		case 'p':
			if (parse_pid(optarg, &c.pid) < 0) {
				log_msg(LOG_ERR, NULL, "--pid '%s': not a process ID", optarg);
				return EXIT_INVALIDARGUMENT;
			}
			break;
		case OPT_PROMETHEUS:
			c.prometheus = optarg ? optarg : "-";
			break;
		case 'u':
			c.unit = optarg;
			break;
		case 'S':
			since = optarg;
			break;
		case 'f':
			c.follow = true;
			break;
		case OPT_NO_CORE:
			c.no_core = true;
			break;
		case OPT_JSON:
			if (!optarg || strcmp(optarg, "short") == 0) {
				c.json = true;
			} else if (strcmp(optarg, "pretty") == 0) {
				c.json = c.json_pretty = true;
			} else {
				log_msg(LOG_ERR, NULL, "--json=%s: expected pretty or short", optarg);
				return EXIT_INVALIDARGUMENT;
			}
			break;
		case OPT_NO_PAGER:
			c.no_pager = true;
			break;
		case OPT_NO_LEGEND:
			c.no_legend = true;
			break;
		case OPT_CONFIG:
			c.config = optarg;
			break;
		case OPT_ROOT:
			c.root = optarg;
			break;
		case OPT_ADMINDIR:
			c.admindir = optarg;
			break;
		case OPT_STRICT:
			c.strict = true;
			break;
		case OPT_PROC:
			c.proc = optarg;
			break;
		case OPT_CGROUP_ROOT:
			c.cgroup_root = optarg;
			break;
		case OPT_STATE_DIR:
			c.state_dir = optarg;
			break;
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		case OPT_VERSION:
			printf("mtagctl %s\n", MTAG_VERSION);
			return EXIT_SUCCESS;
		default:
			fprintf(stderr, "Try 'mtagctl --help'.\n");
			return EXIT_INVALIDARGUMENT;
		}
	}
	c.color = !c.json && ctl_want_color();
	verb = optind < argc ? argv[optind++] : "status";
	if ((since && parse_time_option("--since", since, &c.since_usec) < 0) ||
	    (until && parse_time_option("--until", until, &c.until_usec) < 0)) {
		free(files);
		return EXIT_INVALIDARGUMENT;
	}
	c.has_since = since != NULL;
	c.has_until = until != NULL;
	if (!!c.directory + !!c.files + c.merge > 1) {
		log_msg(LOG_ERR, NULL, "--directory, --file and --merge choose the journals: one of them");
		free(files);
		return EXIT_INVALIDARGUMENT;
	}

	r = dispatch(&c, since != NULL, verb, argv + optind, argc - optind);
	free(files);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		pager_close();
		if (errno == EPIPE)
			return r;
		log_msg(LOG_ERR, NULL, "writing the output: %s", strerror(errno));
		return EXIT_INVALIDARGUMENT;
	}
	pager_close();
	return r;
}

DEFINE_MAIN_FUNCTION(run)
