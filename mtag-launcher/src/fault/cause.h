/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cause.h -- what a tag-check fault most likely was.
 *
 * glibc's malloc (with heap tagging) gives each allocation a random
 * non-zero tag on all its granules, keeps chunk headers at tag 0 and
 * retags a chunk to 0 when it is freed.  So, for a fault with pointer tag
 * P at address A:
 *  - the granules just before A's granule carry P: A is past the end of
 *    an allocation of at least (that many granules * 16) bytes: heap
 *    buffer overflow, A - end bytes past it;
 *  - the granules just after carry P: underflow, before its start;
 *  - neither, and A's granule has tag 0: use-after-free (the chunk was
 *    freed and retagged) or a wild pointer;
 *  - neither, A's granule has another non-zero tag: a wild or stale
 *    pointer into another live allocation.
 * Tags are 4 bits, so a neighbour can carry P by chance (1 in 15 for a
 * random tag): such causes are "likely", never "certain".  With a core
 * dump (MTE tag segments, Linux 5.18+) the run of P-tagged granules is
 * followed to the allocation's start and glibc's chunk header there gives
 * its exact size: "certain" when that header is consistent.
 */
#ifndef MTAG_CAUSE_H
#define MTAG_CAUSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "faultline.h"

enum mte_cause {
	MTE_CAUSE_UNKNOWN,        /* async (no address) or no tags to go on */
	MTE_CAUSE_OVERFLOW,
	MTE_CAUSE_UNDERFLOW,
	MTE_CAUSE_USE_AFTER_FREE, /* or a wild pointer into freed memory */
	MTE_CAUSE_WILD,           /* into another live allocation */
};

enum mte_confidence {
	MTE_CONF_NONE,            /* nothing known */
	MTE_CONF_POSSIBLE,        /* consistent with, other causes fit too */
	MTE_CONF_LIKELY,          /* the tags around the fault say so */
	MTE_CONF_CERTAIN,         /* a core's chunk header confirms it */
};

/* A view of the crashed process's memory (a core dump).  tag() returns
 * the allocation tag of the granule holding the untagged address ADDR or
 * MTE_TAG_UNKNOWN; read() copies N bytes at ADDR, 0 or -1. */
struct mte_mem_view {
	int (*tag)(void *ctx, uint64_t addr);
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t n);
	void *ctx;
};

struct mte_cause_info {
	enum mte_cause cause;
	enum mte_confidence confidence;
	uint64_t alloc_start;     /* untagged start of the allocation, 0: unknown */
	uint64_t alloc_min_size;  /* at least this many bytes (from the tags) */
	uint64_t alloc_size;      /* exact usable size from the chunk header, 0: unknown */
	uint64_t distance;        /* overflow: bytes past the end; underflow:
	                             bytes before the start; uaf: offset into
	                             the freed chunk when known */
	char text[256];           /* one sentence for a person */
};

/* Classify F, from its "tags" field or, when CORE is not NULL, from the
 * core's tags and memory.  Always fills *OUT (cause UNKNOWN if nothing
 * fits). */
void mte_classify(const struct mte_fault *f, const struct mte_mem_view *core,
		  struct mte_cause_info *out);

/* Stable short names, for JSON, journal fields and Prometheus labels:
 * "unknown", "overflow", "underflow", "use-after-free", "wild-pointer";
 * "none", "possible", "likely", "certain". */
const char *mte_cause_name(enum mte_cause c);
const char *mte_confidence_name(enum mte_confidence c);

#endif
