/* test-cause.c -- the classifier, from the kernel's tags and from cores
 * laid out like glibc's heap with tagging. */
#include <stdlib.h>

#include "cause.h"
#include "corefile.h"
#include "faultline.h"
#include "testcore.h"
#include "unit.h"

#define H 0xaaaad5a21000ULL

/* Two malloc(32) in a row (chunks a at H+0x2a0 and b at H+0x2d0, tags 3
 * and e) after three others, then the top chunk: the layout behind
 * data/kmsg/sync-overflow.txt and sync-uaf.txt. */
static void mtebug_heap(struct tc_heap *h)
{
	heap_init(h, H, 0x1000);
	heap_chunk(h, H, 0x250, 1, 0x1);          /* tcache_perthread_struct */
	heap_chunk(h, H + 0x250, 0x20, 1, 0xc);
	heap_chunk(h, H + 0x270, 0x30, 1, 0xa);
	heap_chunk(h, H + 0x2a0, 0x30, 1, 0x3);   /* a = H+0x2b0 */
	heap_chunk(h, H + 0x2d0, 0x30, 1, 0xe);   /* b = H+0x2e0 */
	heap_chunk(h, H + 0x300, 0xd00, 1, 0);    /* top */
	/* The 8 bytes of a[32..39]: the write faulted, nothing changed. */
}

struct core {
	unsigned char *data;
	size_t len;
	struct corefile cf;
	struct mte_mem_view v;
};

static int core_from(struct core *c, struct tc_heap *h, size_t n_heaps, bool tags, size_t cut)
{
	struct tc_seg segs[4];

	for (size_t i = 0; i < n_heaps; i++)
		segs[i] = (struct tc_seg){ h[i].base, h[i].size, h[i].mem, tags ? h[i].tags : NULL };
	c->data = testcore_build(segs, n_heaps, 1234, 1234, 0, &c->len);
	if (cut && cut < c->len)
		c->len = cut;
	if (core_open_mem(&c->cf, c->data, c->len) < 0)
		return -1;
	core_mem_view(&c->cf, &c->v);
	return 0;
}

static void core_done(struct core *c)
{
	core_close(&c->cf);
	free(c->data);
}

static void test_names(void)
{
	CHECK_STR(mte_cause_name(MTE_CAUSE_OVERFLOW), "overflow");
	CHECK_STR(mte_cause_name(MTE_CAUSE_UNDERFLOW), "underflow");
	CHECK_STR(mte_cause_name(MTE_CAUSE_USE_AFTER_FREE), "use-after-free");
	CHECK_STR(mte_cause_name(MTE_CAUSE_WILD), "wild-pointer");
	CHECK_STR(mte_cause_name(MTE_CAUSE_UNKNOWN), "unknown");
	CHECK_STR(mte_cause_name((enum mte_cause)99), "unknown");
	CHECK_STR(mte_confidence_name(MTE_CONF_NONE), "none");
	CHECK_STR(mte_confidence_name(MTE_CONF_POSSIBLE), "possible");
	CHECK_STR(mte_confidence_name(MTE_CONF_LIKELY), "likely");
	CHECK_STR(mte_confidence_name(MTE_CONF_CERTAIN), "certain");
}

static void test_line_overflow(void)
{
	struct mte_fault f;
	struct mte_cause_info ci;

	CHECK(parse_kmsg("sync-overflow", &f) == 1);
	mte_classify(&f, NULL, &ci);
	CHECK(ci.cause == MTE_CAUSE_OVERFLOW && ci.confidence == MTE_CONF_LIKELY);
	CHECK(ci.distance == 0 && ci.alloc_min_size == 32 && ci.alloc_size == 0);
	CHECK(ci.alloc_start == H + 0x2b0);
	CHECK_STR(ci.text, "heap buffer overflow: the access is 0 bytes past the end of a 32-byte "
			   "allocation at 0xaaaad5a212b0");
	/* Report mode: the same. */
	CHECK(parse_kmsg("report-syscall", &f) == 1);
	mte_classify(&f, NULL, &ci);
	CHECK(ci.cause == MTE_CAUSE_OVERFLOW && ci.confidence == MTE_CONF_LIKELY);
}

