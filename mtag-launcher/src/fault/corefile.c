/* SPDX-License-Identifier: GPL-2.0-or-later */
/* corefile.c -- ELF64 aarch64 core dumps: memory and MTE tags. */
#include "corefile.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The headers are read through <elf.h>'s Elf64_* structs, copied out of
 * the file (no alignment is assumed), after the same bounds checks as
 * before: only a little-endian host reads a little-endian core so. */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "corefile.c reads ELFDATA2LSB headers into host structs: a little-endian host only"
#endif
_Static_assert(sizeof(Elf64_Ehdr) == 64 && sizeof(Elf64_Phdr) == 56 &&
	       sizeof(Elf64_Shdr) == 64 && sizeof(Elf64_Nhdr) == 12, "ELF64 header sizes");

#define GRANULE 16u
#define MAX_PHNUM (1u << 20)
/* Fields of the aarch64 kernel's note descriptors (not in <elf.h>, and
 * <sys/procfs.h> describes the host's): struct elf_prstatus's pr_pid,
 * struct elf_prpsinfo's pr_pid, siginfo_t's si_signo, si_code, si_addr. */
#define PRSTATUS_PID 32
#define PRPSINFO_PID 24
#define SIGINFO_SIGNO 0
#define SIGINFO_CODE 8
#define SIGINFO_ADDR 16

/* N bytes at P, little-endian (note descriptors). */
static uint64_t le(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* Whether [off, off+n) is inside the file. */
static bool in_file(const struct corefile *c, uint64_t off, uint64_t n)
{
	return off <= c->size && n <= c->size - off;
}

static int seg_cmp(const void *a, const void *b)
{
	const struct core_seg *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* The segment of V (sorted) holding ADDR, or NULL. */
static const struct core_seg *find_seg(const struct core_seg *v, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].vaddr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* v[lo-1] is the last one starting at or before ADDR; overlapping
	 * segments (not in kernel cores) are looked at backwards. */
	for (size_t i = lo; i-- > 0;) {
		if (addr - v[i].vaddr < v[i].memsz)
			return &v[i];
		if (i + 8 < lo)
			break;
	}
	return NULL;
}

static void parse_notes(struct corefile *c, uint64_t off, uint64_t len)
{
	uint64_t end;

	if (!in_file(c, off, 0))
		return;
	if (len > c->size - off)
		len = c->size - off;
	end = off + len;
	while (end - off >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		uint64_t namesz, descsz, type, name_off, desc_off, next;
		const unsigned char *d;

		memcpy(&nh, c->map + off, sizeof(nh));
		namesz = nh.n_namesz;
		descsz = nh.n_descsz;
		type = nh.n_type;
		name_off = off + sizeof(nh);
		desc_off = name_off + ((namesz + 3) & ~3ULL);
		next = desc_off + ((descsz + 3) & ~3ULL);

		if (desc_off > end || next > end || descsz > end - desc_off)
			break;
		d = c->map + desc_off;
		if (namesz == 5 && memcmp(c->map + name_off, "CORE", 5) == 0) {
			if (type == NT_PRSTATUS && descsz >= PRSTATUS_PID + 4 && !c->tid)
				c->tid = (pid_t)le(d + PRSTATUS_PID, 4);
			else if (type == NT_PRPSINFO && descsz >= PRPSINFO_PID + 4 && !c->pid)
				c->pid = (pid_t)le(d + PRPSINFO_PID, 4);
			else if (type == NT_FILE && !c->nt_file_off) {
				c->nt_file_off = desc_off;
				c->nt_file_len = descsz;
			} else if (type == NT_SIGINFO && descsz >= SIGINFO_ADDR + 8 && !c->signo) {
				c->signo = (int)le(d + SIGINFO_SIGNO, 4);
				c->si_code = (int)le(d + SIGINFO_CODE, 4);
				c->si_addr = le(d + SIGINFO_ADDR, 8);
			}
		}
		off = next;
	}
}

int core_open_mem(struct corefile *c, const void *data, size_t size)
{
	Elf64_Ehdr eh;
	uint64_t phoff, phnum, phentsize;

	memset(c, 0, sizeof(*c));
	c->map = data;
	c->size = size;
	if (size < sizeof(eh))
		return -ENOEXEC;
	memcpy(&eh, c->map, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_type != ET_CORE || eh.e_machine != EM_AARCH64)
		return -ENOEXEC;
	phoff = eh.e_phoff;
	phentsize = eh.e_phentsize;
	phnum = eh.e_phnum;
	if (phnum == PN_XNUM) {
		Elf64_Shdr sh0;

		if (!in_file(c, eh.e_shoff, sizeof(sh0)))
			return -ENOEXEC;
		memcpy(&sh0, c->map + eh.e_shoff, sizeof(sh0));
		phnum = sh0.sh_info;
	}
	if (phentsize < sizeof(Elf64_Phdr) || phnum > MAX_PHNUM || !in_file(c, phoff, phnum * phentsize))
		return -ENOEXEC;
	c->load = calloc(phnum ? phnum : 1, sizeof(*c->load));
	c->tags = calloc(phnum ? phnum : 1, sizeof(*c->tags));
	if (!c->load || !c->tags) {
		core_close(c);
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < phnum; i++) {
		Elf64_Phdr ph;
		uint64_t type;
		struct core_seg s;

		memcpy(&ph, c->map + phoff + i * phentsize, sizeof(ph));
		type = ph.p_type;
		s = (struct core_seg){
			.offset = ph.p_offset,
			.vaddr = ph.p_vaddr,
			.filesz = ph.p_filesz,
			.memsz = ph.p_memsz,
		};

		if (type == PT_NOTE) {
			parse_notes(c, s.offset, s.filesz);
			continue;
		}
		if (type != PT_LOAD && type != PT_AARCH64_MEMTAG_MTE)
			continue;
		if (s.memsz == 0 || s.vaddr + s.memsz < s.vaddr)
			continue; /* empty or wraps: ignored */
		if (!in_file(c, s.offset, s.filesz))
			c->truncated = true;
		if (type == PT_LOAD)
			c->load[c->n_load++] = s;
		else
			c->tags[c->n_tags++] = s;
	}
	qsort(c->load, c->n_load, sizeof(*c->load), seg_cmp);
	qsort(c->tags, c->n_tags, sizeof(*c->tags), seg_cmp);
	return 0;
}

int core_open_fd(struct corefile *c, int fd)
{
	struct stat st;
	void *m;
	int r;

	memset(c, 0, sizeof(*c));
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr))
		return -ENOEXEC;
	if ((uint64_t)st.st_size > SIZE_MAX)
		return -EFBIG;
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	r = core_open_mem(c, m, (size_t)st.st_size);
	if (r < 0) {
		munmap(m, (size_t)st.st_size);
		memset(c, 0, sizeof(*c));
		return r;
	}
	c->mapped = true;
	return 0;
}

