/* test-coreframes.c -- the top frames from a core (coreframes.h): libdw
 * unwinds a synthetic aarch64 core by its frame records, each frame is
 * named by the NT_FILE mapping and the build-id in the object's first
 * page; the same stack at other addresses (ASLR, another host) names
 * the same frames; a malformed NT_FILE names none. */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bugid.h"
#include "corefile.h"
#include "coreframes.h"
#include "sha256.h"
#include "testcore.h"
#include "unit.h"

#define EXE "/nonexistent/mtag-test/sbin/nginx"
#define LIBC "/nonexistent/mtag-test/lib/libc.so.6"
#define EXE_ID "c89156ebdabf859f4ee70cb0c303004dccf1ae51"
#define LIBC_ID "0123456789abcdef0123456789abcdef01234567"

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* An object's first page: an ELF header, one PT_NOTE, the build-id note
 * (20 bytes, ID in hex). */
static void elf_head(unsigned char *page, const char *id)
{
	static const unsigned char ident[16] = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT };
	unsigned char *ph = page + 64, *n = page + 120;

	memset(page, 0, 4096);
	memcpy(page, ident, 16);
	page[16] = ET_DYN;
	page[18] = EM_AARCH64;
	page[20] = EV_CURRENT;
	put64(page + 32, 64);          /* e_phoff */
	page[52] = 64;                 /* e_ehsize */
	page[54] = 56;                 /* e_phentsize */
	page[56] = 1;                  /* e_phnum */
	page[58] = 64;                 /* e_shentsize */
	page[0x3c] = 30;               /* e_shnum: past the page, as in a real file */
	put64(page + 0x28, 0x123400);  /* e_shoff */
	ph[0] = PT_NOTE;
	ph[4] = PF_R;
	put64(ph + 8, 120);            /* p_offset */
	put64(ph + 16, 120);           /* p_vaddr */
	put64(ph + 32, 36);            /* p_filesz */
	put64(ph + 40, 36);            /* p_memsz */
	put64(ph + 48, 4);             /* p_align */
	n[0] = 4;                      /* namesz */
	n[4] = 20;                     /* descsz */
	n[8] = NT_GNU_BUILD_ID;
	memcpy(n + 12, "GNU", 4);
	for (int i = 0; i < 20; i++)
		sscanf(id + 2 * i, "%2hhx", &n[16 + i]);
}

struct host {
	uint64_t exe, libc, stack; /* where this host mapped them */
};

/* A core of a thread that faulted in libc at LIBC+0x12340 (a leaf: its
 * caller in x30), called from the executable at CALLER, reached from
 * two more frames of the executable by frame records on the stack.
 * NT_FILE as given, or a malformed one when BAD. */
static unsigned char *stack_core(const struct host *h, uint64_t caller, bool bad, size_t *len)
{
	static unsigned char exe_head[4096], libc_head[4096], stack[4096];
	uint64_t regs[34] = { 0 };
	struct tc_seg segs[] = {
		{ h->exe, sizeof(exe_head), exe_head, NULL },
		{ h->libc, sizeof(libc_head), libc_head, NULL },
		{ h->stack, sizeof(stack), stack, NULL },
	};
	struct tc_file files[] = {
		{ h->exe, h->exe + 0x80000, 0, EXE },
		{ h->libc, h->libc + 0x10000, 0, LIBC },
		{ h->libc + 0x10000, h->libc + 0x100000, 0x10000, LIBC },
	};
	unsigned char *core;

	elf_head(exe_head, EXE_ID);
	elf_head(libc_head, LIBC_ID);
	memset(stack, 0, sizeof(stack));
	put64(stack + 0x100, h->stack + 0x200);   /* fp0: the caller's record */
	put64(stack + 0x108, h->exe + 0x5678);
	put64(stack + 0x200, h->stack + 0x300);
	put64(stack + 0x208, h->exe + 0x9abc);
	regs[29] = h->stack + 0x100;
	regs[30] = h->exe + caller;
	regs[31] = h->stack + 0x80;
	regs[32] = h->libc + 0x12340;
	core = testcore_build_thread(segs, 3, 700, 701, 0, regs, files, 3, len);
	if (bad) /* NT_FILE's count made huge: the note is refused whole */
		for (size_t i = 0; i + 16 < *len; i++)
			if (memcmp(core + i, "CORE\0\0\0\0\3\0\0\0\0\0\0\0", 16) == 0)
				core[i + 8] = 0xff;
	return core;
}

