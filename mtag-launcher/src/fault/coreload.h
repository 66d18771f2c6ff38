/* SPDX-License-Identifier: GPL-2.0-or-later */
/* coreload.h -- read a core that systemd-coredump stored, without
 * trusting the path its journal entry names.
 *
 * The path must name a file directly in the coredump directory
 * (/var/lib/systemd/coredump), called "core.*"; it is opened relative to
 * that directory with O_NOFOLLOW (no symlink, in the name or for the
 * directory), must be a regular file, and what is read is capped: the
 * file, and what zstd decompression gives, at MAX bytes.  So an entry
 * that names /dev/zero, a FIFO, a symlink to /etc/shadow or a
 * decompression bomb gives an error, not a hung or filled machine.
 * Compression: none or zstd (".zst", systemd-coredump's default on
 * Debian); ".xz" and ".lz4" are refused with a reason.
 */
#ifndef MTAG_CORELOAD_H
#define MTAG_CORELOAD_H

#include <stddef.h>
#include <stdint.h>

#define COREDUMP_DIR "/var/lib/systemd/coredump"
#define CORE_LOAD_MAX ((uint64_t)512 << 20)

/* Load PATH (which must be DIR/core.*) into *DATA (malloc'ed; the
 * caller frees it) of *SIZE bytes.  Returns 0, or -errno with a sentence
 * in WHY. */
int core_load(const char *dir, const char *path, uint64_t max, void **data, size_t *size,
	      char *why, size_t wlen);

/* The core of systemd-coredump's entry: the file COREDUMP_FILENAME
 * names (FILE, "" none) as core_load() reads it from COREDUMP_DIR, or
 * else (Storage=journal) the entry's COREDUMP field, FIELD of LEN bytes
 * with its "COREDUMP=" (NULL: the entry has none), copied if at most MAX
 * bytes.  0 with *DATA (malloc'ed) and *SIZE, or -errno with WHY. */
int core_load_entry(const char *file, const void *field, size_t len, uint64_t max, void **data,
		    size_t *size, char *why, size_t wlen);

#endif