int core_open(struct corefile *c, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	memset(c, 0, sizeof(*c));
	if (fd < 0)
		return -errno;
	r = core_open_fd(c, fd);
	close(fd);
	return r;
}

void core_close(struct corefile *c)
{
	if (c->mapped && c->map)
		munmap((void *)c->map, c->size);
	free(c->load);
	free(c->tags);
	memset(c, 0, sizeof(*c));
}

bool core_has_tags(const struct corefile *c)
{
	return c->n_tags > 0;
}

int core_tag(const struct corefile *c, uint64_t addr)
{
	const struct core_seg *s = find_seg(c->tags, c->n_tags, addr);
	uint64_t byte;

	if (!s)
		return MTE_TAG_UNKNOWN;
	byte = (addr - s->vaddr) / GRANULE / 2;
	if (byte >= s->filesz || !in_file(c, s->offset, byte + 1))
		return MTE_TAG_UNKNOWN;
	return (c->map[s->offset + byte] >> (((addr - s->vaddr) / GRANULE % 2) * 4)) & 0xf;
}

int core_read(const struct corefile *c, uint64_t addr, void *buf, size_t n)
{
	unsigned char *out = buf;

	while (n > 0) {
		const struct core_seg *s = find_seg(c->load, c->n_load, addr);
		uint64_t in, avail;

		if (!s)
			return -1;
		in = addr - s->vaddr;
		if (in >= s->filesz || !in_file(c, s->offset, in + 1))
			return -1;
		avail = s->filesz - in;
		if (avail > c->size - s->offset - in)
			avail = c->size - s->offset - in;
		if (avail > n)
			avail = n;
		memcpy(out, c->map + s->offset + in, avail);
		out += avail;
		n -= avail;
		addr += avail;
		if (n && addr == 0)
			return -1; /* wrapped */
	}
	return 0;
}

/* NT_FILE: count, page size, COUNT (start, end, offset in pages), then
 * COUNT NUL-terminated paths (the kernel's fill_files_note()). */
int core_mapping_of(const struct corefile *c, uint64_t addr, struct core_mapping *m)
{
	const unsigned char *d = c->map + c->nt_file_off;
	uint64_t len = c->nt_file_len, count, page, names;
	const unsigned char *p, *end;

	if (!c->nt_file_off || !in_file(c, c->nt_file_off, len) || len < 16)
		return 0;
	count = le(d, 8);
	page = le(d + 8, 8);
	if (count > (len - 16) / 24 || page == 0 || page > (1u << 30))
		return 0;
	names = 16 + 24 * count;
	p = d + names;
	end = d + len;
	for (uint64_t i = 0; i < count; i++) {
		const unsigned char *e = memchr(p, '\0', (size_t)(end - p));
		uint64_t start = le(d + 16 + 24 * i, 8), stop = le(d + 24 + 24 * i, 8);
		uint64_t pg = le(d + 32 + 24 * i, 8);

		if (!e)
			return 0;
		if (addr >= start && addr < stop && pg <= UINT64_MAX / page) {
			size_t l = (size_t)(e - p);

			if (l >= sizeof(m->path))
				l = sizeof(m->path) - 1;
			m->start = start;
			m->end = stop;
			m->pgoff = pg * page;
			memcpy(m->path, p, l);
			m->path[l] = '\0';
			return 1;
		}
		p = e + 1;
	}
	return 0;
}

static int view_tag(void *ctx, uint64_t addr)
{
	return core_tag(ctx, addr);
}

static int view_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	return core_read(ctx, addr, buf, n);
}

void core_mem_view(const struct corefile *c, struct mte_mem_view *v)
{
	v->tag = view_tag;
	v->read = view_read;
	v->ctx = (void *)c;
}
