/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-verdict.h -- the verdict of "mtagctl status" on one service,
 * decided from what svc_state_get() read about it (the policy, /proc, the
 * cgroup, systemd, the journal): no I/O here, so every verdict is tested
 * on its own (tests/mtagctl/test-verdict.c). */
#ifndef MTAG_MTAGCTL_VERDICT_H
#define MTAG_MTAGCTL_VERDICT_H

#include <stdbool.h>
#include <sys/types.h>

#include "jemallocid.h"
#include "mtagctl-status.h"

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
};

/* S's verdict, reason and as_asked, from F and S's policy, process, heap
 * and report fields (which it reads only). */
void svc_verdict(const struct svc_facts *f, struct svc_state *s);

/* USEC (CLOCK_REALTIME microseconds) as local HH:MM:SS; "?" for 0. */
void clock_hms(unsigned long long usec, char *buf, size_t len);

#endif