static void test_line_overflow_same_tag(void)
{
	/* b got a's tag (1 in 15): P on both sides of the header. */
	struct mte_fault f;
	struct mte_cause_info ci;

	CHECK(parse_kmsg("sync-overflow-same-tag", &f) == 1);
	mte_classify(&f, NULL, &ci);
	CHECK(ci.cause == MTE_CAUSE_OVERFLOW && ci.confidence == MTE_CONF_POSSIBLE);
	CHECK(ci.distance == 0);
}

static void test_line_overflow_big(void)
{
	struct mte_fault f;
	struct mte_cause_info ci;

	CHECK(parse_kmsg("sync-overflow-big", &f) == 1);
	mte_classify(&f, NULL, &ci);
	CHECK(ci.cause == MTE_CAUSE_OVERFLOW && ci.confidence == MTE_CONF_LIKELY);
	CHECK(ci.distance == 4 && ci.alloc_min_size == 128 && ci.alloc_start == 0);
	CHECK_STR(ci.text, "heap buffer overflow: the access is 4 bytes past the end of an allocation "
			   "of at least 128 bytes");
}

static void test_line_overflow_far(void)
{
	struct mte_fault f;
	struct mte_cause_info ci;

	CHECK(parse_kmsg("sync-overflow-far", &f) == 1);
	mte_classify(&f, NULL, &ci);
	CHECK(ci.cause == MTE_CAUSE_OVERFLOW && ci.confidence == MTE_CONF_POSSIBLE);
	CHECK(ci.distance == 64 && ci.alloc_min_size == 48);
	CHECK(ci.alloc_start == 0xffff8c2011d0ULL);
}

static void test_line_uaf(void)
{
	struct mte_fault f;
	struct mte_cause_info ci;

	CHECK(parse_kmsg("sync-uaf", &f) == 1);
	mte_classify(&f, NULL, &ci);
	CHECK(ci.cause == MTE_CAUSE_USE_AFTER_FREE && ci.confidence == MTE_CONF_LIKELY);
	CHECK_STR(ci.text, "use-after-free (or a wild pointer into freed memory): the granule at "
			   "0xaaaad5a212f0 carries tag 0x0, which glibc gives freed chunks; pointer tag 0xe");
	/* a got b's old tag by chance: P two granules back, but the access
	 * is inside zeros, not next to it: still a use-after-free. */
	f.tags[4] = f.tags[5] = 0xe;
	mte_classify(&f, NULL, &ci);
	CHECK(ci.cause == MTE_CAUSE_USE_AFTER_FREE);
}

static void test_line_wild(void)
{
	struct mte_fault f;
	struct mte_cause_info ci;

	CHECK(parse_kmsg("sync-wild", &f) == 1);
	mte_classify(&f, NULL, &ci);
	CHECK(ci.cause == MTE_CAUSE_WILD && ci.confidence == MTE_CONF_POSSIBLE);
	CHECK(strstr(ci.text, "carries tag 0x9, another live allocation's; pointer tag 0x5"));
	CHECK(parse_kmsg("sync-untagged", &f) == 1);
	mte_classify(&f, NULL, &ci);
	CHECK(ci.cause == MTE_CAUSE_WILD && ci.confidence == MTE_CONF_LIKELY);
	CHECK(strncmp(ci.text, "untagged pointer:", 17) == 0);
}

static void test_line_underflow(void)
{
	struct mte_fault f;
	struct mte_cause_info ci;

	CHECK(parse_kmsg("sync-underflow-unmapped", &f) == 1);
	mte_classify(&f, NULL, &ci);
	CHECK(ci.cause == MTE_CAUSE_UNDERFLOW && ci.confidence == MTE_CONF_LIKELY);
	CHECK(ci.distance == 8 && ci.alloc_start == 0xffff9a000010ULL && ci.alloc_min_size == 64);
	CHECK_STR(ci.text, "heap buffer underflow: the access is 8 bytes before the start of a 64-byte "
			   "allocation at 0xffff9a000010");
}

