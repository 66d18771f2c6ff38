/* fuzz-faultline.c -- libFuzzer target: the kernel fault-line parser (and
 * the rate limit's "suppressed" line parser on the same input), the
 * tags field printed back, the cgroup's unit, and the classifier, both
 * from the line and from a memory view made of the input.
 *
 * Input: a line, then optionally '\n' and bytes that become the crashed
 * process's memory around the faulting address (one byte per granule for
 * its tag, low nibble; the same bytes as memory contents).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cause.h"
#include "cgunit.h"
#include "faultline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct blob {
	const uint8_t *p;
	size_t n;
	uint64_t base;
};

static int blob_tag(void *ctx, uint64_t addr)
{
	const struct blob *b = ctx;
	uint64_t g;

	if (addr < b->base)
		return MTE_TAG_UNKNOWN;
	g = (addr - b->base) / 16;
	return g < b->n ? b->p[g] & 0xf : MTE_TAG_UNKNOWN;
}

static int blob_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	const struct blob *b = ctx;

	/* Memory: byte i of the blob repeated over granule i. */
	for (size_t i = 0; i < n; i++) {
		uint64_t a = addr + i;

		if (a < addr || a < b->base || (a - b->base) / 16 >= b->n)
			return -1;
		((uint8_t *)buf)[i] = b->p[(a - b->base) / 16] ^ (uint8_t)(a & 0xf);
	}
	return 0;
}

static void check_cause(const struct mte_fault *f, const struct mte_cause_info *ci, bool core)
{
	size_t l = strnlen(ci->text, sizeof(ci->text));

	if (l == 0 || l == sizeof(ci->text))
		abort();
	if ((unsigned)ci->cause > MTE_CAUSE_WILD || (unsigned)ci->confidence > MTE_CONF_CERTAIN)
		abort();
	if ((ci->cause == MTE_CAUSE_UNKNOWN) != (ci->confidence == MTE_CONF_NONE))
		abort();
	if (ci->confidence == MTE_CONF_CERTAIN && !core)
		abort(); /* certainty needs a chunk header */
	if (ci->alloc_size && ci->alloc_size != ci->alloc_min_size)
		abort();
	if (f->kind == MTE_FAULT_ASYNC && ci->cause != MTE_CAUSE_UNKNOWN)
		abort();
	if ((ci->cause == MTE_CAUSE_OVERFLOW || ci->cause == MTE_CAUSE_UNDERFLOW) &&
	    (ci->alloc_min_size == 0 || ci->alloc_min_size % 16))
		abort();
	if (!mte_cause_name(ci->cause) || !mte_confidence_name(ci->confidence))
		abort();
}

/* The line the kernel would print for F, in the newest format. */
static int format_line(const struct mte_fault *f, char *buf, size_t len)
{
	static const char *const sfx[] = {
		"", " (report mode: tag checks off in this thread)",
		" (report mode, in a system call: tag checks off in this thread)",
	};
	char tags[32], mem[16], *p = buf;
	size_t left = len;
	int n;

#define OUT(...)                                                              \
	do {                                                                  \
		n = snprintf(p, left, __VA_ARGS__);                           \
		if (n < 0 || (size_t)n >= left)                               \
			return -1;                                            \
		p += n;                                                       \
		left -= (size_t)n;                                            \
	} while (0)

	OUT("mte: %s tag check fault in %s[%d]", f->kind == MTE_FAULT_SYNC ? "sync" : "async", f->comm,
	    (int)f->tid);
	if (f->kind == MTE_FAULT_SYNC) {
		if (f->mem_tag == MTE_TAG_UNKNOWN)
			snprintf(mem, sizeof(mem), "unknown");
		else
			snprintf(mem, sizeof(mem), "0x%x", (unsigned)f->mem_tag);
		OUT(": addr 0x%016" PRIx64 " pointer tag 0x%x memory tag %s pc 0x%" PRIx64, f->addr,
		    f->ptr_tag, mem, f->pc);
		if (f->pid) {
			OUT(" pid %d", (int)f->pid);
			if (f->has_tags) {
				mte_fault_tags_str(f, tags, sizeof(tags));
				OUT(" tags %s", tags);
			}
		}
	} else if (f->pid) {
		OUT(": pid %d", (int)f->pid);
	}
	if (f->cgroup[0])
		OUT(" cgroup %s", f->cgroup);
	OUT("%s", sfx[f->report]);
	return (int)(p - buf);
#undef OUT
}

