/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cause.c -- what a tag-check fault most likely was (see cause.h).
 *
 * glibc's heap with tagging, for two malloc(32) in a row (48-byte chunks:
 * 16-byte header, 32 usable bytes, all tagged):
 *
 *     C        C+16  C+32  C+48     C+64  C+80  C+96
 *     [hdr 0]  [P]   [P]   [hdr 0]  [Q]   [Q]   [hdr 0] ...
 *
 * Writing a[32] faults on the next chunk's header granule (tag 0) with P
 * just before: the kernel's tags read "...0PP[0]QQ0...".  After free(b),
 * b's granules are retagged 0 and b[16] faults inside a run of zeros.
 *
 * First a window of 8 granules each side is built (from the core where it
 * has tags, else from the line), classified, and then, with a core, the
 * verdict is checked against glibc's chunk headers.
 */
#include "cause.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define GRANULE 16u
#define CHUNK_HDR_SZ 16u
#define MINSIZE 32u
#define PREV_INUSE 0x1u
#define IS_MMAPPED 0x2u
#define NON_MAIN_ARENA 0x4u
#define WALK_MAX (1024u * 1024u / GRANULE) /* granules: 1 MiB */
#define ADDR_MASK 0x00ffffffffffffffULL   /* top byte ignored */

const char *mte_cause_name(enum mte_cause c)
{
	switch (c) {
	case MTE_CAUSE_OVERFLOW:
		return "overflow";
	case MTE_CAUSE_UNDERFLOW:
		return "underflow";
	case MTE_CAUSE_USE_AFTER_FREE:
		return "use-after-free";
	case MTE_CAUSE_WILD:
		return "wild-pointer";
	case MTE_CAUSE_UNKNOWN:
		break;
	}
	return "unknown";
}

const char *mte_confidence_name(enum mte_confidence c)
{
	switch (c) {
	case MTE_CONF_POSSIBLE:
		return "possible";
	case MTE_CONF_LIKELY:
		return "likely";
	case MTE_CONF_CERTAIN:
		return "certain";
	case MTE_CONF_NONE:
		break;
	}
	return "none";
}

struct ctx {
	const struct mte_fault *f;
	const struct mte_mem_view *core;
	uint64_t addr;  /* untagged */
	uint64_t g;     /* its granule */
	int w[MTE_FAULT_NTAGS];
	int p;          /* pointer tag */
};

/* Address of window slot I, or 0 when it would wrap. */
static uint64_t slot_addr(const struct ctx *c, int i)
{
	int d = i - MTE_FAULT_AROUND;

	if (d < 0 && c->g < (uint64_t)-d * GRANULE)
		return 0;
	if (d > 0 && c->g > ADDR_MASK - (uint64_t)d * GRANULE)
		return 0;
	return c->g + (uint64_t)((int64_t)d * GRANULE);
}

static int view_tag(const struct ctx *c, uint64_t a)
{
	int t;

	if (!c->core || !c->core->tag)
		return MTE_TAG_UNKNOWN;
	t = c->core->tag(c->core->ctx, a);
	return t >= 0 && t <= 15 ? t : MTE_TAG_UNKNOWN;
}

static bool view_u64(const struct ctx *c, uint64_t a, uint64_t *v)
{
	unsigned char b[8];

	if (!c->core || !c->core->read || c->core->read(c->core->ctx, a, b, 8) != 0)
		return false;
	*v = 0;
	for (int i = 7; i >= 0; i--)
		*v = *v << 8 | b[i];
	return true;
}

static void build_window(struct ctx *c)
{
	for (int i = 0; i < MTE_FAULT_NTAGS; i++) {
		uint64_t a = slot_addr(c, i);
		int t = MTE_TAG_UNKNOWN;

		if (a || i == MTE_FAULT_AROUND)
			t = view_tag(c, a);
		if (t == MTE_TAG_UNKNOWN && c->f->has_tags)
			t = c->f->tags[i];
		if (t == MTE_TAG_UNKNOWN && i == MTE_FAULT_AROUND)
			t = c->f->mem_tag;
		if (t < 0 || t > 15)
			t = MTE_TAG_UNKNOWN;
		c->w[i] = t;
	}
}

/* A chunk header's size field: chunk size or 0 when it is not sane. */
static uint64_t chunk_size(uint64_t size)
{
	uint64_t cs = size & ~(uint64_t)7;

	if (cs < MINSIZE || cs % GRANULE || cs > (1ULL << 48))
		return 0;
	if ((size & IS_MMAPPED) && (size & (PREV_INUSE | NON_MAIN_ARENA)))
		return 0;
	return cs;
}

