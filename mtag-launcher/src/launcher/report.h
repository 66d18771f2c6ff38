/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.h -- the mtag kernel's report-only mode (patches/linux/0004). */
#ifndef MTAG_REPORT_H
#define MTAG_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "mte-uapi.h"

/* This process's PR_MTE_REPORT_* flags, or -errno (-EINVAL without MTE
 * and on kernels without the mtag patch). */
long report_get(void);

/* Turn report-only mode on for this process (inherited across execve,
 * fork and clone), re-enabling tag checks in a thread after REENABLE_NS
 * of its CPU time (DURATION_INFINITY: never).  Returns 0 or -errno. */
int report_enable(uint64_t reenable_ns);

/* Turn it off (a launcher started in report mode must not pass it on to
 * a service whose policy says sync).  Returns 0 or -errno. */
int report_disable(void);

#endif
