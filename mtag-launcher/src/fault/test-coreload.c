/* test-coreload.c -- reading a stored core without trusting its path:
 * only a regular "core.*" file directly in the coredump directory, no
 * symlink, no FIFO or device, capped before and after zstd. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "coreload.h"
#include "corefile.h"
#include "testcore.h"
#include "unit.h"

static char dir[64];

static void put(const char *name, const void *d, size_t n)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, d, n) != (ssize_t)n)
		abort();
	close(fd);
}

static int load(const char *name, uint64_t max, void **d, size_t *n, char *why)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return core_load(dir, p, max, d, n, why, 256);
}

static unsigned char *a_core(size_t *len)
{
	static unsigned char mem[0x100], tags[16];
	struct tc_seg seg = { 0xffff9a000000ULL, sizeof(mem), mem, tags };

	memset(mem, 0x5a, sizeof(mem));
	memset(tags, 3, sizeof(tags));
	return testcore_build(&seg, 1, 4242, 4243, 0x0300ffff9a000010ULL, len);
}

static void test_plain_and_zstd(void)
{
	size_t len, zlen, n;
	unsigned char *core = a_core(&len);
	size_t bound = ZSTD_compressBound(len);
	void *z = malloc(bound), *d;
	char why[256];
	struct corefile c;

	zlen = ZSTD_compress(z, bound, core, len, 3);
	CHECK(!ZSTD_isError(zlen));
	put("core.nginx.33.b.402.1.zst", z, zlen);
	put("core.nginx.33.b.403.1", core, len);

	CHECK(load("core.nginx.33.b.402.1.zst", CORE_LOAD_MAX, &d, &n, why) == 0);
	CHECK(n == len && memcmp(d, core, len) == 0);
	CHECK(core_open_mem(&c, d, n) == 0 && c.pid == 4242);
	core_close(&c);
	free(d);
	CHECK(load("core.nginx.33.b.403.1", CORE_LOAD_MAX, &d, &n, why) == 0);
	CHECK(n == len && memcmp(d, core, len) == 0);
	free(d);
	/* Cut short: an error, not a partial core. */
	put("core.cut.zst", z, zlen / 2);
	CHECK(load("core.cut.zst", CORE_LOAD_MAX, &d, &n, why) == -EBADMSG);
	CHECK(strstr(why, "damaged") != NULL && d == NULL);
	free(z);
	free(core);
}

static void test_bomb(void)
{
	/* 4 MiB of zeros compress to a few hundred bytes: capped at 1 MiB. */
	size_t big = 4u << 20, bound = ZSTD_compressBound(big), zlen, n;
	unsigned char *zeros = calloc(1, big), *z = malloc(bound);
	void *d;
	char why[256];

	zlen = ZSTD_compress(z, bound, zeros, big, 19);
	CHECK(!ZSTD_isError(zlen) && zlen < 4096);
	put("core.bomb.zst", z, zlen);
	CHECK(load("core.bomb.zst", 1u << 20, &d, &n, why) == -EFBIG);
	CHECK(strstr(why, "larger than 1 MiB") != NULL);
	put("core.big", zeros, 2u << 20);
	CHECK(load("core.big", 1u << 20, &d, &n, why) == -EFBIG);
	/* Exactly at the cap is fine. */
	CHECK(load("core.big", 2u << 20, &d, &n, why) == 0 && n == (2u << 20));
	free(d);
	free(zeros);
	free(z);
}

static void test_refused_paths(void)
{
	char p[256], why[256];
	void *d;
	size_t n;

	CHECK(core_load(dir, "/dev/zero", CORE_LOAD_MAX, &d, &n, why, sizeof(why)) == -EPERM);
	CHECK(strstr(why, "not a core file directly in") != NULL);
	snprintf(p, sizeof(p), "%s/../core.x", dir);
	CHECK(core_load(dir, p, CORE_LOAD_MAX, &d, &n, why, sizeof(why)) == -EPERM);
	snprintf(p, sizeof(p), "%s/sub/core.x", dir);
	CHECK(core_load(dir, p, CORE_LOAD_MAX, &d, &n, why, sizeof(why)) == -EPERM);
	snprintf(p, sizeof(p), "%s/notacore", dir);
	CHECK(core_load(dir, p, CORE_LOAD_MAX, &d, &n, why, sizeof(why)) == -EPERM);
	/* A symlink to a device or to a secret. */
	snprintf(p, sizeof(p), "%s/core.link.zst", dir);
	CHECK(symlink("/dev/zero", p) == 0);
	CHECK(load("core.link.zst", CORE_LOAD_MAX, &d, &n, why) == -ELOOP);
	CHECK(strstr(why, "symbolic link") != NULL);
	/* A FIFO nobody writes to: refused at once, not a hang. */
	snprintf(p, sizeof(p), "%s/core.fifo", dir);
	CHECK(mkfifo(p, 0600) == 0);
	CHECK(load("core.fifo", CORE_LOAD_MAX, &d, &n, why) == -EPERM);
	CHECK(strstr(why, "not a regular file") != NULL);
	CHECK(load("core.missing", CORE_LOAD_MAX, &d, &n, why) == -ENOENT);
	put("core.x.xz", "x", 1);
	CHECK(load("core.x.xz", CORE_LOAD_MAX, &d, &n, why) == -ENOTSUP);
	CHECK(strstr(why, "xz") != NULL);
}

static void test_dir_symlink(void)
{
	char link[128], p[256], why[256];
	void *d;
	size_t n;

	/* The directory itself must not be a symlink either. */
	snprintf(link, sizeof(link), "%s-link", dir);
	CHECK(symlink(dir, link) == 0);
	snprintf(p, sizeof(p), "%s/core.nginx.33.b.403.1", link);
	CHECK(core_load(link, p, CORE_LOAD_MAX, &d, &n, why, sizeof(why)) < 0);
	unlink(link);
}

void run_coreload_tests(void)
{
	snprintf(dir, sizeof(dir), "/tmp/mtag-coreload.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	RUN(test_plain_and_zstd);
	RUN(test_bomb);
	RUN(test_refused_paths);
	RUN(test_dir_symlink);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", dir);
	}
}
