/* testcore.c -- synthetic aarch64 cores and glibc-like heaps (testcore.h). */
#include "testcore.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#ifndef PT_AARCH64_MEMTAG_MTE
#define PT_AARCH64_MEMTAG_MTE 0x70000002
#endif

struct buf {
	unsigned char *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = 2 * (b->n + n) + 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void put_le(struct buf *b, uint64_t v, int n)
{
	unsigned char x[8];

	for (int i = 0; i < n; i++)
		x[i] = (unsigned char)(v >> (8 * i));
	put(b, x, (size_t)n);
}

static void set_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void note(struct buf *b, uint32_t type, const unsigned char *desc, uint32_t descsz)
{
	static const unsigned char zero[4];

	put_le(b, 5, 4);
	put_le(b, descsz, 4);
	put_le(b, type, 4);
	put(b, "CORE\0\0\0", 8);
	put(b, desc, descsz);
	put(b, zero, (4 - descsz % 4) % 4);
}

unsigned char *testcore_build(const struct tc_seg *segs, size_t n, pid_t pid, pid_t tid,
			      uint64_t si_addr, size_t *len)
{
	return testcore_build_thread(segs, n, pid, tid, si_addr, NULL, NULL, 0, len);
}

unsigned char *testcore_build_thread(const struct tc_seg *segs, size_t n, pid_t pid, pid_t tid,
				     uint64_t si_addr, const uint64_t *regs,
				     const struct tc_file *files, size_t n_files, size_t *len)
{
	struct buf notes = { 0 }, out = { 0 }, nt_file = { 0 };
	unsigned char prstatus[392] = { 0 }, prpsinfo[136] = { 0 }, siginfo[128] = { 0 };
	size_t ntag = 0, nph, off;

	set_le(prstatus + 12, 11, 2); /* pr_cursig SIGSEGV */
	set_le(prstatus + 32, (uint64_t)tid, 4);
	/* pr_reg: x0-x30, sp, pc, pstate */
	for (int i = 0; regs && i < 34; i++)
		set_le(prstatus + 112 + 8 * i, regs[i], 8);
	set_le(prpsinfo + 24, (uint64_t)pid, 4);
	memcpy(prpsinfo + 40, "mtebug", 6);
	set_le(siginfo, 11, 4);
	set_le(siginfo + 8, 9, 4); /* SEGV_MTESERR */
	set_le(siginfo + 16, si_addr, 8);
	note(&notes, NT_PRSTATUS, prstatus, sizeof(prstatus));
	note(&notes, NT_PRPSINFO, prpsinfo, sizeof(prpsinfo));
	note(&notes, NT_SIGINFO, siginfo, sizeof(siginfo));
	if (n_files) {
		put_le(&nt_file, n_files, 8);
		put_le(&nt_file, 4096, 8);
		for (size_t i = 0; i < n_files; i++) {
			put_le(&nt_file, files[i].start, 8);
			put_le(&nt_file, files[i].end, 8);
			put_le(&nt_file, files[i].pgoff / 4096, 8);
		}
		for (size_t i = 0; i < n_files; i++)
			put(&nt_file, files[i].path, strlen(files[i].path) + 1);
		note(&notes, NT_FILE, nt_file.p, (uint32_t)nt_file.n);
		free(nt_file.p);
	}
	for (size_t i = 0; i < n; i++)
		ntag += segs[i].tags != NULL;
	nph = 1 + n + ntag;

	/* ELF header */
	unsigned char ident[16] = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT };

	put(&out, ident, 16);
	put_le(&out, ET_CORE, 2);
	put_le(&out, EM_AARCH64, 2);
	put_le(&out, EV_CURRENT, 4);
	put_le(&out, 0, 8);  /* entry */
	put_le(&out, 64, 8); /* phoff */
	put_le(&out, 0, 8);  /* shoff */
	put_le(&out, 0, 4);  /* flags */
	put_le(&out, 64, 2);
	put_le(&out, 56, 2);
	put_le(&out, nph, 2);
	put_le(&out, 64, 2);
	put_le(&out, 0, 2);
	put_le(&out, 0, 2);

