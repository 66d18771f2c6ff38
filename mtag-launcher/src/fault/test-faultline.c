/* test-faultline.c -- the kernel's fault line parser, on recorded lines. */
#include <errno.h>
#include <stdlib.h>

#include "cgunit.h"
#include "faultline.h"
#include "unit.h"

static void test_sync_overflow(void)
{
	struct mte_fault f;
	char tags[32];

	CHECK(parse_kmsg("sync-overflow", &f) == 1);
	CHECK(f.kind == MTE_FAULT_SYNC);
	CHECK_STR(f.comm, "mtebug");
	CHECK(f.tid == 1234 && f.pid == 1234);
	CHECK(f.has_addr && f.addr == 0x0300aaaad5a212d0ULL);
	CHECK(f.ptr_tag == 3 && f.mem_tag == 0);
	CHECK(f.pc == 0xaaaac1f80a64ULL);
	CHECK(f.has_tags);
	CHECK(f.tags[0] == 0 && f.tags[1] == 0xc && f.tags[3] == 0xa && f.tags[6] == 3 && f.tags[7] == 3);
	CHECK(f.tags[8] == 0 && f.tags[9] == 0xe && f.tags[10] == 0xe && f.tags[16] == 0);
	CHECK_STR(f.cgroup, "/system.slice/mtebug.service");
	CHECK(f.report == MTE_FAULT_SIGNAL);
	mte_fault_tags_str(&f, tags, sizeof(tags));
	CHECK_STR(tags, "0c0aa033[0]ee000000");
}

static void test_sync_uaf(void)
{
	struct mte_fault f;

	CHECK(parse_kmsg("sync-uaf", &f) == 1);
	CHECK(f.tid == 1240 && f.ptr_tag == 0xe && f.mem_tag == 0);
	CHECK(f.addr == 0x0e00aaaad5a212f0ULL);
}

static void test_unmapped_neighbours(void)
{
	struct mte_fault f;
	char tags[32];

	CHECK(parse_kmsg("sync-underflow-unmapped", &f) == 1);
	CHECK_STR(f.comm, "redis-server");
	for (int i = 0; i < MTE_FAULT_AROUND; i++)
		CHECK(f.tags[i] == MTE_TAG_UNKNOWN);
	CHECK(f.tags[8] == 0 && f.tags[9] == 5 && f.tags[13] == 0);
	mte_fault_tags_str(&f, tags, sizeof(tags));
	CHECK_STR(tags, "--------[0]55550000");
	/* A short buffer is cut, NUL-terminated. */
	mte_fault_tags_str(&f, tags, 5);
	CHECK_STR(tags, "----");
}

static void test_report_suffixes(void)
{
	struct mte_fault f;

	CHECK(parse_kmsg("report-user", &f) == 1);
	CHECK(f.report == MTE_FAULT_REPORT_USER);
	CHECK_STR(f.cgroup, "/system.slice/nginx.service");
	CHECK(parse_kmsg("report-syscall", &f) == 1);
	CHECK(f.report == MTE_FAULT_REPORT_SYSCALL);
	CHECK_STR(f.cgroup, "/system.slice/nginx.service");
	CHECK(f.tid == 2003 && f.pid == 2001);
	CHECK(parse_kmsg("sync-old-0004-report", &f) == 1);
	CHECK(f.report == MTE_FAULT_REPORT_SYSCALL && f.mem_tag == MTE_TAG_UNKNOWN && !f.has_tags);
	CHECK(f.pid == 0 && !f.cgroup[0]);
}

static void test_async(void)
{
	struct mte_fault f;

	CHECK(parse_kmsg("async-new", &f) == 1);
	CHECK(f.kind == MTE_FAULT_ASYNC && !f.has_addr && !f.has_tags);
	CHECK_STR(f.comm, "nginx: worker");
	CHECK(f.tid == 2001 && f.pid == 1999);
	CHECK_STR(f.cgroup, "/system.slice/nginx.service");
	CHECK(f.report == MTE_FAULT_SIGNAL);
	CHECK(parse_kmsg("async-new-report", &f) == 1);
	CHECK(f.report == MTE_FAULT_REPORT_USER);
	CHECK_STR(f.cgroup, "/system.slice/nginx.service");
	CHECK(parse_kmsg("async-old", &f) == 1);
	CHECK(f.kind == MTE_FAULT_ASYNC && f.tid == 1234 && f.pid == 0 && !f.cgroup[0]);
	CHECK_STR(f.comm, "nginx");
	CHECK(parse_kmsg("async-old-report", &f) == 1);
	CHECK(f.report == MTE_FAULT_REPORT_USER && f.tid == 1234);
}

