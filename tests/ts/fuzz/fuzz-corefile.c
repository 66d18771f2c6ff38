/* fuzz-corefile.c -- libFuzzer target: the core-file reader (corefile.c)
 * and the fault classifier over the memory and tags it gives (cause.c).
 *
 * Input: 8 bytes of faulting address (little-endian, tag in bits 59-56),
 * 8 bytes of pc, then the core file.  The classifier is run on a sync
 * fault at that address whose memory tag is what the core says.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cause.h"
#include "corefile.h"
#include "faultline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct corefile c;
	struct mte_fault f;
	struct mte_mem_view v;
	struct mte_cause_info ci;
	uint8_t *copy, buf[64];
	uint64_t addr, untagged;

	if (size < 16)
		return 0;
	addr = le64(data);
	/* An exact-size copy: ASan sees any read past the core's end. */
	copy = malloc(size - 16 ? size - 16 : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + 16, size - 16);
	if (core_open_mem(&c, copy, size - 16) == 0) {
		untagged = addr & 0x00ffffffffffffffULL;
		memset(&f, 0, sizeof(f));
		f.kind = MTE_FAULT_SYNC;
		f.has_addr = true;
		f.addr = addr;
		f.ptr_tag = (unsigned)(addr >> 56) & 0xf;
		f.mem_tag = core_tag(&c, untagged);
		f.pc = le64(data + 8);
		f.pid = c.pid;
		f.tid = c.tid;
		f.has_tags = true;
		for (int i = 0; i < MTE_FAULT_NTAGS; i++)
			f.tags[i] = core_tag(&c, untagged - 16 * MTE_FAULT_AROUND + 16 * (uint64_t)i);
		(void)core_read(&c, untagged - 32, buf, sizeof(buf));
		(void)core_has_tags(&c);
		core_mem_view(&c, &v);
		mte_classify(&f, &v, &ci);
		if (ci.cause != MTE_CAUSE_UNKNOWN && !ci.text[0])
			abort();
		core_close(&c);
	}
	free(copy);
	return 0;
}
