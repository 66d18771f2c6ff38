/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mte.h -- what the CPU and kernel say about MTE. */
#ifndef MTAG_MTE_H
#define MTAG_MTE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "policy.h"

#define SYSFS_CPU_DIR "/sys/devices/system/cpu"

/* Does this CPU and kernel offer MTE to user space (HWCAP2_MTE)? */
bool mte_supported(void);

/* The preferred tag-check mode of every CPU under CPU_DIR (normally
 * SYSFS_CPU_DIR): counts of CPUs preferring each mode.  Returns the number
 * of CPUs that have an mte_tcf_preferred file (0: kernel has none). */
struct cpu_pref_count {
	unsigned sync, async, asymm, other;
};
unsigned mte_cpu_preferred(const char *cpu_dir, struct cpu_pref_count *c);

/* Write MODE (async, sync or asymm) to every CPU's mte_tcf_preferred.
 * Returns the number of CPUs written, or -errno (ERRBUF gets the path). */
int mte_set_cpu_preferred(const char *cpu_dir, enum mtag_mode mode, char *errbuf, size_t errlen);

/* What /proc tells about a process. */
struct proc_mte {
	char comm[64];
	unsigned maps, mt_maps;  /* mappings, and those with the "mt" VmFlag */
	unsigned long long anon_kb, mt_anon_kb; /* Anonymous: kB, all and in mt mappings */
	bool has_tcf_line;       /* kernel shows MTE_TCF: (mtag kernel) */
	char tcf[64];            /* its value: none, sync, async, sync,async */
	bool has_mask_line;
	char tag_include[32];    /* MTE_TagInclude: value */
	/* Report-only mode (mtag kernel patch 0004). */
	bool has_report_line;    /* kernel shows MTE_Report: */
	bool report_on;
	unsigned long long report_reenable_ns; /* MTE_ReportReenable:, 0: never */
	/* Threads (PROC_DIR/PID/task/) and those whose checking a report-mode
	 * fault has turned off (MTE_ReportChecking: suspended). */
	unsigned threads, threads_suspended;
#define PROC_MTE_TIDS 16
	pid_t suspended[PROC_MTE_TIDS]; /* the first PROC_MTE_TIDS of them */
	/* Threads whose MTE_TCF is not the process's (the first of them). */
	unsigned threads_tcf_differ;
	pid_t tcf_differ_tid;
	char tcf_differ[64];
};

/* Fill *M from PROC_DIR/PID (PROC_DIR normally "/proc").  Returns 0 or
 * -errno for the first file that could not be read. */
int mte_read_proc(const char *proc_dir, pid_t pid, struct proc_mte *m);

#endif
