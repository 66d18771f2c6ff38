/* SPDX-License-Identifier: GPL-2.0-or-later */
/* execdef.c -- set the kernel's MTE exec default before the exec. */
#include "execdef.h"

#include <errno.h>
#include <stdio.h>
#include <sys/prctl.h>

unsigned long execdef_from_tunable(unsigned value)
{
	unsigned long f = EXECDEF_TAGS << PR_MTE_EXEC_TAG_SHIFT;

	if (!value)
		return 0;
	if (value & 4)
		f |= PR_MTE_EXEC_TCF_SYNC | PR_MTE_EXEC_TCF_ASYNC;
	else if (value & 2)
		f |= PR_MTE_EXEC_TCF_SYNC;
	else
		f |= PR_MTE_EXEC_TCF_ASYNC;
	if (value & 1)
		f |= PR_MTE_EXEC_HEAP;
	return f;
}

const char *execdef_str(unsigned long flags, char *buf, size_t len)
{
	const char *tcf;

	switch (flags & PR_MTE_EXEC_TCF_MASK) {
	case PR_MTE_EXEC_TCF_SYNC:
		tcf = "sync";
		break;
	case PR_MTE_EXEC_TCF_ASYNC:
		tcf = "async";
		break;
	case PR_MTE_EXEC_TCF_MASK:
		tcf = "sync,async";
		break;
	default:
		tcf = "none";
		break;
	}
	snprintf(buf, len, "%s%s", tcf, (flags & PR_MTE_EXEC_HEAP) ? " heap" : "");
	return buf;
}

int execdef_set(unsigned long flags)
{
#if defined(__aarch64__)
	if (prctl(PR_SET_MTE_EXEC_DEFAULT, flags, 0, 0, 0) < 0)
		return -errno;
	return 0;
#else
	(void)flags;
	return -EINVAL; /* the prctl numbers are the mtag arm64 kernel's */
#endif
}

long execdef_get(void)
{
#if defined(__aarch64__)
	long r = prctl(PR_GET_MTE_EXEC_DEFAULT, 0, 0, 0, 0);

	return r < 0 ? -errno : r;
#else
	return -EINVAL;
#endif
}
