/* SPDX-License-Identifier: GPL-2.0-or-later */
/* smaps.h -- how much of a process's anonymous memory is tagged: from
 * /proc/PID/smaps, the "Anonymous:" kB of every mapping summed, and of
 * those whose "VmFlags:" include "mt" (PROT_MTE).  smaps_rollup has no
 * VmFlags, so the full smaps is read.
 */
#ifndef MTAG_SMAPS_H
#define MTAG_SMAPS_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct smaps_mte {
	uint64_t anon_kb;      /* Anonymous: of all mappings */
	uint64_t mt_anon_kb;   /* ... of the mappings with VmFlags "mt" */
	uint64_t rss_kb;       /* Rss: of all mappings */
	uint64_t mt_rss_kb;
	unsigned n_mappings;
	unsigned n_mt_mappings;
};

/* 0 and *OUT, or -errno (-EINVAL: not smaps text at all). */
int smaps_read_file(FILE *f, struct smaps_mte *out);
int smaps_read_path(const char *path, struct smaps_mte *out);
/* PROC/PID/smaps (PROC normally "/proc"). */
int smaps_read_pid(const char *proc, pid_t pid, struct smaps_mte *out);

#endif
