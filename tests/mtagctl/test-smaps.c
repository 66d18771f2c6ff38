/* test-smaps.c -- tagged anonymous memory from recorded smaps. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "smaps.h"
#include "unit.h"

static void test_nginx(void)
{
	struct smaps_mte s;

	CHECK(smaps_read_path(data_path("nginx.smaps"), &s) == 0);
	CHECK(s.n_mappings == 11);
	CHECK(s.n_mt_mappings == 3);
	CHECK(s.anon_kb == 624);
	CHECK(s.mt_anon_kb == 364);
	CHECK(s.rss_kb == 2392);
	CHECK(s.mt_rss_kb == 364);
}

static void test_nomte(void)
{
	struct smaps_mte s;
	FILE *f = fopen(data_path("nomte.smaps"), "r");

	CHECK(f);
	CHECK(smaps_read_file(f, &s) == 0);
	fclose(f);
	CHECK(s.n_mappings == 2 && s.n_mt_mappings == 0);
	CHECK(s.anon_kb == 256 && s.mt_anon_kb == 0);
}

static void test_edge_cases(void)
{
	struct smaps_mte s;
	char path[512], proc[512];

	/* "mt" only as a whole flag; no VmFlags line (old kernels). */
	snprintf(path, sizeof(path), "%s/edge.smaps", tmpdir());
	write_file(path, "1000-2000 rw-p 00000000 00:00 0\nAnonymous: 4 kB\nVmFlags: rd wr mtx\n"
			 "2000-3000 rw-p 00000000 00:00 0\nAnonymous: 8 kB\n"
			 "3000-4000 rw-p 00000000 00:00 0\nAnonymous:\t16 kB\nVmFlags: mt\n");
	CHECK(smaps_read_path(path, &s) == 0);
	CHECK(s.n_mappings == 3 && s.n_mt_mappings == 1 && s.anon_kb == 28 && s.mt_anon_kb == 16);
	/* Empty: nothing, no error (a kernel thread); junk: -EINVAL. */
	write_file(path, "");
	CHECK(smaps_read_path(path, &s) == 0 && s.n_mappings == 0);
	write_file(path, "hello\nworld\n");
	CHECK(smaps_read_path(path, &s) == -EINVAL);
	CHECK(smaps_read_path("/nonexistent", &s) == -ENOENT);
	snprintf(proc, sizeof(proc), "%s/proc", tmpdir());
	snprintf(path, sizeof(path), "%s/proc/77/smaps", tmpdir());
	write_file(path, "1000-2000 rw-p 00000000 00:00 0\nAnonymous: 4 kB\nVmFlags: rd wr mt\n");
	CHECK(smaps_read_pid(proc, 77, &s) == 0 && s.mt_anon_kb == 4);
	CHECK(smaps_read_pid(proc, 78, &s) == -ENOENT);
	/* This process's own (no MTE on the host: no "mt"). */
	CHECK(smaps_read_pid("/proc", getpid(), &s) == 0);
	CHECK(s.n_mappings > 0 && s.anon_kb > 0);
}

void run_smaps_tests(void)
{
	RUN(test_nginx);
	RUN(test_nomte);
	RUN(test_edge_cases);
}