static void test_frames(void)
{
	const struct host a = { 0xaaaab0b90000ULL, 0xffff9a000000ULL, 0xfffff0000000ULL };
	const struct host b = { 0xbbbbc0000000ULL, 0xffff81230000ULL, 0xffffe1234000ULL };
	struct bug_frame fa[4], fb[4];
	char ta[600], tb[600], sa[BUG_SIGNATURE_LEN + 1], sb[BUG_SIGNATURE_LEN + 1];
	const char *why = NULL;
	size_t len, used;
	unsigned char *core = stack_core(&a, 0x1238, false, &len);
	int n = core_frames(core, len, 0, fa, 4, &why);

	CHECK(n == 4);
	CHECK(fa[0].pc == a.libc + 0x12340 && fa[1].pc == a.exe + 0x1238 && fa[3].pc == a.exe + 0x9abc);
	CHECK_STR(fa[0].object, LIBC);
	CHECK(fa[0].offset == 0x12340);
	CHECK_STR(fa[0].build_id, LIBC_ID);
	CHECK_STR(fa[1].object, EXE);
	CHECK_STR(fa[2].build_id, EXE_ID);
	bug_frames_text(fa, (size_t)n, ta, sizeof(ta));
	CHECK_STR(ta, LIBC_ID "+0x12340 " EXE_ID "+0x1238 " EXE_ID "+0x5678 " EXE_ID "+0x9abc");
	free(core);

	/* Host b: the same program and stack at other addresses. */
	core = stack_core(&b, 0x1238, false, &len);
	CHECK(core_frames(core, len, 701, fb, 4, &why) == 4);
	bug_frames_text(fb, 4, tb, sizeof(tb));
	CHECK_STR(ta, tb);
	CHECK(fa[1].pc != fb[1].pc);
	CHECK(bug_stack_signature("cd8a789e7af629d4", fa, 4, sa, &used) && used == 3);
	CHECK(bug_stack_signature("cd8a789e7af629d4", fb, 4, sb, NULL));
	CHECK_STR(sa, sb);
	free(core);

	/* The same instruction reached from another caller: another stack. */
	core = stack_core(&b, 0x2000, false, &len);
	CHECK(core_frames(core, len, 0, fb, 4, &why) == 4);
	CHECK(fb[0].offset == fa[0].offset && fb[1].offset == 0x2000);
	CHECK(bug_stack_signature("cd8a789e7af629d4", fb, 4, sb, NULL) && strcmp(sa, sb) != 0);
	/* Fewer frames asked for: as many. */
	CHECK(core_frames(core, len, 0, fb, 2, &why) == 2 && fb[1].offset == 0x2000);
	free(core);

	/* A malformed NT_FILE names no frame, the unwinding still works. */
	core = stack_core(&a, 0x1238, true, &len);
	CHECK(core_frames(core, len, 0, fa, 4, &why) == 4);
	CHECK(fa[0].object[0] == '\0' && fa[1].build_id[0] == '\0' && fa[1].pc == a.exe + 0x1238);
	CHECK(!bug_stack_signature("cd8a789e7af629d4", fa, 4, sa, &used) && used == 0 && sa[0] == '\0');
	bug_frames_text(fa, 2, ta, sizeof(ta));
	CHECK_STR(ta, "? ?");
	/* Another thread than the core's: none. */
	why = NULL;
	CHECK(core_frames(core, len, 9999, fa, 4, &why) < 0 && why);
	free(core);

	/* Not a core. */
	why = NULL;
	CHECK(core_frames(ta, sizeof(ta), 0, fa, 4, &why) == -ENOEXEC && why);
}

static void test_stack_signature(void)
{
	struct bug_frame fr[4];
	char s[BUG_SIGNATURE_LEN + 1], hex[65];
	static const char in[] = "mtag-stack-v1\0cd8a789e7af629d4\0" EXE_ID "\0" "1238\0" EXE_ID "\0" "5678\0";
	size_t used;

	memset(fr, 0, sizeof(fr));
	for (int i = 0; i < 4; i++) {
		snprintf(fr[i].object, sizeof(fr[i].object), "%s", EXE);
		snprintf(fr[i].build_id, sizeof(fr[i].build_id), "%s", EXE_ID);
	}
	fr[0].offset = 0x12340;
	fr[1].offset = 0x1238;
	fr[2].offset = 0x5678;
	fr[3].build_id[0] = '\0'; /* the stack is named up to here */
	fr[3].offset = 0x9abc;
	/* bugid.h's definition, byte for byte: the pc is not in it (the
	 * signature is), the callers up to the first without a build-id. */
	CHECK(bug_stack_signature("cd8a789e7af629d4", fr, 4, s, &used) && used == 2);
	sha256_hex(in, sizeof(in) - 1, hex);
	CHECK(strncmp(s, hex, BUG_SIGNATURE_LEN) == 0);
	/* A deeper frame than BUG_CALLERS does not count. */
	fr[3].build_id[0] = 'a';
	CHECK(bug_stack_signature("cd8a789e7af629d4", fr, 4, hex, &used) && used == 3 && strcmp(hex, s) != 0);
	{
		struct bug_frame more[6];
		char x[BUG_SIGNATURE_LEN + 1], y[BUG_SIGNATURE_LEN + 1];

		memcpy(more, fr, sizeof(fr));
		more[4] = more[5] = fr[1];
		CHECK(bug_stack_signature("cd8a789e7af629d4", more, 4, x, NULL));
		more[4].offset = 0x4444;
		CHECK(bug_stack_signature("cd8a789e7af629d4", more, 6, y, &used) && used == BUG_CALLERS);
		CHECK_STR(x, y);
	}
	/* No signature, or only the pc: none. */
	CHECK(!bug_stack_signature("", fr, 4, s, NULL) && !s[0]);
	CHECK(!bug_stack_signature("cd8a789e7af629d4", fr, 1, s, NULL) && !s[0]);
}

void run_coreframes_tests(void)
{
	RUN(test_frames);
	RUN(test_stack_signature);
}
