/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-verdict.h -- the verdict of "mtagctl status" on one service,
 * decided from what svc_state_get() read about it (the policy, /proc, the
 * cgroup, systemd, the journal): no I/O here, so every verdict is tested
 * on its own (mtag-launcher/src/mtagctl/test-verdict.c). */
#ifndef MTAG_MTAGCTL_VERDICT_H
#define MTAG_MTAGCTL_VERDICT_H

#include <stdbool.h>
#include <sys/types.h>

#include "jemallocid.h"
#include "packages.h"
#include "policy.h"

/* The state of one service, as "status" shows it. */
enum verdict {
	V_PROTECTED,
	V_REPORT_ONLY,
	V_NOT_PROTECTED,
	V_INACTIVE,       /* not running; the policy applies at its next start */
};

struct svc_state {
	char unit[256];
	char active[32];
	/* The policy now. */
	bool has_policy;          /* an entry (or "default") applies */
	bool named;               /* an entry names it (not just "default") */
	enum mtag_mode mode;
	bool heap;
	char source[512];         /* FILE:LINE */
	/* What runs. */
	unsigned procs, threads;
	char running[96];         /* sync | async | none | mixed (...) | unknown */
	bool running_known;       /* the kernel shows MTE_TCF */
	unsigned report_on_procs;
	/* Where the processes' modes came from (proc_mode_origin()). */
	unsigned origin_env, origin_kernel;
	unsigned threads_suspended;
	/* An upgraded start (upgrade=): processes under the kernel's timed
	 * upgrade, its deadline (CLOCK_REALTIME us) and the async fault's
	 * time (from the grant in /run/mtag/upgrade-grant), 0: unknown. */
	unsigned upgraded_procs;
	unsigned upgrades;        /* upgraded starts this boot (journal) */
	unsigned long long upgrade_until_usec, upgrade_fault_usec;
	unsigned long long anon_kb, mt_anon_kb;
	unsigned long long malloc_kb, mt_malloc_kb; /* malloc-able (smaps.h): the verdict's */
	/* Faults of this boot (mtag-faultd's entries), by cause. */
	unsigned faults, by_cause[5];
	enum verdict verdict;
	char reason[2048];
	bool as_asked;            /* false: a policy asks for MTE and this is not it */
	bool libc_ignores_execdef; /* a process runs unchecked: its libc does not read the exec default */
	/* Protection a Debian update took away (issue 36): the package whose
	 * Debian build is the reason ("libc6", "libjemalloc2", "kernel"; ""
	 * none) and its version. */
	char lost[16];
	char lost_version[128];
};

const char *verdict_name(enum verdict v);

/* What was read besides the fields of struct svc_state. */
struct svc_facts {
	bool hw;                   /* MTE in this CPU and kernel */
	bool by_pid;               /* status -p PID */
	bool has_unit;             /* a unit name (systemd's state of it) */
	bool wrapped;              /* systemd loaded mtag-generator's drop-in */
	const char *unwrapped_by;  /* NULL, or the drop-ins after it that set
				    * ExecStart= ("": unknown) */
	bool started;              /* the unit has an invocation ID */
	bool launcher_entry;       /* mtag-launcher logged this start: */
	const char *le_mode, *le_heap, *le_source; /* its mode, heap, source */
	bool dropin_stale;         /* the loaded drop-in runs other options */
	const char *dropin_runs;   /* ... these */
	const char *policy_now;    /* ... and the policy says these */
	pid_t odd_pid;             /* a process or thread in another mode: */
	bool odd_libc;             /* its libc ignores the kernel's exec default */
	const char *odd_comm, *odd_tcf, *odd_execdef;
	enum jemalloc_kind jemalloc;
	const char *jemalloc_path;
	/* A process whose MTE_TagInclude lets IRG pick fewer than two
	 * non-zero tags (tag_include_nonzero()), the first of them. */
	pid_t narrow_pid;
	int narrow_tags;
	const char *narrow_comm, *narrow_mask;
	/* Mode report: processes that run another mode after a secure exec
	 * (set-user-ID, set-group-ID, file capabilities, or AT_SECURE): the
	 * kernel drops report mode for them (and, with issue 32's kernel,
	 * the exec default).  How many, how many of them check (they stop
	 * at a fault), how many have report mode off, which ("PID (comm,
	 * PATH: set-group-ID) runs none", the first few). */
	unsigned secure_procs, secure_checking, secure_report_off;
	const char *secure_desc;
	/* The installed builds of libc6, libjemalloc2 and the kernel (NULL:
	 * not read); only Debian's builds change a verdict. */
	const struct pkg_set *pkgs;
};

/* S's verdict, reason and as_asked, from F and S's policy, process, heap
 * and report fields (which it reads only). */
void svc_verdict(const struct svc_facts *f, struct svc_state *s);

/* USEC (CLOCK_REALTIME microseconds) as local HH:MM:SS; "?" for 0. */
void clock_hms(unsigned long long usec, char *buf, size_t len);

#endif