static void test_line_old_and_async(void)
{
	struct mte_fault f;
	struct mte_cause_info ci;

	CHECK(parse_kmsg("sync-old-0003", &f) == 1);
	mte_classify(&f, NULL, &ci);
	CHECK(ci.cause == MTE_CAUSE_USE_AFTER_FREE && ci.confidence == MTE_CONF_POSSIBLE);
	CHECK(strstr(ci.text, "this kernel logs no neighbouring tags"));
	CHECK(parse_kmsg("sync-old-0004-report", &f) == 1);
	mte_classify(&f, NULL, &ci);
	CHECK(ci.cause == MTE_CAUSE_UNKNOWN && ci.confidence == MTE_CONF_NONE);
	CHECK(parse_kmsg("async-new", &f) == 1);
	mte_classify(&f, NULL, &ci);
	CHECK(ci.cause == MTE_CAUSE_UNKNOWN && ci.confidence == MTE_CONF_NONE);
	CHECK_STR(ci.text, "asynchronous fault: the CPU does not record the address; run the service "
			   "in sync mode to find the bug");
	CHECK(parse_kmsg("async-old", &f) == 1);
	mte_classify(&f, NULL, &ci);
	CHECK(ci.cause == MTE_CAUSE_UNKNOWN);
	/* The tag changed since (another thread retagged). */
	CHECK(parse_kmsg("sync-overflow", &f) == 1);
	f.tags[8] = 3;
	mte_classify(&f, NULL, &ci);
	CHECK(ci.cause == MTE_CAUSE_UNKNOWN && ci.confidence == MTE_CONF_NONE);
}

static void test_core_overflow(void)
{
	struct tc_heap h;
	struct core c;
	struct mte_fault f;
	struct mte_cause_info ci;

	mtebug_heap(&h);
	CHECK(core_from(&c, &h, 1, true, 0) == 0);
	CHECK(parse_kmsg("sync-overflow", &f) == 1);
	mte_classify(&f, &c.v, &ci);
	CHECK(ci.cause == MTE_CAUSE_OVERFLOW && ci.confidence == MTE_CONF_CERTAIN);
	CHECK(ci.alloc_size == 32 && ci.alloc_start == H + 0x2b0 && ci.distance == 0);
	CHECK_STR(ci.text, "heap buffer overflow: the access is 0 bytes past the end of a 32-byte "
			   "allocation at 0xaaaad5a212b0");
	/* A 0003 line (no tags): the core has them. */
	CHECK(parse_kmsg("sync-old-overflow", &f) == 1);
	mte_classify(&f, &c.v, &ci);
	CHECK(ci.cause == MTE_CAUSE_OVERFLOW && ci.confidence == MTE_CONF_CERTAIN && ci.alloc_size == 32);
	core_done(&c);

	/* A header that does not fit the tags: no certainty. */
	heap_put64(&h, H + 0x2a8, 0x41);
	CHECK(core_from(&c, &h, 1, true, 0) == 0);
	CHECK(parse_kmsg("sync-overflow", &f) == 1);
	mte_classify(&f, &c.v, &ci);
	CHECK(ci.cause == MTE_CAUSE_OVERFLOW && ci.confidence == MTE_CONF_LIKELY && ci.alloc_size == 0);
	core_done(&c);
	/* Nor one with insane flags (IS_MMAPPED with PREV_INUSE). */
	heap_put64(&h, H + 0x2a8, 0x33);
	CHECK(core_from(&c, &h, 1, true, 0) == 0);
	mte_classify(&f, &c.v, &ci);
	CHECK(ci.confidence == MTE_CONF_LIKELY && ci.alloc_size == 0);
	core_done(&c);
	/* Nor when the next chunk says a's chunk is free. */
	heap_put64(&h, H + 0x2a8, 0x31);
	heap_put64(&h, H + 0x2d8, 0x30);
	CHECK(core_from(&c, &h, 1, true, 0) == 0);
	mte_classify(&f, &c.v, &ci);
	CHECK(ci.confidence == MTE_CONF_LIKELY && ci.alloc_size == 0);
	core_done(&c);
	heap_free_all(&h);
}

