/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl.h -- what the verbs of mtagctl share. */
#ifndef MTAG_MTAGCTL_H
#define MTAG_MTAGCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "exitcodes.h"  /* mtagctl(8)'s exit statuses */

struct ctl {
	const char *root;        /* --root: policy files under DIR */
	const char *config;      /* --config FILE */
	const struct pkg_set *pkgs; /* status: read once (ctl_packages()) */
	const char *admindir;    /* --dpkg-admindir: dpkg's database (/var/lib/dpkg);
				  * NULL with --proc: not read (a recorded
				  * tree is another machine's) */
	const char *proc;        /* /proc (tests: a recorded tree) */
	const char *cgroup_root; /* /sys/fs/cgroup */
	const char *state_dir;   /* mtag-faultd's: /var/lib/mtag (its state file) */
	bool json, json_pretty;
	bool no_pager, no_legend;
	bool color;              /* stdout is a terminal and colour is wanted */
	bool all;                /* status: every loaded service */
	pid_t pid;               /* status -p PID */
	const char *prometheus;  /* status --prometheus[=FILE]: "-" stdout */
	const char *unit;        /* faults --unit */
	bool has_since;
	uint64_t since_usec;     /* faults --since, CLOCK_REALTIME us */
	bool has_until;
	uint64_t until_usec;     /* faults --until */
	long lines;              /* faults -n N: the last N; -1 every one */
	bool reverse;            /* faults -r: newest first */
	bool output_cat;         /* faults -o cat: each entry's message */
	const char *boot;        /* faults -b [DESCRIPTOR] ("" alone), or NULL */
	/* faults: which journals, as journalctl's -D, --file, -m; none of
	 * them: this machine's system journal. */
	const char *directory;
	const char **files;      /* NULL-terminated */
	bool merge;
	bool follow;             /* faults -f */
	bool no_core;            /* faults --no-core */
	bool strict;             /* apply-cpu-preferred --strict */
};

int verb_status(const struct ctl *c, char **units, int n);
int verb_check(const struct ctl *c);
int verb_faults(const struct ctl *c);
/* mtagctl faults and bugs: the journals as journalctl chooses them (-D,
 * --file, -m or this machine's), an error logged when they cannot be
 * opened (-errno); and the matches of mtag-faultd's fault entries (root's,
 * -u UNIT's). */
struct sd_journal;
int fault_journal_open(const struct ctl *c, struct sd_journal **j);
void fault_journal_match(const struct ctl *c, struct sd_journal *j);
/* The same for another of mtag-faultd's entries (MSGID, faultfields.h). */
void fault_journal_match_id(const struct ctl *c, struct sd_journal *j, const char *msgid);
int verb_apply_cpu_preferred(const struct ctl *c);
int verb_check_packages(const struct ctl *c);

/* The installed builds of libc6, libjemalloc2 and the kernel, as C says
 * where to read them (--dpkg-admindir, --proc): nothing (every one unknown)
 * for a recorded /proc without --dpkg-admindir. */
struct pkg_set;
void ctl_packages(const struct ctl *c, struct pkg_set *out);
/* check-packages' journal entry for SET (some of it Debian's build) into
 * LS (log_struct_begin()): MESSAGE names them, MTAG_DEBIAN_BUILDS too,
 * MTAG_LIBC6, MTAG_LIBJEMALLOC2, MTAG_KERNEL the versions known. */
struct log_struct;
void pkg_entry_build(const struct pkg_set *set, struct log_struct *ls);

/* Colour for stdout: it is a terminal (not TERM=dumb) and NO_COLOR and
 * SYSTEMD_COLORS do not say otherwise (SYSTEMD_COLORS=1 forces it). */
bool ctl_want_color(void);
/* Colour escapes, "" without colour. */
const char *ctl_color(const struct ctl *c, const char *seq);
#define ANSI_RED "\033[0;31m"
#define ANSI_GREEN "\033[0;32m"
#define ANSI_YELLOW "\033[0;33m"
#define ANSI_BOLD "\033[1m"
#define ANSI_GREY "\033[0;90m"
#define ANSI_RESET "\033[0m"

/* Start $SYSTEMD_PAGER / $PAGER / less on stdout, as systemctl does (not
 * with --no-pager, not when stdout is not a terminal); pager_close()
 * waits for it.  Secure mode as systemctl's: see pager_secure_mode(). */
void pager_open(const struct ctl *c);
/* Whether the pager runs in secure mode (LESSSECURE=1, only less), as
 * systemd decides it: $SYSTEMD_PAGERSECURE (PAGERSECURE, NULL when unset)
 * if it is a boolean; unset, when the login session's owner (OWNER, or
 * OWNER_R < 0 when sd_pid_get_owner_uid() failed: no session) is not the
 * effective uid EUID; any other value: secure, and *BAD_VALUE is set.
 * *TRUST_PAGER: $SYSTEMD_PAGER/$PAGER may be run (only when
 * $SYSTEMD_PAGERSECURE was set). */
bool pager_secure_mode(const char *pagersecure, int owner_r, uid_t owner, uid_t euid,
		       bool *trust_pager, bool *bad_value);
void pager_close(void);

#endif