/* The chunk whose user memory starts at S (untagged): usable size, or 0
 * when its header (at S-16, tag 0) is not a sane in-use glibc chunk
 * whose granules [S, S+usable) all carry tag P. */
static uint64_t live_chunk(const struct ctx *c, uint64_t s, int p)
{
	uint64_t size, cs, usable, next;

	if (s < CHUNK_HDR_SZ || view_tag(c, s - CHUNK_HDR_SZ) != 0 ||
	    !view_u64(c, s - 8, &size) || !(cs = chunk_size(size)))
		return 0;
	usable = cs - CHUNK_HDR_SZ;
	if (usable / GRANULE > WALK_MAX)
		return 0;
	for (uint64_t a = s; a < s + usable; a += GRANULE)
		if (view_tag(c, a) != p)
			return 0;
	/* The next chunk (not for mmapped ones) says this one is in use. */
	next = s - CHUNK_HDR_SZ + cs;
	if (!(size & IS_MMAPPED) && view_u64(c, next + 8, &size) && !(size & PREV_INUSE))
		return 0;
	return usable;
}

static void set(struct mte_cause_info *o, enum mte_cause cause, enum mte_confidence conf)
{
	o->cause = cause;
	o->confidence = conf;
}

/* Overflow: the P-run ends at window slot J (J < 8). */
static void overflow(struct ctx *c, int j, struct mte_cause_info *o)
{
	int gap = MTE_FAULT_AROUND - 1 - j, rs = j;
	uint64_t end = slot_addr(c, j) + GRANULE, start = 0, usable = 0;
	bool bounded;

	while (rs > 0 && c->w[rs - 1] == c->p)
		rs--;
	bounded = rs > 0 && c->w[rs - 1] == 0;
	o->alloc_min_size = (uint64_t)(j - rs + 1) * GRANULE;
	if (bounded)
		start = slot_addr(c, rs);
	set(o, MTE_CAUSE_OVERFLOW, gap == 0 ? MTE_CONF_LIKELY : MTE_CONF_POSSIBLE);
	if (c->core) {
		uint64_t s = slot_addr(c, j);
		unsigned n = 0;

		while (n < WALK_MAX && s >= GRANULE && view_tag(c, s - GRANULE) == c->p) {
			s -= GRANULE;
			n++;
		}
		if (view_tag(c, slot_addr(c, j)) == c->p && (usable = live_chunk(c, s, c->p)) &&
		    s + usable == end) {
			start = s;
			o->alloc_size = o->alloc_min_size = usable;
			set(o, MTE_CAUSE_OVERFLOW, gap == 0 ? MTE_CONF_CERTAIN : MTE_CONF_LIKELY);
		} else if (view_tag(c, slot_addr(c, j)) == c->p && end - s > o->alloc_min_size) {
			o->alloc_min_size = end - s;
		}
	}
	o->alloc_start = start;
	o->distance = c->addr - end;
	if (start)
		snprintf(o->text, sizeof(o->text),
			 "heap buffer overflow: the access is %" PRIu64 " bytes past the end of a %" PRIu64
			 "-byte allocation at 0x%" PRIx64,
			 o->distance, end - start, start);
	else
		snprintf(o->text, sizeof(o->text),
			 "heap buffer overflow: the access is %" PRIu64
			 " bytes past the end of an allocation of at least %" PRIu64 " bytes",
			 o->distance, o->alloc_min_size);
	if (!o->alloc_size && start)
		o->alloc_min_size = end - start;
}

