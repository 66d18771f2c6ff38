/* test-execdef.c -- the kernel exec default the launcher sets for a mode. */
#include <errno.h>

#include "execdef.h"
#include "policy.h"
#include "unit.h"

#define TAGS (0xfffeUL << PR_MTE_EXEC_TAG_SHIFT)

static int str_is(unsigned long f, const char *want)
{
	char buf[64];

	execdef_str(f, buf, sizeof(buf));
	if (strcmp(buf, want) != 0) {
		printf("# execdef_str(0x%lx) = \"%s\", want \"%s\"\n", f, buf, want);
		return 0;
	}
	return 1;
}

static void test_from_mode(void)
{
	/* Every mode, with and without heap tagging, asks the kernel for
	 * what it asks glibc for. */
	CHECK(execdef_from_tunable(mode_tunable_value(MTAG_MODE_OFF, true)) == 0);
	CHECK(execdef_from_tunable(mode_tunable_value(MTAG_MODE_SYNC, true)) ==
	      (PR_MTE_EXEC_TCF_SYNC | PR_MTE_EXEC_HEAP | TAGS));
	CHECK(execdef_from_tunable(mode_tunable_value(MTAG_MODE_SYNC, false)) ==
	      (PR_MTE_EXEC_TCF_SYNC | TAGS));
	CHECK(execdef_from_tunable(mode_tunable_value(MTAG_MODE_ASYNC, true)) ==
	      (PR_MTE_EXEC_TCF_ASYNC | PR_MTE_EXEC_HEAP | TAGS));
	CHECK(execdef_from_tunable(mode_tunable_value(MTAG_MODE_ASYMM, true)) ==
	      (PR_MTE_EXEC_TCF_MASK | PR_MTE_EXEC_HEAP | TAGS));
	CHECK(execdef_from_tunable(mode_tunable_value(MTAG_MODE_ASYMM, false)) ==
	      (PR_MTE_EXEC_TCF_MASK | TAGS));
	/* Report mode checks synchronously, as glibc does under it. */
	CHECK(execdef_from_tunable(mode_tunable_value(MTAG_MODE_REPORT, true)) ==
	      (PR_MTE_EXEC_TCF_SYNC | PR_MTE_EXEC_HEAP | TAGS));
	/* glibc's "any other non-zero value": async without heap. */
	CHECK(execdef_from_tunable(8) == (PR_MTE_EXEC_TCF_ASYNC | TAGS));
}

static void test_str(void)
{
	CHECK(str_is(0, "none"));
	CHECK(str_is(PR_MTE_EXEC_TCF_SYNC | PR_MTE_EXEC_HEAP | TAGS, "sync heap"));
	CHECK(str_is(PR_MTE_EXEC_TCF_ASYNC, "async"));
	CHECK(str_is(PR_MTE_EXEC_TCF_MASK | PR_MTE_EXEC_HEAP, "sync,async heap"));
}

static void test_host(void)
{
	/* Not the mtag arm64 kernel: EINVAL, never a crash. */
#if !defined(__aarch64__)
	CHECK(execdef_set(PR_MTE_EXEC_TCF_SYNC) == -EINVAL);
	CHECK(execdef_get() == -EINVAL);
#endif
}

void run_execdef_tests(void)
{
	RUN(test_from_mode);
	RUN(test_str);
	RUN(test_host);
}
