/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.h -- the mtag kernel's report-only mode (patches/linux/0004). */
#ifndef MTAG_REPORT_H
#define MTAG_REPORT_H

#include <stdbool.h>
#include <stdint.h>

/* prctl numbers of patches/linux/0004-arm64-mte-report-only-mode.patch. */
#ifndef PR_SET_MTE_REPORT
#define PR_SET_MTE_REPORT 0x4d545201
#define PR_GET_MTE_REPORT 0x4d545202
#define PR_MTE_REPORT_ON (1UL << 0)
#define PR_MTE_REPORT_SUSPENDED (1UL << 1)
#endif

/* This process's PR_MTE_REPORT_* flags, or -errno (-EINVAL without MTE
 * and on kernels without the mtag patch). */
long report_get(void);

/* Does this kernel offer report-only mode (PR_GET_MTE_REPORT works)? */
bool report_supported(void);

/* Turn report-only mode on for this process (inherited across execve,
 * fork and clone), re-enabling tag checks in a thread after REENABLE_NS
 * of its CPU time (DURATION_INFINITY: never).  Returns 0 or -errno. */
int report_enable(uint64_t reenable_ns);

/* Turn it off (a launcher started in report mode must not pass it on to
 * a service whose policy says sync).  Returns 0 or -errno. */
int report_disable(void);

#endif