/* Underflow: the P-run starts at window slot K (K > 8). */
static void underflow(struct ctx *c, int k, struct mte_cause_info *o)
{
	int gap = k - MTE_FAULT_AROUND - 1, re = k;
	uint64_t start = slot_addr(c, k), usable;
	bool bounded;

	while (re < MTE_FAULT_NTAGS - 1 && c->w[re + 1] == c->p)
		re++;
	bounded = re < MTE_FAULT_NTAGS - 1 && c->w[re + 1] == 0;
	o->alloc_min_size = (uint64_t)(re - k + 1) * GRANULE;
	set(o, MTE_CAUSE_UNDERFLOW, gap == 0 ? MTE_CONF_LIKELY : MTE_CONF_POSSIBLE);
	if (c->core && view_tag(c, start) == c->p) {
		if ((usable = live_chunk(c, start, c->p))) {
			o->alloc_size = o->alloc_min_size = usable;
			bounded = true;
			set(o, MTE_CAUSE_UNDERFLOW, gap == 0 ? MTE_CONF_CERTAIN : MTE_CONF_LIKELY);
		} else {
			uint64_t e = start;
			unsigned n = 0;

			while (n < WALK_MAX && view_tag(c, e) == c->p) {
				e += GRANULE;
				n++;
			}
			if (e - start > o->alloc_min_size)
				o->alloc_min_size = e - start;
		}
	}
	o->alloc_start = start;
	o->distance = start - c->addr;
	if (bounded)
		snprintf(o->text, sizeof(o->text),
			 "heap buffer underflow: the access is %" PRIu64 " bytes before the start of a %" PRIu64
			 "-byte allocation at 0x%" PRIx64,
			 o->distance, o->alloc_min_size, start);
	else
		snprintf(o->text, sizeof(o->text),
			 "heap buffer underflow: the access is %" PRIu64
			 " bytes before the start of an allocation of at least %" PRIu64 " bytes at 0x%" PRIx64,
			 o->distance, o->alloc_min_size, start);
}

/* With a core, for an access to a 0-tagged granule: walk back over the
 * zeros to the previous live allocation, then forward chunk by chunk
 * along glibc's size fields to the chunk holding the address.  Returns
 * true and fills O when that chunk is sane and entirely tag 0. */
static bool freed_chunk(struct ctx *c, struct mte_cause_info *o)
{
	uint64_t h = c->g, size, cs, next_size;
	unsigned n = 0;
	bool free_by_bins;

	if (view_tag(c, h) != 0)
		return false;
	while (n < WALK_MAX && h >= GRANULE && view_tag(c, h - GRANULE) == 0) {
		h -= GRANULE;
		n++;
	}
	if (n == WALK_MAX)
		return false;
	/* H: the first zero granule after a live allocation (or after
	 * memory without tags): a chunk header, which has PREV_INUSE. */
	if (!view_u64(c, h + 8, &size) || !(cs = chunk_size(size)) || (size & IS_MMAPPED) ||
	    !(size & PREV_INUSE))
		return false;
	for (n = 0; h + cs <= c->addr; n++) {
		if (n > WALK_MAX || view_tag(c, h + cs) != 0)
			return false;
		h += cs;
		if (!view_u64(c, h + 8, &size) || !(cs = chunk_size(size)) || (size & IS_MMAPPED))
			return false;
	}
	if (c->addr < h + CHUNK_HDR_SZ)
		return false; /* on a header: nothing sound to say */
	for (uint64_t a = h + CHUNK_HDR_SZ, k = 0; a < h + cs && k < WALK_MAX; a += GRANULE, k++)
		if (view_tag(c, a) != 0)
			return false; /* part of it is live: not glibc's free chunk */
	/* glibc's bins (not tcache or fastbins) clear the next chunk's
	 * PREV_INUSE and set its prev_size: then it is free for sure. */
	free_by_bins = view_u64(c, h + cs + 8, &next_size) && !(next_size & PREV_INUSE) &&
		       view_u64(c, h + cs, &size) && size == cs;
	o->alloc_start = h + CHUNK_HDR_SZ;
	o->alloc_size = o->alloc_min_size = cs - CHUNK_HDR_SZ;
	o->distance = c->addr - o->alloc_start;
	set(o, MTE_CAUSE_USE_AFTER_FREE, free_by_bins ? MTE_CONF_CERTAIN : MTE_CONF_LIKELY);
	snprintf(o->text, sizeof(o->text),
		 "use-after-free (or a wild pointer into freed memory): the access is %" PRIu64
		 " bytes into a freed %" PRIu64 "-byte chunk at 0x%" PRIx64 "; pointer tag 0x%x",
		 o->distance, o->alloc_size, o->alloc_start, (unsigned)c->p);
	return true;
}

void mte_classify(const struct mte_fault *f, const struct mte_mem_view *core,
		  struct mte_cause_info *o)
{
	struct ctx c = { .f = f, .core = core };
	int m, before = -1, after = -1;

	memset(o, 0, sizeof(*o));
	o->cause = MTE_CAUSE_UNKNOWN;
	o->confidence = MTE_CONF_NONE;
	if (f->kind == MTE_FAULT_ASYNC || !f->has_addr) {
		snprintf(o->text, sizeof(o->text), "%s",
			 f->kind == MTE_FAULT_ASYNC
				 ? "asynchronous fault: the CPU does not record the address; run the service in sync mode to find the bug"
				 : "tag check fault without an address: nothing to go on");
		return;
	}
	c.addr = f->addr & ADDR_MASK;
	c.g = c.addr & ~(uint64_t)(GRANULE - 1);
	c.p = (int)(f->ptr_tag & 0xf);
	build_window(&c);
	m = c.w[MTE_FAULT_AROUND];