static void test_core_overflow_big(void)
{
	struct tc_heap h;
	struct core c;
	struct mte_fault f;
	struct mte_cause_info ci;
	const uint64_t B = 0xffff8c200000ULL;

	heap_init(&h, B, 0x2000);
	heap_chunk(&h, B, 0xff0, 1, 0x2);
	heap_chunk(&h, B + 0xff0, 0x210, 1, 0x7); /* 512 usable at B+0x1000 */
	heap_chunk(&h, B + 0x1200, 0x90, 1, 0xb);
	heap_chunk(&h, B + 0x1290, 0xd70, 1, 0);
	CHECK(core_from(&c, &h, 1, true, 0) == 0);
	CHECK(parse_kmsg("sync-overflow-big", &f) == 1);
	mte_classify(&f, &c.v, &ci);
	CHECK(ci.cause == MTE_CAUSE_OVERFLOW && ci.confidence == MTE_CONF_CERTAIN);
	CHECK(ci.alloc_size == 512 && ci.alloc_start == B + 0x1000 && ci.distance == 4);
	CHECK_STR(ci.text, "heap buffer overflow: the access is 4 bytes past the end of a 512-byte "
			   "allocation at 0xffff8c201000");
	core_done(&c);
	heap_free_all(&h);
}

static void test_core_underflow(void)
{
	struct tc_heap h;
	struct core c;
	struct mte_fault f;
	struct mte_cause_info ci;

	mtebug_heap(&h);
	CHECK(core_from(&c, &h, 1, true, 0) == 0);
	/* b[-8] with b's pointer: its own header's size field. */
	memset(&f, 0, sizeof(f));
	f.kind = MTE_FAULT_SYNC;
	f.has_addr = true;
	f.addr = 0x0e00000000000000ULL | (H + 0x2d8);
	f.ptr_tag = 0xe;
	f.mem_tag = 0;
	mte_classify(&f, &c.v, &ci);
	CHECK(ci.cause == MTE_CAUSE_UNDERFLOW && ci.confidence == MTE_CONF_CERTAIN);
	CHECK(ci.alloc_size == 32 && ci.alloc_start == H + 0x2e0 && ci.distance == 8);
	CHECK_STR(ci.text, "heap buffer underflow: the access is 8 bytes before the start of a 32-byte "
			   "allocation at 0xaaaad5a212e0");
	core_done(&c);
	heap_free_all(&h);
}

static void test_core_uaf(void)
{
	struct tc_heap h;
	struct core c;
	struct mte_fault f;
	struct mte_cause_info ci;

	mtebug_heap(&h);
	heap_tcache_free(&h, H + 0x2e0);
	CHECK(core_from(&c, &h, 1, true, 0) == 0);
	CHECK(parse_kmsg("sync-uaf", &f) == 1);
	mte_classify(&f, &c.v, &ci);
	/* In the tcache: glibc's bookkeeping does not show it free. */
	CHECK(ci.cause == MTE_CAUSE_USE_AFTER_FREE && ci.confidence == MTE_CONF_LIKELY);
	CHECK(ci.alloc_start == H + 0x2e0 && ci.alloc_size == 32 && ci.distance == 16);
	CHECK_STR(ci.text, "use-after-free (or a wild pointer into freed memory): the access is 16 bytes "
			   "into a freed 32-byte chunk at 0xaaaad5a212e0; pointer tag 0xe");
	core_done(&c);
	heap_free_all(&h);

	/* In a bin: the next chunk has PREV_INUSE clear and prev_size set. */
	mtebug_heap(&h);
	heap_tag(&h, H + 0x2e0, 32, 0);
	heap_chunk(&h, H + 0x300, 0x30, 0, 0x7);
	heap_put64(&h, H + 0x300, 0x30);
	heap_chunk(&h, H + 0x330, 0xcd0, 1, 0);
	CHECK(core_from(&c, &h, 1, true, 0) == 0);
	mte_classify(&f, &c.v, &ci);
	CHECK(ci.cause == MTE_CAUSE_USE_AFTER_FREE && ci.confidence == MTE_CONF_CERTAIN);
	CHECK(ci.distance == 16 && ci.alloc_size == 32);
	core_done(&c);
	heap_free_all(&h);

	/* Two freed chunks in a row (tcache, not merged): the walk goes
	 * back to the first and forward along the size fields. */
	mtebug_heap(&h);
	heap_tcache_free(&h, H + 0x2b0);
	heap_tcache_free(&h, H + 0x2e0);
	CHECK(core_from(&c, &h, 1, true, 0) == 0);
	mte_classify(&f, &c.v, &ci);
	CHECK(ci.cause == MTE_CAUSE_USE_AFTER_FREE && ci.confidence == MTE_CONF_LIKELY);
	CHECK(ci.alloc_start == H + 0x2e0 && ci.distance == 16);
	core_done(&c);
	heap_free_all(&h);
}

