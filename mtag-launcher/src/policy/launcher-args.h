/* SPDX-License-Identifier: GPL-2.0-or-later */
/* launcher-args.h -- mtag-launcher's command line, in one place: what
 * mtag-generator writes into its drop-in, what mtag-launcher parses, and
 * what mtagctl reads back from the drop-in (with this same parser, not a
 * second reader). */
#ifndef MTAG_LAUNCHER_ARGS_H
#define MTAG_LAUNCHER_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "policy.h"

/* The generator's drop-in, NORMAL-DIR/UNIT.d/LAUNCHER_DROPIN_NAME: "zz" to
 * sort after the drop-ins a package ships (mtag-generator(8)). */
#define LAUNCHER_DROPIN_NAME "zz-mtag-launcher.conf"

enum launcher_action {
	LAUNCHER_RUN,
	LAUNCHER_PRINT,
	LAUNCHER_CPU_PREFERRED,
	LAUNCHER_UPGRADE_PREPARE,
};

struct launcher_opts {
	enum launcher_action action;
	bool help, version;         /* --help, --version: nothing else done */
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

/* An option getopt_long() does not know (it said so, unless QUIET). */
#define LAUNCHER_ARGS_UNKNOWN (-2)

/* Parse mtag-launcher's ARGV into *O, as systemd's parse_argv(): the
 * index of COMMAND in ARGV (> 0), 0 for --help or --version (O says
 * which), -1 on a bad option (said with log_msg() unless QUIET) or
 * LAUNCHER_ARGS_UNKNOWN.  Options stop at the first non-option. */
int launcher_args_parse(int argc, char **argv, struct launcher_opts *o, bool quiet);

#endif
