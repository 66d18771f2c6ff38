/* SPDX-License-Identifier: GPL-2.0-or-later */
/* faultline.h -- parse the mtag kernel's tag-check fault line.
 *
 * The kernel (patches/linux 0003-0005) logs one rate-limited line per user
 * tag-check fault.  With patch 0005 (extended report):
 *
 *   mte: sync tag check fault in COMM[TID]: addr 0x%016lx pointer tag 0x%lx
 *        memory tag 0x%x|unknown pc 0x%lx pid TGID
 *        tags HHHHHHHH[H]HHHHHHHH cgroup PATH[ SUFFIX]
 *   mte: async tag check fault in COMM[TID]: pid TGID cgroup PATH[ SUFFIX]
 *
 * (one line each; wrapped here).  "tags": the allocation tags of the 8
 * granules before the faulting granule, the faulting granule in brackets,
 * and the 8 after, one hex digit each, "-" for a granule whose page is not
 * mapped or not tagged.  "cgroup": the task's cgroup v2 path, last but for
 * SUFFIX, which is " (report mode: tag checks off in this thread)" or
 * " (report mode, in a system call: tag checks off in this thread)".
 * Lines of patch 0003/0004 kernels (no pid/tags/cgroup, async line without
 * the colon) parse too, with those fields absent.  A leading "[ 12.345] "
 * printk timestamp is skipped.
 */
#ifndef MTAG_FAULTLINE_H
#define MTAG_FAULTLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define MTE_FAULT_AROUND 8                       /* granules each side */
#define MTE_FAULT_NTAGS (2 * MTE_FAULT_AROUND + 1)
#define MTE_TAG_UNKNOWN (-1)                     /* "-" or "unknown" */

enum mte_fault_kind { MTE_FAULT_SYNC, MTE_FAULT_ASYNC };

enum mte_fault_report {
	MTE_FAULT_SIGNAL,          /* no suffix: SIGSEGV was sent */
	MTE_FAULT_REPORT_USER,     /* report mode, fault in user space */
	MTE_FAULT_REPORT_SYSCALL,  /* report mode, fault in a system call */
};

struct mte_fault {
	enum mte_fault_kind kind;
	char comm[64];             /* as printed (TASK_COMM_LEN is 16) */
	pid_t tid;
	pid_t pid;                 /* thread group; 0: not in the line */
	char cgroup[512];          /* "": not in the line */
	/* sync only: */
	bool has_addr;
	uint64_t addr;             /* the tagged faulting address */
	unsigned ptr_tag;          /* bits 59-56 of addr */
	int mem_tag;               /* 0-15 or MTE_TAG_UNKNOWN */
	uint64_t pc;
	bool has_tags;             /* the "tags" field was there */
	int tags[MTE_FAULT_NTAGS]; /* [MTE_FAULT_AROUND] is the faulting granule */
	enum mte_fault_report report;
};

/* Parse LINE (LEN bytes, no NUL needed; a trailing newline is ignored).
 * Returns 1 and fills *F for a fault line, 0 for a line that is not one
 * ("mte: " lines of other kinds, anything else), -EINVAL for a line that
 * starts like a fault line but is malformed (*F is then undefined). */
int mte_fault_parse(const char *line, size_t len, struct mte_fault *f);

/* The kernel's count of the fault lines its rate limit held back (patch
 * 0007), printed when a budget's window ends, whether or not the cgroup
 * faults again:
 *
 *   mte: N fault reports suppressed for PATH          (the cgroup v2 path)
 *   mte: N fault reports suppressed for cgroup id ID  (the cgroup is gone or
 *                                                      its budget evicted)
 *
 * A leading printk timestamp is skipped, as for a fault line. */
struct mte_suppressed {
	uint64_t count;            /* N, >= 1 */
	char cgroup[512];          /* PATH, "": by id */
	bool by_id;
	uint64_t cgroup_id;        /* ID, when BY_ID */
};

/* Parse LINE (LEN bytes, no NUL needed; a trailing newline is ignored).
 * 1 and *S for a "suppressed" line, 0 for any other line, -EINVAL for a
 * line that starts like one but is malformed. */
int mte_suppressed_parse(const char *line, size_t len, struct mte_suppressed *s);

/* Format the "tags" field of F back ("--3300[0]00111111"); BUF >= 20. */
void mte_fault_tags_str(const struct mte_fault *f, char *buf, size_t len);

#endif