static void test_old_sync(void)
{
	struct mte_fault f;
	char tags[32] = "x";

	CHECK(parse_kmsg("sync-old-0003", &f) == 1);
	CHECK(f.addr == 0x0f00ffff9a2c1040ULL && f.ptr_tag == 0xf && f.mem_tag == 0);
	CHECK(f.pc == 0xaaaad00d1234ULL && f.pid == 0 && !f.has_tags && !f.cgroup[0]);
	mte_fault_tags_str(&f, tags, sizeof(tags));
	CHECK_STR(tags, "");
}

static void test_odd_comms(void)
{
	struct mte_fault f;

	CHECK(parse_kmsg("comm-brackets", &f) == 1);
	CHECK_STR(f.comm, "w [1]: x]:[2]");
	CHECK(f.tid == 4321 && f.pid == 4320);
	CHECK_STR(f.cgroup, "/user.slice/user-1000.slice/session-3.scope");
	CHECK(parse_kmsg("comm-spaces", &f) == 1);
	CHECK_STR(f.comm, "my prog [x]");
	CHECK(f.tid == 99 && f.pid == 98);
	CHECK_STR(f.cgroup, "/system.slice/my\\x20prog.service/payload");
	/* A cgroup path that looks like the rest of a line: COMM is short. */
	CHECK(parse_kmsg("cgroup-spaces", &f) == 1);
	CHECK_STR(f.comm, "sh");
	CHECK(f.tid == 5 && f.pid == 5);
	CHECK_STR(f.cgroup, "/machine.slice/odd name [1]: pid 2 cgroup /x");
}

static void test_malformed(void)
{
	static const char *const bad[] = {
		"bad-truncated", "bad-ptrtag", "bad-hex-overflow", "bad-pid-overflow", "bad-tid",
		"bad-tags", "bad-tags-char", "bad-memtag", "bad-trailing", "bad-no-comm",
		"bad-pid-zero", "bad-empty-cgroup",
	};
	struct mte_fault f;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = parse_kmsg(bad[i], &f);

		if (r != -EINVAL)
			printf("# %s: %d\n", bad[i], r);
		CHECK(r == -EINVAL);
	}
}

static void test_not_fault_lines(void)
{
	static const char *const other[] = { "other-mte", "other-mte2", "other-kernel", "other-empty" };
	struct mte_fault f;

	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		CHECK(parse_kmsg(other[i], &f) == 0);
	CHECK(mte_fault_parse("", 0, &f) == 0);
	CHECK(mte_fault_parse("[", 1, &f) == 0);
	CHECK(mte_fault_parse("[ 1.0]", 6, &f) == 0);
	CHECK(mte_fault_parse("mte: sync", 9, &f) == 0);
}

static void test_length_bound(void)
{
	/* LEN cuts the line: what is past it is never looked at. */
	const char *l = "mte: async tag check fault in nginx[1234]: pid 12 cgroup /a.service";
	struct mte_fault f;

	CHECK(mte_fault_parse(l, strlen("mte: async tag check fault in nginx[1234]"), &f) == 1);
	CHECK(f.pid == 0 && f.tid == 1234);
	CHECK(mte_fault_parse(l, strlen("mte: async tag check fault in nginx[12"), &f) == -EINVAL);
	CHECK(mte_fault_parse(l, strlen(l), &f) == 1);
	CHECK_STR(f.cgroup, "/a.service");
	/* Trailing CR/LF ignored; timestamps skipped. */
	CHECK(mte_fault_parse("[5.1] mte: async tag check fault in a[1]\r\n", 42, &f) == 1);
	CHECK(f.tid == 1);
	/* TID limits. */
	CHECK(mte_fault_parse("mte: async tag check fault in a[2147483647]", 43, &f) == 1);
	CHECK(mte_fault_parse("mte: async tag check fault in a[2147483648]", 43, &f) == -EINVAL);
	/* An empty COMM (the kernel prints what it has). */
	CHECK(mte_fault_parse("mte: async tag check fault in [7]", 33, &f) == 1);
	CHECK(f.comm[0] == '\0' && f.tid == 7);
}

