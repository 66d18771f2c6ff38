/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fileio.h -- reading small files whole, writing files atomically. */
#ifndef MTAG_FILEIO_H
#define MTAG_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The first MAX bytes (at most) of PATH in a malloc'ed NUL-terminated
 * buffer, its length in *LEN if LEN is not NULL; NULL (errno set) if PATH
 * cannot be opened or read.  For /proc files, which have no size. */
char *read_file_head(const char *path, size_t max, size_t *len);

/* DATA (LEN bytes) to PATH via a temporary file ".NAME.XXXXXX" in PATH's
 * directory, MODE, fsync()ed when DURABLE, then rename()d over PATH and,
 * when DURABLE, the directory fsync()ed (the rename is durable only then).
 * 0 or -errno; on failure PATH is untouched and no temporary file is
 * left. */
int write_file_replace(const char *path, const void *data, size_t len, mode_t mode,
		       bool durable);

/* write_file_replace(), always durable. */
int write_file_atomic(const char *path, const void *data, size_t len, mode_t mode);

#endif
