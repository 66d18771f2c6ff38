/* SPDX-License-Identifier: GPL-2.0-or-later */
/* smaps.h -- how much of a process's anonymous memory is tagged: from
 * /proc/PID/smaps, the "Anonymous:" kB of every mapping summed, and of
 * those whose "VmFlags:" include "mt" (PROT_MTE).  smaps_rollup has no
 * VmFlags, so the full smaps is read.
 *
 * Two measures: all anonymous memory (the libraries' copy-on-write data
 * and [stack] included), and the malloc-able memory: the anonymous pages
 * of the mappings without a file ([heap], glibc's arenas and mmap'd
 * chunks, another allocator's regions; also .bss and thread stacks, which
 * smaps cannot tell apart).  Whether the heap is tagged is decided on the
 * second (smaps_heap_tagged), as the compatibility run's table does: a
 * small daemon's heap of 8 kB is tagged even when 200 kB of stack and
 * library data around it are not.
 */
#ifndef MTAG_SMAPS_H
#define MTAG_SMAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct smaps_mte {
	uint64_t anon_kb;      /* Anonymous: of all mappings */
	uint64_t mt_anon_kb;   /* ... of the mappings with VmFlags "mt" */
	uint64_t rss_kb;       /* Rss: of all mappings */
	uint64_t mt_rss_kb;
	uint64_t malloc_kb;    /* Anonymous: of the mappings with no file or [heap] */
	uint64_t mt_malloc_kb; /* ... of those with VmFlags "mt" */
	unsigned n_mappings;
	unsigned n_mt_mappings;
};

/* 0 and *OUT, or -errno (-EINVAL: not smaps text at all). */
int smaps_read_file(FILE *f, struct smaps_mte *out);
int smaps_read_path(const char *path, struct smaps_mte *out);
/* PROC/PID/smaps (PROC normally "/proc"). */
int smaps_read_pid(const char *proc, pid_t pid, struct smaps_mte *out);

/* Below this share of its malloc-able memory in PROT_MTE mappings, a
 * process's (or a service's) heap is not tagged by glibc: its memory comes
 * from another allocator (jemalloc, tcmalloc, its own mmap'd pools). */
#define SMAPS_HEAP_TAGGED_MIN_PERCENT 5

/* Is the heap tagged, from the malloc-able kB and the tagged part of it
 * (summed over the processes of a service)?  True when there is no
 * malloc-able memory at all (nothing to judge). */
bool smaps_heap_tagged(uint64_t malloc_kb, uint64_t mt_malloc_kb);

#endif
