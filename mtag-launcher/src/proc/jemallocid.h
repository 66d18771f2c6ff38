/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jemallocid.h -- does a process run on jemalloc, and is it mtag's
 * tagging build (libjemalloc2 +mtag1, patches/jemalloc)?  The library
 * mapped in /proc/PID/maps is read for the build's marker string.
 */
#ifndef MTAG_JEMALLOCID_H
#define MTAG_JEMALLOCID_H

#include <stddef.h>
#include <sys/types.h>

enum jemalloc_kind {
	JEMALLOC_NONE = 0,  /* no libjemalloc mapped */
	JEMALLOC_STOCK,     /* libjemalloc without the marker: no tagging */
	JEMALLOC_MTAG,      /* libjemalloc2 +mtag1: tags when checking is on */
};

/* The marker patches/jemalloc/0001 puts in the library. */
#define JEMALLOC_MTAG_MARKER "jemalloc-mtag1: Arm MTE heap tagging"

/* Of the maps TEXT (LEN bytes): the first mapped file whose name starts
 * with "libjemalloc.so", read under ROOT ("" or NULL: /) for the marker.
 * PATH (if not NULL) gets the library's path.  A library that cannot be
 * read counts as stock (it cannot be shown to tag). */
enum jemalloc_kind jemalloc_kind_text(const char *text, size_t len, const char *root,
				      char *path, size_t pathlen);
/* The same for PROC/PID/maps. */
enum jemalloc_kind jemalloc_kind_pid(const char *proc, pid_t pid, char *path, size_t pathlen);

#endif
