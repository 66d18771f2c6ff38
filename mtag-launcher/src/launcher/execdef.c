/* SPDX-License-Identifier: GPL-2.0-or-later */
/* execdef.c -- set the kernel's MTE exec default before the exec. */
#include "execdef.h"

#include <errno.h>
#include <stdio.h>
#include <sys/prctl.h>

#include "mte.h"

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
	long r = mte_prctl(PR_SET_MTE_EXEC_DEFAULT, flags, 0);

	return r < 0 ? (int)r : 0;
}

long execdef_get(void)
{
	return mte_prctl(PR_GET_MTE_EXEC_DEFAULT, 0, 0);
}