static void test_core_wild(void)
{
	struct tc_heap h;
	struct core c;
	struct mte_fault f;
	struct mte_cause_info ci;

	mtebug_heap(&h);
	CHECK(core_from(&c, &h, 1, true, 0) == 0);
	memset(&f, 0, sizeof(f));
	f.kind = MTE_FAULT_SYNC;
	f.has_addr = true;
	f.addr = 0x0500000000000000ULL | (H + 0x2b8);
	f.ptr_tag = 5;
	f.mem_tag = MTE_TAG_UNKNOWN; /* the core knows */
	mte_classify(&f, &c.v, &ci);
	CHECK(ci.cause == MTE_CAUSE_WILD && ci.confidence == MTE_CONF_POSSIBLE);
	CHECK(strstr(ci.text, "carries tag 0x3"));
	core_done(&c);
	heap_free_all(&h);
}

static void test_core_degrades(void)
{
	struct tc_heap h;
	struct core c;
	struct mte_fault f;
	struct mte_cause_info ci;
	size_t full;

	mtebug_heap(&h);
	CHECK(parse_kmsg("sync-overflow", &f) == 1);
	/* No tag segments: as from the line. */
	CHECK(core_from(&c, &h, 1, false, 0) == 0);
	CHECK(!core_has_tags(&c.cf));
	mte_classify(&f, &c.v, &ci);
	CHECK(ci.cause == MTE_CAUSE_OVERFLOW && ci.confidence == MTE_CONF_LIKELY);
	core_done(&c);
	/* Cut anywhere: never a crash, always at least the line's verdict. */
	CHECK(core_from(&c, &h, 1, true, 0) == 0);
	full = c.len;
	core_done(&c);
	for (size_t cut = 1; cut < full; cut += 3) {
		int r = core_from(&c, &h, 1, true, cut);

		mte_classify(&f, r == 0 ? &c.v : NULL, &ci);
		if (ci.cause != MTE_CAUSE_OVERFLOW || ci.confidence < MTE_CONF_LIKELY)
			printf("# cut %zu: %s %s\n", cut, mte_cause_name(ci.cause),
			       mte_confidence_name(ci.confidence));
		CHECK(ci.cause == MTE_CAUSE_OVERFLOW && ci.confidence >= MTE_CONF_LIKELY);
		if (r == 0)
			CHECK(c.cf.truncated);
		core_done(&c);
	}
	/* The UAF with a cut core: from the line. */
	heap_tcache_free(&h, H + 0x2e0);
	CHECK(parse_kmsg("sync-uaf", &f) == 1);
	CHECK(core_from(&c, &h, 1, true, full - 100) == 0);
	mte_classify(&f, &c.v, &ci);
	CHECK(ci.cause == MTE_CAUSE_USE_AFTER_FREE && ci.confidence == MTE_CONF_LIKELY);
	core_done(&c);
	heap_free_all(&h);
}

void run_cause_tests(void)
{
	RUN(test_names);
	RUN(test_line_overflow);
	RUN(test_line_overflow_same_tag);
	RUN(test_line_overflow_big);
	RUN(test_line_overflow_far);
	RUN(test_line_uaf);
	RUN(test_line_wild);
	RUN(test_line_underflow);
	RUN(test_line_old_and_async);
	RUN(test_core_overflow);
	RUN(test_core_overflow_big);
	RUN(test_core_underflow);
	RUN(test_core_uaf);
	RUN(test_core_wild);
	RUN(test_core_degrades);
}
