/* test-smaps.c -- tagged anonymous memory from recorded smaps. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
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

/* The compat run's daemons under sync (docs/compat/compat.tsv of
 * 2026-12-05; data/daemons/make-smaps rebuilds their smaps from its sums):
 * anon_kb, tagged_kb, malloc_anon_kb, malloc_tagged_kb, and the table's
 * outcome (docs/compatibility.md): is the heap tagged?  mtagctl's verdict
 * must agree with it for every one of them. */
static void test_compat_daemons(void)
{
	static const struct {
		const char *name;
		uint64_t anon, mt, malloc, mt_malloc;
		bool tagged;
	} d[] = {
		{ "beanstalkd", 244, 8, 60, 8, true },
		{ "rsync", 608, 12, 80, 12, true },
		{ "vsftpd", 740, 8, 72, 8, true },
		{ "atd", 192, 48, 96, 48, true },
		{ "redis", 2976, 0, 1880, 0, false },  /* jemalloc */
		{ "bind9", 23536, 0, 22356, 0, false }, /* jemalloc */
	};
	unsigned bad = 0;

	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		struct smaps_mte s;
		char name[64];

		snprintf(name, sizeof(name), "daemons/%s.smaps", d[i].name);
		CHECK(smaps_read_path(data_path(name), &s) == 0);
		CHECK(s.anon_kb == d[i].anon && s.mt_anon_kb == d[i].mt);
		CHECK(s.malloc_kb == d[i].malloc && s.mt_malloc_kb == d[i].mt_malloc);
		if (smaps_heap_tagged(s.malloc_kb, s.mt_malloc_kb) == d[i].tagged)
			continue;
		bad++;
		fprintf(stderr, "%s: heap %s by mtagctl's rule (%llu of %llu kB malloc-able, %llu of %llu kB anonymous tagged), %s in the compat table\n",
			d[i].name, d[i].tagged ? "not tagged" : "tagged",
			(unsigned long long)s.mt_malloc_kb, (unsigned long long)s.malloc_kb,
			(unsigned long long)s.mt_anon_kb, (unsigned long long)s.anon_kb,
			d[i].tagged ? "protected" : "not protected");
	}
	CHECK(bad == 0);
}

static void test_heap_rule(void)
{
	/* Nothing malloc-able: nothing to judge. */
	CHECK(smaps_heap_tagged(0, 0));
	/* The threshold, SMAPS_HEAP_TAGGED_MIN_PERCENT of the malloc-able kB. */
	CHECK(smaps_heap_tagged(100, SMAPS_HEAP_TAGGED_MIN_PERCENT));
	CHECK(!smaps_heap_tagged(100, SMAPS_HEAP_TAGGED_MIN_PERCENT - 1));
	CHECK(!smaps_heap_tagged(1880, 0));
	/* [anon:NAME] (PR_SET_VMA_ANON_NAME) is malloc-able; [stack], a
	 * file's copy-on-write pages and [anon_shmem:NAME] are not. */
	struct smaps_mte s;
	char path[512];

	snprintf(path, sizeof(path), "%s/named.smaps", tmpdir());
	write_file(path, "1000-2000 rw-p 00000000 00:00 0 [anon:scudo:primary]\nAnonymous: 4 kB\nVmFlags: rd wr mt\n"
			 "2000-3000 rw-p 00000000 00:00 0 [stack]\nAnonymous: 8 kB\nVmFlags: rd wr\n"
			 "3000-4000 rw-p 00001000 fe:01 12 /usr/lib/libx.so\nAnonymous: 16 kB\nVmFlags: rd wr\n"
			 "4000-5000 rw-s 00000000 00:01 9 [anon_shmem:x]\nAnonymous: 32 kB\nVmFlags: rd wr sh\n"
			 "5000-6000 rw-p 00000000 00:00 0                  [heap]\nAnonymous: 64 kB\nVmFlags: rd wr\n");
	CHECK(smaps_read_path(path, &s) == 0);
	CHECK(s.anon_kb == 124 && s.mt_anon_kb == 4);
	CHECK(s.malloc_kb == 68 && s.mt_malloc_kb == 4);
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
	RUN(test_compat_daemons);
	RUN(test_heap_rule);
	RUN(test_edge_cases);
}