	if (m == c.p) {
		snprintf(o->text, sizeof(o->text),
			 "tag check fault at 0x%" PRIx64 ": the granule now carries the pointer's tag 0x%x "
			 "(retagged after the fault, by another thread?)",
			 c.addr, (unsigned)c.p);
		return;
	}
	if (c.p == 0) {
		if (m == MTE_TAG_UNKNOWN)
			goto nothing;
		set(o, MTE_CAUSE_WILD, MTE_CONF_LIKELY);
		snprintf(o->text, sizeof(o->text),
			 "untagged pointer: the granule at 0x%" PRIx64 " carries tag 0x%x but the pointer has "
			 "tag 0x0 (not from malloc, or its tag was lost)",
			 c.addr, (unsigned)m);
		return;
	}

	for (int i = MTE_FAULT_AROUND - 1; i >= 0 && before < 0; i--)
		if (c.w[i] == c.p)
			before = i;
	for (int i = MTE_FAULT_AROUND + 1; i < MTE_FAULT_NTAGS && after < 0; i++)
		if (c.w[i] == c.p)
			after = i;

	int gap_b = before >= 0 ? MTE_FAULT_AROUND - 1 - before : MTE_FAULT_NTAGS;
	int gap_a = after >= 0 ? after - MTE_FAULT_AROUND - 1 : MTE_FAULT_NTAGS;

	if (gap_b == 0 || gap_a == 0) {
		/* P on both sides (two neighbours with the same tag, 1 in 15):
		 * a run off the end starts at a granule's beginning, one off
		 * the start usually hits the header's size field, at +8. */
		bool both = gap_b == 0 && gap_a == 0;

		if (gap_b == 0 && (!both || (c.addr & (GRANULE - 1)) < 8))
			overflow(&c, before, o);
		else
			underflow(&c, after, o);
		if (both && o->confidence != MTE_CONF_CERTAIN)
			o->confidence = MTE_CONF_POSSIBLE;
		return;
	}
	if (m == 0) {
		if (freed_chunk(&c, o))
			return;
		bool zero_near = c.w[MTE_FAULT_AROUND - 1] == 0 || c.w[MTE_FAULT_AROUND + 1] == 0;

		if (f->has_tags || core) {
			set(o, MTE_CAUSE_USE_AFTER_FREE, zero_near ? MTE_CONF_LIKELY : MTE_CONF_POSSIBLE);
			snprintf(o->text, sizeof(o->text),
				 "use-after-free (or a wild pointer into freed memory): the granule at 0x%" PRIx64
				 " carries tag 0x0, which glibc gives freed chunks; pointer tag 0x%x",
				 c.addr, (unsigned)c.p);
		} else {
			set(o, MTE_CAUSE_USE_AFTER_FREE, MTE_CONF_POSSIBLE);
			snprintf(o->text, sizeof(o->text),
				 "use-after-free, or an overflow onto a chunk header: the granule at 0x%" PRIx64
				 " carries tag 0x0, which glibc gives freed chunks and chunk headers; pointer tag "
				 "0x%x (this kernel logs no neighbouring tags)",
				 c.addr, (unsigned)c.p);
		}
		return;
	}
	if (m == MTE_TAG_UNKNOWN && before < 0 && after < 0)
		goto nothing;
	if (before >= 0 || after >= 0) {
		/* Not adjacent: past the next chunk's header, into memory of
		 * another allocation (or nothing known about it). */
		if (gap_b <= gap_a)
			overflow(&c, before, o);
		else
			underflow(&c, after, o);
		return;
	}
	set(o, MTE_CAUSE_WILD, MTE_CONF_POSSIBLE);
	snprintf(o->text, sizeof(o->text),
		 "wild or stale pointer: the granule at 0x%" PRIx64 " carries tag 0x%x, another live "
		 "allocation's; pointer tag 0x%x (memory freed and allocated again looks the same)",
		 c.addr, (unsigned)m, (unsigned)c.p);
	return;

nothing:
	snprintf(o->text, sizeof(o->text),
		 "tag check fault at 0x%" PRIx64 ": pointer tag 0x%x, memory tag unknown: nothing to go on",
		 c.addr, (unsigned)c.p);
}
