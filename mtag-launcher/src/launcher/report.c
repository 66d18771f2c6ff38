/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.c -- set the kernel's report-only mode before the exec. */
#include "report.h"

#include <errno.h>
#include <sys/prctl.h>

#include "mte.h"
#include "systemd-time.h"

long report_get(void)
{
	return mte_prctl(PR_GET_MTE_REPORT, 0, 0);
}

static int set(unsigned long flags, unsigned long reenable_ns)
{
	long r = mte_prctl(PR_SET_MTE_REPORT, flags, reenable_ns);

	return r < 0 ? (int)r : 0;
}

int report_enable(uint64_t reenable_ns)
{
	/* The kernel's 0 is "never". */
	if (reenable_ns == DURATION_INFINITY)
		reenable_ns = 0;
	return set(PR_MTE_REPORT_ON, (unsigned long)reenable_ns);
}

int report_disable(void)
{
	return set(0, 0);
}
