/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-status.h -- the state of one service, as "status" shows it. */
#ifndef MTAG_MTAGCTL_STATUS_H
#define MTAG_MTAGCTL_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "mtagctl.h"
#include "policy.h"

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
};

/* The state of a service unit (loaded or not), or of the unit PID runs
 * in (PID != 0; UNIT may then be NULL). */
struct unit_info;
void svc_state_get(const struct ctl *c, const struct policy *p, const struct unit_info *u,
		   pid_t pid, struct svc_state *s);

const char *verdict_name(enum verdict v);

/* What status --prometheus says of the host (read by mtagctl-status.c). */
struct prom_host {
	bool hw_mte;              /* HWCAP2_MTE */
	bool kernel_execdef;      /* MTE_ExecDefault: an mtag kernel (patch 0006) */
	bool faultd_up;           /* mtag-faultd.service is active */
};

/* status --prometheus: every service in ROWS, the counters of
 * mtag-faultd's state file in C->state_dir (no I/O but that file). */
struct prom;
void prom_metrics(struct prom *p, const struct ctl *c, const struct svc_state *rows, size_t n,
		  const struct prom_host *h);
int prom_write(const struct ctl *c, const struct svc_state *rows, size_t n, const struct prom_host *h);

#endif
