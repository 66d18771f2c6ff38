/* test-corefile.c -- ELF core reading: segments, tag nibbles, notes,
 * bounds. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corefile.h"
#include "testcore.h"
#include "unit.h"

#define B 0xffff9a000000ULL

static unsigned char *two_segments(size_t *len, unsigned char *mem, unsigned char *tags)
{
	struct tc_seg segs[2] = {
		{ B + 0x1000, 0x100, mem + 0x100, NULL },
		{ B, 0x100, mem, tags },
	};

	for (int i = 0; i < 0x200; i++)
		mem[i] = (unsigned char)i;
	for (int g = 0; g < 16; g++)
		tags[g] = (unsigned char)(g ^ 5);
	return testcore_build(segs, 2, 4242, 4243, 0x0300aaaad5a212d0ULL, len);
}

static void test_open_mem(void)
{
	unsigned char mem[0x200], tags[16], buf[32];
	size_t len;
	unsigned char *d = two_segments(&len, mem, tags);
	struct corefile c;

	CHECK(core_open_mem(&c, d, len) == 0);
	CHECK(c.n_load == 2 && c.n_tags == 1 && core_has_tags(&c) && !c.truncated);
	CHECK(c.load[0].vaddr == B); /* sorted */
	CHECK(c.pid == 4242 && c.tid == 4243);
	CHECK(c.signo == 11 && c.si_code == 9 && c.si_addr == 0x0300aaaad5a212d0ULL);
	/* Low nibble: the lower granule. */
	for (int g = 0; g < 16; g++)
		CHECK(core_tag(&c, B + (uint64_t)g * 16 + 7) == (g ^ 5));
	CHECK(core_tag(&c, B + 0x100) == MTE_TAG_UNKNOWN);
	CHECK(core_tag(&c, B + 0x1000) == MTE_TAG_UNKNOWN); /* no tag segment */
	CHECK(core_tag(&c, B - 1) == MTE_TAG_UNKNOWN);
	CHECK(core_read(&c, B + 0xf0, buf, 16) == 0 && buf[0] == 0xf0 && buf[15] == 0xff);
	CHECK(core_read(&c, B + 0xf8, buf, 16) == -1); /* runs off the segment */
	CHECK(core_read(&c, B + 0x1010, buf, 4) == 0 && buf[0] == 0x10);
	CHECK(core_read(&c, 0, buf, 1) == -1);
	CHECK(core_read(&c, UINT64_MAX, buf, 2) == -1);
	CHECK(core_read(&c, B, buf, 0) == 0);

	struct mte_mem_view v;

	core_mem_view(&c, &v);
	CHECK(v.tag(v.ctx, B + 0x20) == 7 && v.read(v.ctx, B + 1, buf, 1) == 0 && buf[0] == 1);
	core_close(&c);

	/* Truncated: what is left reads, the rest does not. */
	CHECK(core_open_mem(&c, d, len - 4) == 0);
	CHECK(c.truncated);
	CHECK(core_tag(&c, B) == 5 && core_tag(&c, B + 0xf0) == MTE_TAG_UNKNOWN);
	core_close(&c);
	free(d);
}

static void test_open_file(void)
{
	unsigned char mem[0x200], tags[16];
	size_t len;
	unsigned char *d = two_segments(&len, mem, tags);
	char path[512];
	struct corefile c;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/core.4242", tmpdir());
	f = fopen(path, "w");
	CHECK(f && fwrite(d, 1, len, f) == len);
	fclose(f);
	free(d);
	CHECK(core_open(&c, path) == 0);
	CHECK(c.pid == 4242 && core_tag(&c, B + 0x10) == 4);
	core_close(&c);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	CHECK(core_open_fd(&c, fd) == 0);
	close(fd); /* the mapping stays */
	CHECK(core_tag(&c, B + 0x30) == 6);
	core_close(&c);
	CHECK(core_open(&c, "/nonexistent/core") == -ENOENT);
	CHECK(core_open(&c, tmpdir()) == -ENOEXEC);
	snprintf(path, sizeof(path), "%s/empty-core", tmpdir());
	write_file(path, "");
	CHECK(core_open(&c, path) == -ENOEXEC);
	core_close(&c); /* harmless after a failure */
}

