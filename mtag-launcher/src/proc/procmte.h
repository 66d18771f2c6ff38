/* SPDX-License-Identifier: GPL-2.0-or-later */
/* procmte.h -- what /proc says of a process's tag checking (mtag kernel
 * lines in /proc/PID/status and its threads', PROT_MTE mappings in smaps),
 * for mtagctl status. */
#ifndef MTAG_PROCMTE_H
#define MTAG_PROCMTE_H

#include <stdbool.h>
#include <sys/types.h>

/* What /proc tells about a process. */
struct proc_mte {
	char comm[64];
	unsigned maps, mt_maps;  /* mappings, and those with the "mt" VmFlag */
	unsigned long long anon_kb, mt_anon_kb; /* Anonymous: kB, all and in mt mappings */
	unsigned long long malloc_kb, mt_malloc_kb; /* ... of the malloc-able mappings (smaps.h) */
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
	/* Where its mode came from.  The kernel's exec default (patch 0006,
	 * MTE_ExecDefault:, e.g. "sync heap") and whether a tunable reached
	 * glibc: GLIBC_TUNABLES with glibc.mem.tagging or glibc.memtag.enable,
	 * or _MTAG_ENABLE, in PROC_DIR/PID/environ (-1: unreadable), unless
	 * the process runs with AT_SECURE (PROC_DIR/PID/auxv), where glibc
	 * ignores the tunables. */
	bool has_execdef_line;
	char execdef[64];
	int env_tunable;
	bool secure;
	/* The timed upgrade (patch 0008): "MTE_Upgrade: sync until NS", the
	 * CLOCK_BOOTTIME deadline while it is ahead, else 0. */
	unsigned long long upgrade_until_ns;
	/* Threads whose MTE_TCF is not the process's (the first of them). */
	unsigned threads_tcf_differ;
	pid_t tcf_differ_tid;
	char tcf_differ[64];
};

/* Fill *M from PROC_DIR/PID (PROC_DIR normally "/proc").  Returns 0 or
 * -errno for the first file that could not be read. */
int mte_read_proc(const char *proc_dir, pid_t pid, struct proc_mte *m);

/* Where M's tag-check mode came from: MODE_ORIGIN_ENV (a tunable that
 * glibc honours), MODE_ORIGIN_KERNEL (the kernel's exec default, no
 * tunable), MODE_ORIGIN_NONE (checking is off) or MODE_ORIGIN_UNKNOWN. */
enum mode_origin { MODE_ORIGIN_NONE, MODE_ORIGIN_ENV, MODE_ORIGIN_KERNEL, MODE_ORIGIN_UNKNOWN };
enum mode_origin proc_mode_origin(const struct proc_mte *m);
const char *mode_origin_name(enum mode_origin o);

/* M runs without tag checking although the kernel's exec default asks for
 * a mode and no tunable reached its libc: the libc does not read the
 * default (a stock glibc, a static program, another libc).  An environment
 * that cannot be read counts as one without a tunable: only a tunable
 * (glibc.mem.tagging=0) explains an unchecked process otherwise, and a
 * reader without CAP_DAC_READ_SEARCH (mtag-prometheus.service) cannot open
 * another user's environ. */
bool proc_ignores_execdef(const struct proc_mte *m);

/* How many non-zero tags (1-15) the MTE_TagInclude mask MASK ("0xfffe")
 * lets IRG pick, or -1 when it is not such a mask.  Below 2, neighbouring
 * allocations share their tag (or every tag is 0) and a fault is seldom
 * or never detected: not protection. */
int tag_include_nonzero(const char *mask);

/* What makes an exec of PROC_DIR/PID/exe a secure exec (AT_SECURE): the
 * file is set-user-ID, set-group-ID, or has file capabilities
 * (security.capability).  PROC_EXE_* bits, 0 for none or when it cannot
 * be read (the process has gone).  PATH (LEN bytes, may be NULL) gets the
 * exe's path as the kernel shows it, cut to fit.  A stat() and a
 * getxattr() of size 0: nothing of the file is read. */
#define PROC_EXE_SETUID 1u
#define PROC_EXE_SETGID 2u
#define PROC_EXE_FCAPS 4u
unsigned proc_exe_privilege(const char *proc_dir, pid_t pid, char *path, size_t len);

/* "set-user-ID, set-group-ID, file capabilities" for BITS, into BUF. */
char *proc_exe_privilege_str(unsigned bits, char *buf, size_t len);

/* One thread: PROC_DIR/PID/task/TID/status. */
struct thread_mte {
	bool has_tcf;            /* MTE_TCF: (mtag kernel) */
	char tcf[64];            /* none, sync, async, sync,async */
	bool has_report;         /* MTE_Report: (patch 0004) */
	bool report_on;
	bool suspended;          /* MTE_ReportChecking: suspended */
};
/* 0 and *T, or -errno (the thread has gone). */
int proc_thread_mte(const char *proc_dir, pid_t pid, pid_t tid, struct thread_mte *t);

/* An MTE_TCF value in the launcher's words (MTAG_MODE of its journal
 * entry): off, sync, async, asymm (the kernel's "sync,async"), or report
 * when REPORT_ON; NULL for a value it does not know. */
const char *tcf_mode_word(const char *tcf, bool report_on);

#endif
