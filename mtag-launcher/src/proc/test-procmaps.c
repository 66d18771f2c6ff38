/* test-procmaps.c -- /proc/PID/maps lookups on a recorded nginx map. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "procmaps.h"
#include "unit.h"

static void test_find_text(void)
{
	size_t len;
	char *maps = read_data("nginx.maps", &len);
	struct procmap m;
	char buf[256];

	CHECK(procmaps_find_text(maps, len, 0xaaaab0bda1c0ULL, &m) == 1);
	CHECK_STR(m.path, "/usr/sbin/nginx");
	CHECK_STR(m.perms, "r-xp");
	CHECK(m.start == 0xaaaab0b90000ULL && m.end == 0xaaaab0c6a000ULL && m.inode == 1311843);
	CHECK_STR(procmap_describe(&m, 0xaaaab0bda1c0ULL, buf, sizeof(buf)), "/usr/sbin/nginx+0x4a1c0");
	/* File offset counts: the data segment at offset 0xdd000. */
	CHECK(procmaps_find_text(maps, len, 0xaaaab0c7d010ULL, &m) == 1);
	CHECK_STR(procmap_describe(&m, 0xaaaab0c7d010ULL, buf, sizeof(buf)), "/usr/sbin/nginx+0xdd010");
	/* Tagged addresses: the top byte is ignored. */
	CHECK(procmaps_find_text(maps, len, 0x0300aaaad5a212d0ULL, &m) == 1);
	CHECK_STR(procmap_describe(&m, 0x0300aaaad5a212d0ULL, buf, sizeof(buf)), "[heap]+0x2d0");
	CHECK(procmaps_find_text(maps, len, 0xffff8c200010ULL, &m) == 1);
	CHECK_STR(m.path, "");
	CHECK_STR(procmap_describe(&m, 0xffff8c200010ULL, buf, sizeof(buf)), "[anon]+0x10");
	CHECK(procmaps_find_text(maps, len, 0xaaaab0c9b000ULL, &m) == 1);
	CHECK_STR(procmap_describe(&m, 0xaaaab0c9b000ULL, buf, sizeof(buf)), "[anon]+0x0");
	CHECK(procmaps_find_text(maps, len, 0xffffd2a3cff8ULL, &m) == 1);
	CHECK_STR(m.path, "[stack]");
	/* Paths with spaces, " (deleted)" kept. */
	CHECK(procmaps_find_text(maps, len, 0xffff9c300abcULL, &m) == 1);
	CHECK_STR(procmap_describe(&m, 0xffff9c300abcULL, buf, sizeof(buf)),
		  "/opt/my app/lib/libplug in.so+0xabc");
	CHECK(procmaps_find_text(maps, len, 0xffff9c200000ULL, &m) == 1);
	CHECK_STR(m.path, "/dev/zero (deleted)");
	CHECK_STR(m.perms, "rw-s");
	/* Ends are exclusive; holes are not found. */
	CHECK(procmaps_find_text(maps, len, 0xaaaab0c6a000ULL, &m) == 0);
	CHECK(procmaps_find_text(maps, len, 0x1000, &m) == 0);
	CHECK(procmaps_find_text(maps, 0, 0xaaaab0bda1c0ULL, &m) == 0);
	CHECK(procmaps_symbolize(maps, len, 0xffff9c0012a4ULL, buf, sizeof(buf)) == 0);
	CHECK_STR(buf, "/usr/lib/aarch64-linux-gnu/libc.so.6+0x12a4");
	CHECK(procmaps_symbolize(maps, len, 0x10, buf, sizeof(buf)) == -ENOENT);
	free(maps);
}

static void test_find_file_and_pid(void)
{
	struct procmap m;
	char path[512];
	FILE *f = fopen(data_path("nginx.maps"), "r");

	CHECK(f);
	CHECK(procmaps_find_file(f, 0xffff9c16e100ULL, &m) == 1);
	fclose(f);
	CHECK(m.offset == 0x15e000);
	CHECK(procmaps_find_path(data_path("nginx.maps"), 0x10, &m) == 0);
	CHECK(procmaps_find_path("/nonexistent/maps", 0x10, &m) == -ENOENT);
	/* A recorded /proc tree. */
	snprintf(path, sizeof(path), "%s/proc/4242/maps", tmpdir());
	write_file(path, "00400000-00401000 r-xp 00001000 08:01 42 /bin/x\n");
	snprintf(path, sizeof(path), "%s/proc", tmpdir());
	CHECK(procmaps_find_pid(path, 4242, 0x400010, &m) == 1);
	CHECK_STR(m.path, "/bin/x");
	CHECK(procmaps_find_pid(path, 4243, 0x400010, &m) == -ENOENT);
	CHECK(procmaps_find_pid(path, 0, 0x400010, &m) == -EINVAL);
	/* The real one of this process. */
	CHECK(procmaps_find_pid("/proc", getpid(), (uint64_t)(uintptr_t)&test_find_file_and_pid, &m) == 1);
	CHECK(m.path[0] == '/');
}

static void test_bad_lines(void)
{
	static const char *const bad[] = {
		"", "zzzz-1000 r-xp 0 00:00 0", "1000-0800 r-xp 00000000 00:00 0",
		"1000-2000 rwxq 00000000 00:00 0", "1000-2000 r-xp 00000000 0000 0",
		"1000-2000 r-xp 00000000 00:00", "1000-2000 r-xp 00000000 00:00 x",
		"10000000000000000-20000000000000000 r-xp 00000000 00:00 0",
		"1000-2000 r-xp 00000000 00:00 0x /a", "1000-2000 r-x",
	};
	struct procmap m;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(procmaps_parse_line(bad[i], strlen(bad[i]), &m) == -EINVAL);
	CHECK(procmaps_parse_line("1000-2000 r-xp 00000000 00:00 0", 31, &m) == 0);
	CHECK(m.path[0] == '\0');
	/* Junk lines are skipped by the lookups. */
	const char *t = "garbage\n1000-2000 r-xp 00000000 00:00 0 /a\n";

	CHECK(procmaps_find_text(t, strlen(t), 0x1800, &m) == 1);
	CHECK_STR(m.path, "/a");
}

void run_procmaps_tests(void)
{
	RUN(test_find_text);
	RUN(test_find_file_and_pid);
	RUN(test_bad_lines);
}