static void test_cgroup_unit(void)
{
	char buf[64];

	/* systemd's cg_path_get_unit(): the first component after the
	 * slices; whatever is below belongs to it. */
	CHECK_STR(cgroup_system_unit("/system.slice/nginx.service", buf, sizeof(buf)), "nginx.service");
	CHECK_STR(cgroup_system_unit("/system.slice/foo.service/payload", buf, sizeof(buf)), "foo.service");
	CHECK_STR(cgroup_system_unit("/system.slice/system-getty.slice/getty@tty1.service", buf, sizeof(buf)),
		  "getty@tty1.service");
	CHECK_STR(cgroup_system_unit("/system.slice/sshd.socket", buf, sizeof(buf)), "sshd.socket");
	CHECK_STR(cgroup_system_unit("/init.scope", buf, sizeof(buf)), "init.scope");
	/* A user's own unit, named like a system service, is charged to
	 * the user's manager, never to the system unit. */
	CHECK_STR(cgroup_system_unit("/user.slice/user-1000.slice/user@1000.service/app.slice/nginx.service",
				     buf, sizeof(buf)),
		  "user@1000.service");
	CHECK_STR(cgroup_system_unit("/user.slice/user-1000.slice/session-3.scope", buf, sizeof(buf)),
		  "session-3.scope");
	/* A container's own systemd: the container's scope on the host. */
	CHECK_STR(cgroup_system_unit("/machine.slice/machine-web.scope/payload/system.slice/nginx.service",
				     buf, sizeof(buf)),
		  "machine-web.scope");
	CHECK_STR(cgroup_system_unit("/system.slice/docker-0123abcd.scope/system.slice/nginx.service",
				     buf, sizeof(buf)),
		  "docker-0123abcd.scope");
	/* cgroup escaping: a leading '_' is dropped. */
	CHECK_STR(cgroup_system_unit("/system.slice/_cpu.service", buf, sizeof(buf)), "cpu.service");
	/* No unit: only slices, the root, junk, a bare template, a
	 * truncated kernel path. */
	CHECK(cgroup_system_unit("/system.slice", buf, sizeof(buf)) == NULL);
	CHECK(cgroup_system_unit("/", buf, sizeof(buf)) == NULL);
	CHECK(cgroup_system_unit("", buf, sizeof(buf)) == NULL);
	CHECK(cgroup_system_unit(NULL, buf, sizeof(buf)) == NULL);
	CHECK(cgroup_system_unit("/.service", buf, sizeof(buf)) == NULL);
	CHECK(cgroup_system_unit("/foo/nginx.service", buf, sizeof(buf)) == NULL);
	CHECK(cgroup_system_unit("/system.slice/getty@.service", buf, sizeof(buf)) == NULL);
	CHECK(cgroup_system_unit("/system.slice/ngi?nx.service", buf, sizeof(buf)) == NULL);
	CHECK(cgroup_system_unit("/system.slice/nginx.serv...", buf, sizeof(buf)) == NULL);
	CHECK(cgroup_system_unit("/system.slice/nginx.service", buf, 13) == NULL); /* too small */
	CHECK_STR(cgroup_system_unit("/system.slice/nginx.service", buf, 14), "nginx.service");
	CHECK_STR(cgroup_system_unit("//a.service//", buf, sizeof(buf)), "a.service");

	/* cg_path_get_user_unit(). */
	CHECK_STR(cgroup_user_unit("/user.slice/user-1000.slice/user@1000.service/app.slice/nginx.service",
				   buf, sizeof(buf)),
		  "nginx.service");
	CHECK_STR(cgroup_user_unit("/user.slice/user-0.slice/user@0.service/app.slice/x.scope", buf,
				   sizeof(buf)),
		  "x.scope");
	CHECK_STR(cgroup_user_unit("/user.slice/user-1000.slice/session-3.scope/foo.service", buf,
				   sizeof(buf)),
		  "foo.service");
	CHECK(cgroup_user_unit("/user.slice/user-1000.slice/user@1000.service/init.scope/x", buf,
			       sizeof(buf)) != NULL);
	CHECK(cgroup_user_unit("/system.slice/nginx.service", buf, sizeof(buf)) == NULL);
	CHECK(cgroup_user_unit("/user.slice/user-1000.slice/user@x.service/app.slice/a.service", buf,
			       sizeof(buf)) == NULL);
	CHECK(cgroup_user_unit("/user.slice/user-1000.slice/user@1000.service", buf, sizeof(buf)) == NULL);

	CHECK(unit_name_valid_n("a@b.service", 11));
	CHECK(!unit_name_valid_n("a@.service", 10));
	CHECK(!unit_name_valid_n("@b.service", 10));
	CHECK(!unit_name_valid_n("a.nothing", 9));
}

void run_faultline_tests(void)
{
	RUN(test_sync_overflow);
	RUN(test_sync_uaf);
	RUN(test_unmapped_neighbours);
	RUN(test_report_suffixes);
	RUN(test_async);
	RUN(test_old_sync);
	RUN(test_odd_comms);
	RUN(test_malformed);
	RUN(test_not_fault_lines);
	RUN(test_length_bound);
	RUN(test_cgroup_unit);
}