	off = 64 + 56 * nph;
	/* PT_NOTE */
	put_le(&out, PT_NOTE, 4);
	put_le(&out, 0, 4);
	put_le(&out, off, 8);
	put_le(&out, 0, 8);
	put_le(&out, 0, 8);
	put_le(&out, notes.n, 8);
	put_le(&out, 0, 8);
	put_le(&out, 0, 8);
	off += notes.n;
	for (size_t i = 0; i < n; i++) {
		put_le(&out, PT_LOAD, 4);
		put_le(&out, PF_R | PF_W, 4);
		put_le(&out, off, 8);
		put_le(&out, segs[i].vaddr, 8);
		put_le(&out, 0, 8);
		put_le(&out, segs[i].size, 8);
		put_le(&out, segs[i].size, 8);
		put_le(&out, 0x1000, 8);
		off += segs[i].size;
	}
	for (size_t i = 0; i < n; i++) {
		if (!segs[i].tags)
			continue;
		put_le(&out, PT_AARCH64_MEMTAG_MTE, 4);
		put_le(&out, 0, 4);
		put_le(&out, off, 8);
		put_le(&out, segs[i].vaddr, 8);
		put_le(&out, 0, 8);
		put_le(&out, segs[i].size / 32, 8);
		put_le(&out, segs[i].size, 8);
		put_le(&out, 0, 8);
		off += segs[i].size / 32;
	}
	put(&out, notes.p, notes.n);
	for (size_t i = 0; i < n; i++)
		put(&out, segs[i].mem, segs[i].size);
	for (size_t i = 0; i < n; i++) {
		if (!segs[i].tags)
			continue;
		for (size_t g = 0; g < segs[i].size / 16; g += 2) {
			unsigned char byte = (unsigned char)((segs[i].tags[g] & 0xf) | (segs[i].tags[g + 1] & 0xf) << 4);

			put(&out, &byte, 1);
		}
	}
	free(notes.p);
	*len = out.n;
	return out.p;
}

void heap_init(struct tc_heap *h, uint64_t base, size_t size)
{
	h->base = base;
	h->size = size;
	h->mem = calloc(1, size);
	h->tags = calloc(1, size / 16);
	if (!h->mem || !h->tags)
		abort();
}

void heap_free_all(struct tc_heap *h)
{
	free(h->mem);
	free(h->tags);
}

void heap_put64(struct tc_heap *h, uint64_t addr, uint64_t v)
{
	set_le(h->mem + (addr - h->base), v, 8);
}

void heap_tag(struct tc_heap *h, uint64_t addr, size_t len, int tag)
{
	for (uint64_t a = addr; a < addr + len; a += 16)
		h->tags[(a - h->base) / 16] = (unsigned char)tag;
}

uint64_t heap_chunk(struct tc_heap *h, uint64_t chunk, uint64_t csize, unsigned flags, int tag)
{
	heap_put64(h, chunk, 0);
	heap_put64(h, chunk + 8, csize | flags);
	heap_tag(h, chunk, 16, 0);
	heap_tag(h, chunk + 16, csize - 16, tag);
	memset(h->mem + (chunk + 16 - h->base), tag ? 'a' + tag : 0, csize - 16);
	return chunk + 16;
}

void heap_tcache_free(struct tc_heap *h, uint64_t user)
{
	uint64_t size;

	memcpy(&size, h->mem + (user - 8 - h->base), 8);
	heap_tag(h, user, (size & ~7ULL) - 16, 0);
	heap_put64(h, user, 0);                       /* e->next */
	heap_put64(h, user + 8, 0x5ca1ab1e0ddba11ULL); /* e->key */
}
