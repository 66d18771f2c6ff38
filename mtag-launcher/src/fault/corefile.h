/* SPDX-License-Identifier: GPL-2.0-or-later */
/* corefile.h -- read an ELF64 little-endian aarch64 core dump: its memory
 * (PT_LOAD) and MTE allocation tags (PT_AARCH64_MEMTAG_MTE, Linux 5.18+).
 *
 * A tag segment has the p_vaddr and p_memsz of the PT_LOAD it describes
 * and p_filesz = (dumped bytes) / 32: two 4-bit tags a byte, the low
 * nibble for the lower granule.  The file is mapped read-only and every
 * access is bounds-checked: a truncated core reads as memory and tags
 * that are not there.
 */
#ifndef MTAG_COREFILE_H
#define MTAG_COREFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cause.h"

#ifndef PT_AARCH64_MEMTAG_MTE
#define PT_AARCH64_MEMTAG_MTE 0x70000002
#endif

struct core_seg {
	uint64_t vaddr, memsz;  /* [vaddr, vaddr + memsz) */
	uint64_t offset, filesz; /* in the file, as the header says */
};

struct corefile {
	const unsigned char *map; /* the whole file */
	size_t size;
	struct core_seg *load;
	size_t n_load;
	struct core_seg *tags;    /* PT_AARCH64_MEMTAG_MTE */
	size_t n_tags;
	pid_t pid;                /* NT_PRPSINFO pr_pid, 0: none */
	pid_t tid;                /* first NT_PRSTATUS pr_pid (the dumping thread) */
	int signo, si_code;       /* NT_SIGINFO, 0: none */
	uint64_t si_addr;
	uint64_t nt_file_off;     /* NT_FILE's descriptor in the file, 0: none */
	uint64_t nt_file_len;
	bool truncated;           /* a segment reaches past the end of the file */
	bool mapped;              /* map is ours to munmap() */
};

/* Open and check the core; 0 or -errno (-ENOEXEC: not an ELF64 LE
 * aarch64 core).  core_close() frees what core_open*() set up. */
int core_open(struct corefile *c, const char *path);
int core_open_fd(struct corefile *c, int fd);
/* Over a buffer the caller keeps alive (tests, fuzzing). */
int core_open_mem(struct corefile *c, const void *data, size_t size);
void core_close(struct corefile *c);

/* Allocation tag of the granule holding untagged ADDR, or MTE_TAG_UNKNOWN
 * (no tag segment covers it, or the file ends before). */
int core_tag(const struct corefile *c, uint64_t addr);
/* Copy N bytes at ADDR (untagged): 0, or -1 when any byte is not in the
 * file. */
int core_read(const struct corefile *c, uint64_t addr, void *buf, size_t n);
/* Whether the core has any tag segment. */
bool core_has_tags(const struct corefile *c);

/* The file mapping that holds ADDR, from the core's NT_FILE note (the
 * kernel's list of the process's file mappings): [START, END), PGOFF the
 * file offset of START in bytes, PATH (the kernel's bytes, any but NUL:
 * escape before printing; cut to LEN).  1, 0 when no mapping holds ADDR
 * or the note is missing or malformed. */
struct core_mapping {
	uint64_t start, end, pgoff;
	char path[1024];
};
int core_mapping_of(const struct corefile *c, uint64_t addr, struct core_mapping *m);

/* The mte_mem_view for mte_classify(), valid while C is open. */
void core_mem_view(const struct corefile *c, struct mte_mem_view *v);

#endif
