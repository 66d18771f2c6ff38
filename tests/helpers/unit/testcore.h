/* testcore.h -- synthetic aarch64 core dumps for the tests: PT_LOAD
 * segments, their PT_AARCH64_MEMTAG_MTE tag segments, and a glibc-like
 * heap (with tagging: 16-byte chunk headers at tag 0, the usable size of
 * a chunk is its size - 16, malloc(32) is a 48-byte chunk). */
#ifndef MTAG_TESTCORE_H
#define MTAG_TESTCORE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tc_seg {
	uint64_t vaddr;
	size_t size;                /* bytes, a multiple of 32 */
	const unsigned char *mem;   /* SIZE bytes */
	const unsigned char *tags;  /* SIZE/16 tags, one a byte; NULL: no tag segment */
};

/* A core (malloc'ed, *LEN bytes) with a PT_NOTE (NT_PRSTATUS of TID,
 * NT_PRPSINFO of PID, NT_SIGINFO SIGSEGV/SEGV_MTESERR at SI_ADDR) and
 * the segments. */
unsigned char *testcore_build(const struct tc_seg *segs, size_t n, pid_t pid, pid_t tid,
			      uint64_t si_addr, size_t *len);

/* A file mapping of the NT_FILE note. */
struct tc_file {
	uint64_t start, end, pgoff; /* PGOFF: bytes, a multiple of 4096 */
	const char *path;
};

/* The same, with the thread's registers REGS (34: x0-x30, sp, pc,
 * pstate; NULL: zero) and an NT_FILE note of FILES (none when N_FILES is
 * 0). */
unsigned char *testcore_build_thread(const struct tc_seg *segs, size_t n, pid_t pid, pid_t tid,
				     uint64_t si_addr, const uint64_t *regs,
				     const struct tc_file *files, size_t n_files, size_t *len);

/* A heap: BASE..BASE+SIZE, memory and one tag per granule. */
struct tc_heap {
	uint64_t base;
	size_t size;
	unsigned char *mem;
	unsigned char *tags;
};

void heap_init(struct tc_heap *h, uint64_t base, size_t size);
void heap_free_all(struct tc_heap *h);
void heap_put64(struct tc_heap *h, uint64_t addr, uint64_t v);
void heap_tag(struct tc_heap *h, uint64_t addr, size_t len, int tag);
/* A chunk at CHUNK of CSIZE bytes: header (prev_size 0, size CSIZE|FLAGS)
 * at tag 0; usable memory tagged TAG (0: a free chunk).  Returns the
 * user address. */
uint64_t heap_chunk(struct tc_heap *h, uint64_t chunk, uint64_t csize, unsigned flags, int tag);
/* free() into the tcache: retag to 0, write the tcache next/key words. */
void heap_tcache_free(struct tc_heap *h, uint64_t user);

#endif