static void test_not_a_core(void)
{
	unsigned char mem[0x200], tags[16];
	size_t len;
	unsigned char *d = two_segments(&len, mem, tags);
	unsigned char *x = malloc(len);
	struct corefile c;

	memcpy(x, d, len);
	x[18] = EM_X86_64;
	CHECK(core_open_mem(&c, x, len) == -ENOEXEC);
	memcpy(x, d, len);
	x[16] = ET_EXEC;
	CHECK(core_open_mem(&c, x, len) == -ENOEXEC);
	memcpy(x, d, len);
	x[EI_CLASS] = ELFCLASS32;
	CHECK(core_open_mem(&c, x, len) == -ENOEXEC);
	memcpy(x, d, len);
	x[56] = 0xff; /* phnum past the end */
	CHECK(core_open_mem(&c, x, len) == -ENOEXEC);
	CHECK(core_open_mem(&c, d, 63) == -ENOEXEC);
	/* Headers only: segments all beyond the end. */
	CHECK(core_open_mem(&c, d, 64 + 56 * 4) == 0);
	CHECK(c.truncated && core_tag(&c, B) == MTE_TAG_UNKNOWN);
	core_close(&c);
	/* A segment with a huge offset: no overflow, just absent. */
	memcpy(x, d, len);
	for (int i = 0; i < 8; i++)
		x[64 + 56 * 3 + 8 + i] = 0xff;
	CHECK(core_open_mem(&c, x, len) == 0);
	CHECK(core_tag(&c, B) == MTE_TAG_UNKNOWN);
	core_close(&c);
	free(x);
	free(d);
}

/* NT_FILE: the mapping of an address, and a note that lies about its
 * size, its count, its page size or its names reads as no mapping. */
static void test_nt_file(void)
{
	static const struct tc_file files[] = {
		{ 0x400000, 0x480000, 0, "/usr/sbin/nginx" },
		{ 0x490000, 0x4a0000, 0x90000, "/usr/sbin/nginx" },
		{ 0x7f0000000, 0x7f0010000, 0x2000, "/lib/libc.so.6" },
	};
	unsigned char mem[32] = { 0 };
	struct tc_seg seg = { 0x1000, sizeof(mem), mem, NULL };
	struct core_mapping m;
	struct corefile c;
	size_t len;
	unsigned char *d = testcore_build_thread(&seg, 1, 1, 1, 0, NULL, files, 3, &len), *count = NULL;

	CHECK(core_open_mem(&c, d, len) == 0);
	CHECK(core_mapping_of(&c, 0x400000, &m) == 1 && m.start == 0x400000 && m.pgoff == 0);
	CHECK_STR(m.path, "/usr/sbin/nginx");
	CHECK(core_mapping_of(&c, 0x49ffff, &m) == 1 && m.pgoff == 0x90000 && m.end == 0x4a0000);
	CHECK(core_mapping_of(&c, 0x7f0000010, &m) == 1 && m.pgoff == 0x2000);
	CHECK_STR(m.path, "/lib/libc.so.6");
	CHECK(core_mapping_of(&c, 0x480000, &m) == 0);  /* between mappings */
	CHECK(core_mapping_of(&c, 0x7f0010000, &m) == 0); /* END is past it */
	/* The note's count: where the descriptor starts (after "CORE"). */
	for (size_t i = 0; i + 24 < len && !count; i++)
		if (memcmp(d + i, "CORE\0\0\0\0\3\0\0\0\0\0\0\0\0\x10\0\0", 20) == 0)
			count = d + i + 8;
	CHECK(count != NULL);
	if (count) {
		count[0] = 200;                          /* more entries than fit */
		CHECK(core_mapping_of(&c, 0x400000, &m) == 0);
		count[0] = 3;
		count[9] = 0;                            /* page size 0 */
		CHECK(core_mapping_of(&c, 0x400000, &m) == 0);
		count[9] = 0x10;
		/* The last name without its NUL: the names run off the note. */
		CHECK(d[c.nt_file_off + c.nt_file_len - 1] == '\0');
		d[c.nt_file_off + c.nt_file_len - 1] = 'x';
		CHECK(core_mapping_of(&c, 0x7f0000010, &m) == 0);
		CHECK(core_mapping_of(&c, 0x400000, &m) == 1); /* the first is read before */
		d[c.nt_file_off + c.nt_file_len - 1] = '\0';
		c.nt_file_len = 15;                      /* shorter than its header */
		CHECK(core_mapping_of(&c, 0x400000, &m) == 0);
	}
	core_close(&c);
	free(d);
	/* No NT_FILE at all. */
	d = testcore_build(&seg, 1, 1, 1, 0, &len);
	CHECK(core_open_mem(&c, d, len) == 0 && core_mapping_of(&c, 0x1000, &m) == 0);
	core_close(&c);
	free(d);
}

void run_corefile_tests(void)
{
	RUN(test_open_mem);
	RUN(test_nt_file);
	RUN(test_open_file);
	RUN(test_not_a_core);
}
