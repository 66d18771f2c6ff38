/* test-jemallocid.c -- telling mtag's tagging libjemalloc2 from the
 * stock one, from a process's maps and the library file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jemallocid.h"
#include "unit.h"

static const char maps_fmt[] =
	"aaaab0b90000-aaaab0c6a000 r-xp 00000000 fe:01 1311843                    /usr/bin/redis-check-rdb\n"
	"ffff9c000000-ffff9c1a0000 r-xp 00000000 fe:01 2000                       /usr/lib/aarch64-linux-gnu/libc.so.6\n"
	"ffff9d000000-ffff9d060000 r-xp 00000000 fe:01 2001                       %s\n"
	"ffff9e000000-ffff9e400000 rw-p 00000000 00:00 0 \n";

/* ROOT/usr/lib/aarch64-linux-gnu/libjemalloc.so.2: SIZE bytes of filler,
 * the marker at offset AT (or none when AT < 0). */
static void make_lib(const char *root, size_t size, long at)
{
	char p[512];
	char *buf = malloc(size);
	FILE *f;

	CHECK(buf != NULL);
	memset(buf, 'j', size);
	if (at >= 0)
		memcpy(buf + at, JEMALLOC_MTAG_MARKER ": on", strlen(JEMALLOC_MTAG_MARKER) + 4);
	snprintf(p, sizeof(p), "mkdir -p %s/usr/lib/aarch64-linux-gnu", root);
	CHECK(system(p) == 0);
	snprintf(p, sizeof(p), "%s/usr/lib/aarch64-linux-gnu/libjemalloc.so.2", root);
	f = fopen(p, "w");
	CHECK(f != NULL);
	CHECK(fwrite(buf, 1, size, f) == size);
	fclose(f);
	free(buf);
}

static void test_kinds(void)
{
	char tmpl[] = "/tmp/mtag-jemallocid-XXXXXX", *root, maps[1024], path[256], cmd[600];
	const char *lib = "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2";

	root = mkdtemp(tmpl);
	CHECK(root != NULL);
	snprintf(maps, sizeof(maps), maps_fmt, lib);

	/* The marker across the reader's 64 KiB chunks. */
	make_lib(root, 200000, 65536 - 10);
	CHECK(jemalloc_kind_text(maps, strlen(maps), root, path, sizeof(path)) == JEMALLOC_MTAG);
	CHECK_STR(path, lib);
	make_lib(root, 100, 3);
	CHECK(jemalloc_kind_text(maps, strlen(maps), root, NULL, 0) == JEMALLOC_MTAG);
	/* Stock: no marker. */
	make_lib(root, 200000, -1);
	CHECK(jemalloc_kind_text(maps, strlen(maps), root, path, sizeof(path)) == JEMALLOC_STOCK);
	/* Unreadable counts as stock. */
	snprintf(cmd, sizeof(cmd), "rm -rf %s/usr", root);
	CHECK(system(cmd) == 0);
	CHECK(jemalloc_kind_text(maps, strlen(maps), root, NULL, 0) == JEMALLOC_STOCK);
	/* No jemalloc mapped (libjemallocfoo is not it, neither is a path
	 * that only contains the name). */
	snprintf(maps, sizeof(maps), maps_fmt, "/opt/libjemalloc.so.2.d/libfoo.so");
	CHECK(jemalloc_kind_text(maps, strlen(maps), root, path, sizeof(path)) == JEMALLOC_NONE);
	CHECK_STR(path, "");
	CHECK(jemalloc_kind_text("", 0, root, NULL, 0) == JEMALLOC_NONE);
	/* A process of ours: no jemalloc here. */
	CHECK(jemalloc_kind_pid("/proc", getpid(), NULL, 0) == JEMALLOC_NONE);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	CHECK(system(cmd) == 0);
}

void run_jemallocid_tests(void)
{
	RUN(test_kinds);
}
