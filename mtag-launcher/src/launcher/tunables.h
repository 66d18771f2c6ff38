/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tunables.h -- the environment glibc reads the memory-tagging mode from. */
#ifndef MTAG_TUNABLES_H
#define MTAG_TUNABLES_H

#include <stdbool.h>

#define TUNABLE_UPSTREAM "glibc.mem.tagging"  /* glibc >= 2.33 */
#define TUNABLE_ORIGINAL "glibc.memtag.enable" /* original series, mtag glibc */
#define ENV_ALIAS "_MTAG_ENABLE"

/* Return a new GLIBC_TUNABLES value: OLD (may be NULL) without any
 * glibc.mem.tagging / glibc.memtag.enable entries, other entries kept in
 * their order, then both names set to VALUE. */
char *tunables_merge(const char *old, unsigned value);

/* Set GLIBC_TUNABLES and _MTAG_ENABLE in this process's environment.
 * Returns 0 or -errno. */
int tunables_apply(unsigned value);

/* jemalloc (the mtag series, patches/jemalloc) tags its heap whenever tag
 * checking is on, unless MALLOC_CONF says "mtag:false".  For heap=off:
 * OLD (may be NULL) with ",mtag:false" appended (jemalloc reads the options
 * left to right, the last one wins), or "mtag:false" when OLD is NULL or
 * empty; OLD as it is when its last mtag option is already "false".
 * Nothing the admin set is dropped.  Malloc'ed. */
char *malloc_conf_heap_off(const char *old);

/* Set MALLOC_CONF so when HEAP is false; with HEAP, leave it alone.
 * Returns 0 or -errno. */
int malloc_conf_apply(bool heap);

#endif