/* The "suppressed" line: what it gives is what the line says. */
static void check_suppressed(const uint8_t *data, size_t len)
{
	struct mte_suppressed s;
	char *line = malloc(len ? len : 1), unit[256], again[1024];
	int r;

	if (!line)
		return;
	memcpy(line, data, len);
	r = mte_suppressed_parse(line, len, &s);
	free(line);
	if (r != 1 && r != 0 && r != -EINVAL)
		abort();
	if (r != 1)
		return;
	if (s.count == 0 || strnlen(s.cgroup, sizeof(s.cgroup)) == sizeof(s.cgroup) ||
	    s.by_id == (s.cgroup[0] != '\0') || (!s.by_id && s.cgroup[0] != '/'))
		abort();
	if (s.by_id)
		snprintf(again, sizeof(again), "mte: %" PRIu64 " fault reports suppressed for cgroup id %" PRIu64,
			 s.count, s.cgroup_id);
	else
		snprintf(again, sizeof(again), "mte: %" PRIu64 " fault reports suppressed for %s", s.count, s.cgroup);
	{
		struct mte_suppressed t;

		if (mte_suppressed_parse(again, strlen(again), &t) != 1 || t.count != s.count ||
		    t.by_id != s.by_id || t.cgroup_id != s.cgroup_id || strcmp(t.cgroup, s.cgroup))
			abort();
	}
	if (cgroup_system_unit(s.cgroup, unit, sizeof(unit)) && !unit_name_valid_n(unit, strlen(unit)))
		abort();
}

static bool same(const struct mte_fault *a, const struct mte_fault *b)
{
	if (a->kind != b->kind || strcmp(a->comm, b->comm) || a->tid != b->tid || a->pid != b->pid ||
	    strcmp(a->cgroup, b->cgroup) || a->report != b->report || a->has_addr != b->has_addr ||
	    a->has_tags != b->has_tags)
		return false;
	if (a->has_addr && (a->addr != b->addr || a->ptr_tag != b->ptr_tag || a->mem_tag != b->mem_tag ||
			    a->pc != b->pc))
		return false;
	for (int i = 0; a->has_tags && i < MTE_FAULT_NTAGS; i++)
		if (a->tags[i] != b->tags[i])
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t len = nl ? (size_t)(nl - data) : size;
	struct mte_fault f, g;
	struct mte_cause_info ci;
	char *line, tags[32], unit[64], again[1024];
	int r, n;

	/* An exact-size copy: ASan sees any read past LEN. */
	line = malloc(len ? len : 1);
	if (!line)
		return 0;
	memcpy(line, data, len);
	r = mte_fault_parse(line, len, &f);
	free(line);
	check_suppressed(data, len);
	if (r != 1 && r != 0 && r != -EINVAL)
		abort();
	if (r != 1)
		return 0;

	/* What a fault line gives. */
	if (strnlen(f.comm, sizeof(f.comm)) == sizeof(f.comm) ||
	    strnlen(f.cgroup, sizeof(f.cgroup)) == sizeof(f.cgroup))
		abort();
	if (f.tid < 0 || f.pid < 0 || (unsigned)f.report > MTE_FAULT_REPORT_SYSCALL)
		abort();
	if (f.kind == MTE_FAULT_SYNC) {
		if (!f.has_addr || f.ptr_tag != ((f.addr >> 56) & 0xf) || f.mem_tag < -1 || f.mem_tag > 15)
			abort();
	} else if (f.has_addr || f.has_tags) {
		abort();
	}
	if (f.has_tags && !f.pid)
		abort();

	/* The tags field prints back as it was given (modulo case). */
	mte_fault_tags_str(&f, tags, sizeof(tags));
	if (f.has_tags) {
		const char *t = memmem(data, len, " tags ", 6);
		bool found = false;

		if (strlen(tags) != MTE_FAULT_NTAGS + 2)
			abort();
		for (; t; t = memmem(t + 1, len - (size_t)(t + 1 - (const char *)data), " tags ", 6)) {
			size_t off = (size_t)(t - (const char *)data) + 6;

			if (off + strlen(tags) <= len && !strncasecmp((const char *)data + off, tags, strlen(tags)))
				found = true;
		}
		if (!found)
			abort();
	} else if (tags[0]) {
		abort();
	}

	/* The canonical line of F parses back to F (when COMM is as the
	 * kernel has it, at most 15 bytes: longer ones can be ambiguous). */
	if (strlen(f.comm) <= 15 && (n = format_line(&f, again, sizeof(again))) > 0) {
		if (mte_fault_parse(again, (size_t)n, &g) != 1 || !same(&f, &g)) {
			fprintf(stderr, "round trip failed: %s\n", again);
			abort();
		}
	}

	if (cgroup_system_unit(f.cgroup, unit, sizeof(unit)) && !unit_name_valid_n(unit, strlen(unit)))
		abort();
	if (cgroup_user_unit(f.cgroup, unit, sizeof(unit)) && !unit_name_valid_n(unit, strlen(unit)))
		abort();

	mte_classify(&f, NULL, &ci);
	check_cause(&f, &ci, false);
	if (nl && f.has_addr) {
		struct blob b = { nl + 1, size - len - 1, 0 };
		uint64_t g0 = (f.addr & 0x00ffffffffffffffULL) & ~15ULL;
		struct mte_mem_view v = { blob_tag, blob_read, &b };

		/* The fault's granule is the blob's 64th (or as far in as it
		 * can be). */
		b.base = g0 >= 64 * 16 ? g0 - 64 * 16 : 0;
		mte_classify(&f, &v, &ci);
		check_cause(&f, &ci, true);
	}
	return 0;
}
