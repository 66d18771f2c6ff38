/* SPDX-License-Identifier: GPL-2.0-or-later */
/* procmaps.h -- the mapping that holds an address, from /proc/PID/maps or
 * a recorded copy (systemd-coredump's COREDUMP_PROC_MAPS has the same
 * format), and how to name it: "/usr/sbin/nginx+0x4a1c0" (path and file
 * offset) or, for memory without a file, "[heap]+0x1040", "[anon]+0x10"
 * (name and offset into the mapping).
 */
#ifndef MTAG_PROCMAPS_H
#define MTAG_PROCMAPS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct procmap {
	uint64_t start, end;  /* [start, end) */
	uint64_t offset;      /* file offset of start */
	char perms[5];        /* "r-xp" */
	uint64_t inode;
	char path[4096];      /* "" anonymous; "[heap]", "[stack]", ...; a
	                         file (" (deleted)" kept as the kernel shows) */
};

/* Parse one maps line (LEN bytes, no NUL needed).  0 or -EINVAL. */
int procmaps_parse_line(const char *line, size_t len, struct procmap *m);

/* Find the mapping holding ADDR (its top byte is ignored).  1 and *M,
 * 0 when none does, -errno when the input cannot be read.  Lines that do
 * not parse are skipped. */
int procmaps_find_text(const char *text, size_t len, uint64_t addr, struct procmap *m);
int procmaps_find_file(FILE *f, uint64_t addr, struct procmap *m);
int procmaps_find_path(const char *path, uint64_t addr, struct procmap *m);
/* PROC/PID/maps (PROC normally "/proc"). */
int procmaps_find_pid(const char *proc, pid_t pid, uint64_t addr, struct procmap *m);

/* "PATH+0xOFFSET" for ADDR in M into BUF; returns BUF. */
char *procmap_describe(const struct procmap *m, uint64_t addr, char *buf, size_t len);

/* Both in one: "PATH+0xOFFSET" of ADDR from the maps TEXT into BUF.
 * 0, or -ENOENT when no mapping holds ADDR. */
int procmaps_symbolize(const char *text, size_t len, uint64_t addr, char *buf, size_t buflen);

#endif
