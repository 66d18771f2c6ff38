/* SPDX-License-Identifier: GPL-2.0-or-later */
/* launcher-args.c -- mtag-launcher's command line (launcher-args.h). */
#include "launcher-args.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "log.h"
#include "systemd-time.h"
#include "util.h"

/* -1, after saying why unless QUIET. */
static int say(bool quiet, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int say(bool quiet, const char *fmt, ...)
{
	va_list ap;
	char *text;

	if (quiet)
		return -1;
	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	log_msg(LOG_ERR, NULL, "%s", text);
	free(text);
	return -1;
}

enum { OPT_HEAP = 256, OPT_ROOT, OPT_REQUIRE, OPT_STRICT, OPT_ARGV0, OPT_PRINT,
       OPT_CHECK, OPT_CPU_PREFERRED, OPT_REENABLE, OPT_POLICY_ENTRY, OPT_POLICY_SOURCE,
       OPT_POLICY_ERRORS, OPT_UPGRADE_PREPARE, OPT_UPGRADE_DIR };

int launcher_args_parse(int argc, char **argv, struct launcher_opts *o, bool quiet)
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
	o->action = LAUNCHER_RUN;
	opterr = !quiet;
	optind = 0; /* GNU: start afresh (mtagctl parses more than one) */
	/* "+": stop at the first non-option, which is COMMAND. */
	while ((c = getopt_long(argc, argv, "+u:m:c:qp:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'u':
			if (!unit_name_is_valid(optarg))
				return say(quiet, "--unit %s: not a service unit name (NAME.service)", optarg);
			o->unit = optarg;
			break;
		case 'm':
			if (mode_from_string(optarg, &o->mode) < 0)
				return say(quiet, "--mode %s: expected off, async, sync, asymm or report", optarg);
			o->have_mode = true;
			break;
		case OPT_HEAP:
			if (strcmp(optarg, "on") == 0)
				o->heap = 1;
			else if (strcmp(optarg, "off") == 0)
				o->heap = 0;
			else
				return say(quiet, "--heap %s: expected on or off", optarg);
			break;
		case OPT_REENABLE: {
			const char *why = NULL;

			if (duration_parse(optarg, &o->reenable_ns, &why) == 0 &&
			    o->reenable_ns == 0)
				why = "must be more than 0";
			if (why)
				return say(quiet, "--reenable %s: %s (expected a time span such as 500ms, 10s or 1min, or infinity)",
					optarg, why);
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
			if (errno || end == optarg || *end || o->policy_errors < 0)
				return say(quiet, "--policy-errors %s: expected a count", optarg);
			break;
		}
		case 'q':
			o->quiet = true;
			break;
		case OPT_PRINT:
			o->action = LAUNCHER_PRINT;
			break;
		case OPT_CHECK:
			/* The admin verbs live in mtagctl now; no unit file
			 * runs these, so they are not kept here. */
			return say(quiet, "--check has moved: run 'mtagctl check'");
		case 'p':
			return say(quiet, "-p has moved: run 'mtagctl status -p %s'", optarg);
		case OPT_CPU_PREFERRED:
			o->action = LAUNCHER_CPU_PREFERRED;
			break;
		case OPT_UPGRADE_PREPARE:
			o->action = LAUNCHER_UPGRADE_PREPARE;
			break;
		case OPT_UPGRADE_DIR:
			o->upgrade_dir = optarg;
			break;
		case 'h':
			o->help = true;
			return 0;
		case 'V':
			o->version = true;
			return 0;
		default:
			return LAUNCHER_ARGS_UNKNOWN;
		}
	}
	if (o->have_mode && (o->unit || o->config || o->root))
		return say(quiet, "--mode takes no policy: it cannot be combined with --unit, --config or --root");
	if (o->policy_entry && (!o->unit || !o->policy_source || o->have_mode || o->config || o->root))
		return say(quiet, "--policy-entry needs --unit and --policy-source, and takes no --mode, --config or --root");
	if ((o->policy_source || o->policy_errors >= 0) && !o->policy_entry)
		return say(quiet, "--policy-source and --policy-errors go with --policy-entry");
	if (o->heap >= 0 && !o->have_mode)
		return say(quiet, "--heap is only for --mode (a policy entry says heap=on|off)");
	if (o->have_reenable && !(o->have_mode && o->mode == MTAG_MODE_REPORT))
		return say(quiet, "--reenable is only for --mode report (a policy entry says reenable=)");
	if (!o->have_reenable)
		o->reenable_ns = DURATION_INFINITY;
	if (o->have_mode && o->mode == MTAG_MODE_ASYNC && o->heap == 0)
		return say(quiet, "--mode async --heap off is not possible: glibc has no value for asynchronous checking without heap tagging");
	if (o->config && o->root)
		return say(quiet, "--config and --root cannot be combined");
	if (o->action == LAUNCHER_UPGRADE_PREPARE && !o->unit)
		return say(quiet, "--upgrade-prepare needs --unit");
	if (o->action == LAUNCHER_RUN && optind >= argc)
		return say(quiet, "no command given (see --help)");
	if (o->action != LAUNCHER_RUN && o->action != LAUNCHER_PRINT && optind < argc)
		return say(quiet, "unexpected argument '%s'", argv[optind]);
	return optind;
}
