/* test-mte.c -- sysfs parsing against fake trees, and the HWCAP. */
#include <stdlib.h>
#include <string.h>

#include "mte.h"
#include "unit.h"

static void test_cpu_preferred(void)
{
	char dir[600], path[700];
	struct cpu_pref_count c;
	char err[256];

	snprintf(dir, sizeof(dir), "%s/sys/cpu", tmpdir());
	snprintf(path, sizeof(path), "%s/cpu0/mte_tcf_preferred", dir);
	write_file(path, "async\n");
	snprintf(path, sizeof(path), "%s/cpu1/mte_tcf_preferred", dir);
	write_file(path, "asymm\n");
	snprintf(path, sizeof(path), "%s/cpufreq/x", dir);
	write_file(path, "");
	snprintf(path, sizeof(path), "%s/cpu2/online", dir);
	write_file(path, "1\n");
	CHECK(mte_cpu_preferred(dir, &c) == 2);
	CHECK(c.async == 1 && c.asymm == 1 && c.sync == 0);

	CHECK(mte_set_cpu_preferred(dir, "sync", err, sizeof(err)) == 2);
	CHECK(mte_cpu_preferred(dir, &c) == 2 && c.sync == 2);
	CHECK(mte_set_cpu_preferred(dir, "off", err, sizeof(err)) < 0);

	snprintf(dir, sizeof(dir), "%s/sys/none", tmpdir());
	mkdirs(dir);
	CHECK(mte_cpu_preferred(dir, &c) == 0);
	CHECK(mte_set_cpu_preferred(dir, "asymm", err, sizeof(err)) < 0);
	CHECK(strstr(err, "mte_tcf_preferred") != NULL);
}

static void test_hwcap(void)
{
#if defined(__aarch64__)
	SKIP_TEST("depends on the CPU");
#else
	CHECK(!mte_supported());
#endif
}

void run_mte_tests(void)
{
	RUN(test_cpu_preferred);
	RUN(test_hwcap);
}
