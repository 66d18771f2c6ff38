/* mtagtest -- memory-safety bugs on jemalloc memory, for the MTE-aware
 * libjemalloc2 (patches/jemalloc).  Linked with -ljemalloc; run under
 * qemu-aarch64 -cpu max by tests/jemalloc/run.
 *
 *   mtagtest status          "tagging: yes|no" (does malloc return tagged
 *                            pointers) and the tag-check mode
 *   mtagtest overflow SIZE   write one byte past an object of SIZE bytes,
 *                            into the next region of the same size class
 *   mtagtest uaf-tcache SIZE free (through the thread cache), then write
 *   mtagtest uaf-direct SIZE dallocx(MALLOCX_TCACHE_NONE), then write
 *   mtagtest extent SIZE     write one byte past an extent-backed object
 *   mtagtest realloc         write through the old pointer after a realloc
 *                            that moved the object
 *   mtagtest double-free     free the same object twice
 *   mtagtest classes MAX     for every size class from 8 bytes to MAX, in a
 *                            child each: overflow by one byte; prints one
 *                            line per class, exits 0 when all trapped with
 *                            SIGSEGV si_code 9 (SEGV_MTESERR)
 *   mtagtest neighbours SIZE 1,000 live objects of SIZE: two that touch in
 *                            one slab never have the same tag (exit 0)
 *   mtagtest api             every allocation API, used correctly: must
 *                            not fault; checks what they return
 *
 * On SIGSEGV it prints "mtagtest: SIGSEGV si_code=N addr=0xA" and dies of
 * the signal; when a bug goes unnoticed it prints "mtagtest: BUG completed"
 * and exits 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jemalloc/jemalloc.h>

#ifndef PR_GET_TAGGED_ADDR_CTRL
#define PR_GET_TAGGED_ADDR_CTRL 56
#endif

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	char buf[96];
	int n;

	(void)uc;
	n = snprintf(buf, sizeof(buf), "mtagtest: SIGSEGV si_code=%d addr=%p\n",
		     si->si_code, si->si_addr);
	if (write(1, buf, (size_t)n) < 0)
		_exit(3);
	signal(sig, SIG_DFL);
	raise(sig);
	_exit(3);
}

static void catch_segv(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	/* Reset and not deferred: the raise() in the handler kills. */
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
}

static unsigned tag_of(const void *p)
{
	return (unsigned)((uintptr_t)p >> 56) & 0xf;
}

static void die(const char *what)
{
	fprintf(stderr, "mtagtest: %s\n", what);
	exit(2);
}

/* Dangling pointers live where the compiler cannot see them dangle. */
static volatile uintptr_t stale;

/* Keep the compiler from seeing through the bugs. */
static void poke(volatile char *p)
{
	*p = 0x5a;
}

static void completed(const char *bug)
{
	printf("mtagtest: %s completed\n", bug);
	fflush(stdout);
	exit(0);
}

/* Two objects of SIZE, B right after A in memory (same slab). */
static char *adjacent_pair(size_t size, char **b_out)
{
	char *keep[256];
	char *a = NULL;
	int i, j;

	for (i = 0; i < 256 && !a; i++) {
		keep[i] = malloc(size);
		if (!keep[i])
			die("malloc failed");
		for (j = 0; j < i && !a; j++) {
			uintptr_t x = (uintptr_t)keep[j] & ((1ULL << 56) - 1);
			uintptr_t y = (uintptr_t)keep[i] & ((1ULL << 56) - 1);
			if (x + malloc_usable_size(keep[j]) == y) {
				a = keep[j];
				*b_out = keep[i];
			}
		}
	}
	return a;
}

static int bug_overflow(size_t size)
{
	char *b, *a = adjacent_pair(size, &b);
	size_t us;

	if (!a)
		die("no two adjacent objects");
	us = malloc_usable_size(a);

	printf("mtagtest: overflow %zu (usable %zu): %p tag %u -> next %p tag %u\n",
	       size, us, (void *)a, tag_of(a), (void *)b, tag_of(b));
	fflush(stdout);
	poke(a + us);
	completed("overflow");
	return 0;
}

static int bug_uaf(size_t size, int tcache)
{
	char *p = tcache ? malloc(size) : mallocx(size, MALLOCX_TCACHE_NONE);

	if (!p)
		die("allocation failed");
	memset(p, 1, size);
	stale = (uintptr_t)p;
	if (tcache)
		free(p);
	else
		dallocx(p, MALLOCX_TCACHE_NONE);
	printf("mtagtest: use after free (%s) %zu: %p\n",
	       tcache ? "tcache" : "no tcache", size, (void *)stale);
	fflush(stdout);
	poke((char *)stale);
	completed(tcache ? "uaf-tcache" : "uaf-direct");
	return 0;
}

static int bug_extent(size_t size)
{
	char *p = malloc(size);
	size_t us;

	if (!p)
		die("malloc failed");
	us = malloc_usable_size(p);
	memset(p, 1, us);
	printf("mtagtest: past an extent of %zu (usable %zu): %p tag %u\n",
	       size, us, (void *)p, tag_of(p));
	fflush(stdout);
	poke(p + us);
	completed("extent");
	return 0;
}

static int bug_realloc(void)
{
	char *old = malloc(32), *q;

	if (!old)
		die("malloc failed");
	memset(old, 1, 32);
	stale = (uintptr_t)old;
	q = realloc(old, 1 << 20);
	if (!q)
		die("realloc failed");
	if (((uintptr_t)q & ((1ULL << 56) - 1)) == (stale & ((1ULL << 56) - 1)))
		die("realloc did not move");
	if (q[31] != 1)
		die("realloc lost the contents");
	printf("mtagtest: realloc moved %p -> %p\n", (void *)stale, (void *)q);
	fflush(stdout);
	poke((char *)stale);
	completed("realloc");
	return 0;
}

static int bug_double_free(void)
{
	char *p = malloc(48);

	stale = (uintptr_t)p;
	free(p);
	printf("mtagtest: double free %p\n", (void *)stale);
	fflush(stdout);
	free((void *)stale);
	completed("double-free");
	return 0;
}

/* The allocation tag of the granule ADDR is in (LDG). */
static unsigned mem_tag(const void *addr)
{
	uintptr_t r = (uintptr_t)addr & ~(uintptr_t)15;

	__asm__ volatile(".arch armv8.5-a+memtag\n\tldg %0, [%0]" : "+r"(r) : : "memory");
	return tag_of((void *)r);
}

/* Attempts per size class at finding a target whose tag differs from the
 * object's (see run_overflow_child). */
#define CLASS_TRIES 16

/*
 * In a child: a one-byte overflow of an object of SIZE; returns the
 * si_code it reported (-1: none), *ST its wait status, *EQUAL how many
 * targets it passed over because their memory tag was the object's.
 *
 * Two adjacent regions in one slab always have different tags; two that
 * straddle a slab boundary, or an object and whatever follows its extent,
 * are in different extents, whose tags the allocator does not compare:
 * 1 in 14 they match, and the overflow then cannot trap.  So before it
 * writes, the child reads the memory tag of the byte it will write (LDG)
 * and, while it equals the object's tag, takes a fresh object (the old
 * ones stay allocated: the next pair is elsewhere, with new random tags)
 * up to CLASS_TRIES times.  This cannot hide broken tagging: untagged
 * pointers and untagged memory compare equal every time (the child exits
 * 4: no target), and tags that differ but are not checked do not trap.
 * That neighbours in one slab always differ is "mtagtest neighbours".
 */
static int run_overflow_child(size_t size, int *st, int *equal)
{
	int code = -1, fds[2];
	pid_t pid;

	*equal = 0;
	if (pipe(fds))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		char *b, *a = NULL, *t = NULL;
		char msg[32];
		int tries, n;

		dup2(fds[1], 1);
		catch_segv();
		for (tries = 0; tries < CLASS_TRIES; tries++) {
			/* Small classes: into the next region; large ones: past
			 * the extent's end. */
			a = adjacent_pair(size, &b);
			if (!a)
				a = malloc(size);
			if (!a)
				_exit(5);
			t = a + malloc_usable_size(a);
			if (tag_of(a) != 0 && mem_tag(t) != tag_of(a))
				break;
		}
		n = snprintf(msg, sizeof(msg), "equal=%d\n", tries);
		if (write(1, msg, (size_t)n) < 0)
			_exit(3);
		if (tries == CLASS_TRIES)
			_exit(4);
		poke(t);
		_exit(0);
	}
	close(fds[1]);
	{
		char buf[256] = "";
		size_t len = 0;
		ssize_t r;
		char *c;

		while (len < sizeof(buf) - 1 &&
		       (r = read(fds[0], buf + len, sizeof(buf) - 1 - len)) > 0)
			len += (size_t)r;
		buf[len] = 0;
		c = strstr(buf, "equal=");
		if (c)
			*equal = atoi(c + 6);
		c = strstr(buf, "si_code=");
		if (c)
			code = atoi(c + 8);
	}
	close(fds[0]);
	waitpid(pid, st, 0);
	return code;
}

/* Every size class up to MAX: one child each overflows by one byte. */
static int classes(size_t max)
{
	size_t size = 1, n = 0, bad = 0, passed_over = 0, classes_eq = 0;

	signal(SIGSEGV, SIG_DFL);
	while (size <= max) {
		size_t cls = nallocx(size, 0);
		int st = 0, equal = 0, code;

		code = run_overflow_child(size, &st, &equal);
		n++;
		if (equal > 0) {
			passed_over += (size_t)equal;
			classes_eq++;
		}
		if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV && code == 9) {
			if (equal)
				printf("class %zu (request %zu): SIGSEGV si_code=9 (after %d target%s with the same tag)\n",
				       cls, size, equal, equal > 1 ? "s" : "");
			else
				printf("class %zu (request %zu): SIGSEGV si_code=9\n", cls, size);
		} else if (WIFEXITED(st) && WEXITSTATUS(st) == 4) {
			bad++;
			printf("class %zu (request %zu): NOT TRAPPED (the byte past the object had the object's tag %d times: untagged?)\n",
			       cls, size, CLASS_TRIES);
		} else {
			bad++;
			printf("class %zu (request %zu): NOT TRAPPED (status 0x%x, si_code %d)\n",
			       cls, size, st, code);
		}
		size = cls + 1;
	}
	printf("mtagtest: %zu classes up to %zu, %zu trapped (%zu passed over %zu same-tag targets), %zu did not\n",
	       n, max, n - bad, classes_eq, passed_over, bad);
	return bad ? 1 : 0;
}

static int cmp_ptr(const void *x, const void *y)
{
	uintptr_t a = *(const uintptr_t *)x & ((1ULL << 56) - 1);
	uintptr_t b = *(const uintptr_t *)y & ((1ULL << 56) - 1);

	return a < b ? -1 : a > b;
}

/*
 * NEIGHBOURS live objects of SIZE (a small class): of every two that touch
 * in memory, how many have the same tag.  In one slab that must never
 * happen (the patch excludes the neighbours' tags); only where two slabs
 * touch can it, by chance.  A slab holds NREGS (arenas.bin.<i>.nregs)
 * regions, so the objects span at most N / NREGS + 2 slabs: more equal
 * pairs than slab boundaries is a failure.  Without the exclusion 1 pair
 * in 15 would match.
 */
#define NEIGHBOURS 1000
static int neighbours(size_t size)
{
	static uintptr_t v[NEIGHBOURS];
	size_t cls = nallocx(size, 0), sz, i, adjacent = 0, equal = 0, bound;
	unsigned nbins, bin;
	uint32_t nregs = 0;
	char name[64];

	sz = sizeof(nbins);
	if (mallctl("arenas.nbins", &nbins, &sz, NULL, 0))
		die("mallctl arenas.nbins");
	for (bin = 0; bin < nbins; bin++) {
		size_t bsz;
		sz = sizeof(bsz);
		snprintf(name, sizeof(name), "arenas.bin.%u.size", bin);
		if (!mallctl(name, &bsz, &sz, NULL, 0) && bsz == cls)
			break;
	}
	if (bin == nbins)
		die("not a small size class");
	sz = sizeof(nregs);
	snprintf(name, sizeof(name), "arenas.bin.%u.nregs", bin);
	if (mallctl(name, &nregs, &sz, NULL, 0) || nregs == 0)
		die("mallctl arenas.bin.N.nregs");
	for (i = 0; i < NEIGHBOURS; i++) {
		v[i] = (uintptr_t)malloc(size);
		if (!v[i])
			die("malloc failed");
		if (!tag_of((void *)v[i]))
			die("untagged pointer");
	}
	qsort(v, NEIGHBOURS, sizeof(v[0]), cmp_ptr);
	for (i = 1; i < NEIGHBOURS; i++) {
		uintptr_t x = v[i - 1] & ((1ULL << 56) - 1);
		uintptr_t y = v[i] & ((1ULL << 56) - 1);
		if (x + cls != y)
			continue;
		adjacent++;
		equal += tag_of((void *)v[i - 1]) == tag_of((void *)v[i]);
	}
	bound = NEIGHBOURS / nregs + 2;
	printf("mtagtest: neighbours %zu (class %zu, %u a slab): %zu adjacent pairs, %zu with the same tag (at most %zu slab boundaries)\n",
	       size, cls, nregs, adjacent, equal, bound);
	if (adjacent < NEIGHBOURS / 2)
		die("too few adjacent objects to judge");
	return equal <= bound ? 0 : 1;
}

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "mtagtest: api: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
	exit(1); } } while (0)

static void fill_check(char *p, size_t n, int c)
{
	size_t i;

	memset(p, c, n);
	for (i = 0; i < n; i++)
		CHECK(p[i] == (char)c);
}

static int api(void)
{
	size_t sizes[] = { 1, 8, 15, 16, 17, 48, 100, 4096, 20000, 70000, 1 << 21 };
	size_t i, j;
	int tagged = 0;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t sz = sizes[i], us;
		char *p, *q, *z;
		void *v;

		if (getenv("MTAGTEST_TRACE"))
			fprintf(stderr, "api: size %zu\n", sz);

		p = malloc(sz);
		CHECK(p);
		tagged |= tag_of(p) != 0;
		us = malloc_usable_size(p);
		CHECK(us >= sz);
		CHECK(us >= 16 || !tag_of(p));
		CHECK(sallocx(p, 0) == us);
		CHECK(nallocx(sz, 0) == us);
		fill_check(p, us, 0x11);

		z = calloc(3, sz);
		CHECK(z);
		for (j = 0; j < 3 * sz; j++)
			CHECK(z[j] == 0);

		q = realloc(p, sz * 2 + 1);
		CHECK(q);
		for (j = 0; j < sz; j++)
			CHECK(q[j] == 0x11);
		fill_check(q, malloc_usable_size(q), 0x22);
		q = realloc(q, sz / 2 + 1);
		CHECK(q);
		fill_check(q, malloc_usable_size(q), 0x23);

		p = aligned_alloc(64, (sz + 63) & ~(size_t)63);
		CHECK(p && ((uintptr_t)p & 63) == 0);
		fill_check(p, malloc_usable_size(p), 0x33);
		free(p);

		CHECK(posix_memalign(&v, 256, sz) == 0);
		CHECK(((uintptr_t)v & 255) == 0);
		fill_check(v, malloc_usable_size(v), 0x44);
		free(v);

		p = mallocx(sz, MALLOCX_ZERO);
		CHECK(p);
		for (j = 0; j < sz; j++)
			CHECK(p[j] == 0);
		fill_check(p, sallocx(p, 0), 0x55);
		p = rallocx(p, sz + 100, MALLOCX_ZERO);
		CHECK(p);
		for (j = 0; j < sz; j++)
			CHECK(p[j] == 0x55);
		fill_check(p, sallocx(p, 0), 0x56);
		us = xallocx(p, sz + 200, 0, 0);
		CHECK(us == sallocx(p, 0));
		fill_check(p, us, 0x57);
		us = xallocx(p, 1, 0, 0);
		CHECK(us == sallocx(p, 0) && us >= 16);
		fill_check(p, us, 0x58);
		sdallocx(p, us, 0);

		p = mallocx(sz, MALLOCX_ALIGN(4096));
		CHECK(p && ((uintptr_t)p & 4095) == 0);
		fill_check(p, sallocx(p, 0), 0x66);
		sdallocx(p, sz, MALLOCX_ALIGN(4096));

		p = mallocx(sz, MALLOCX_TCACHE_NONE);
		CHECK(p);
		fill_check(p, sz, 0x77);
		dallocx(p, MALLOCX_TCACHE_NONE);

		free(q);
		free(z);
	}
	/* Many small objects alive at once: neighbours must not fault. */
	{
		char *v[1000];
		for (i = 0; i < 1000; i++) {
			v[i] = malloc(8 + i % 64);
			fill_check(v[i], malloc_usable_size(v[i]), (int)i);
		}
		for (i = 0; i < 1000; i += 2)
			free(v[i]);
		for (i = 1; i < 1000; i += 2) {
			CHECK(v[i][0] == (char)i);
			free(v[i]);
		}
	}
	{
		void *r = realloc(malloc(10), 0);
		free(r);
	}
	free(NULL);
	printf("mtagtest: api ok (tagged pointers: %s)\n", tagged ? "yes" : "no");
	return 0;
}

static int status(void)
{
	int ctrl = prctl(PR_GET_TAGGED_ADDR_CTRL, 0, 0, 0, 0);
	void *p = malloc(32);
	printf("tagging: %s\nctrl: %d\n", tag_of(p) ? "yes" : "no", ctrl);
	free(p);
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	size_t n = argc > 2 ? strtoull(argv[2], NULL, 0) : 32;

	static char outbuf[4096];

	/* A static buffer: printing between a free and the bug must not
	 * allocate (it could take the freed region back, with a new tag that
	 * may, 1 in 13, equal the old one: reuse is not the bug tested). */
	setvbuf(stdout, outbuf, _IOLBF, sizeof(outbuf));
	if (!strcmp(m, "status"))
		return status();
	if (!strcmp(m, "classes"))
		return classes(n);
	if (!strcmp(m, "neighbours"))
		return neighbours(n);
	catch_segv();
	if (!strcmp(m, "api"))
		return api();
	if (!strcmp(m, "overflow"))
		return bug_overflow(n);
	if (!strcmp(m, "uaf-tcache"))
		return bug_uaf(n, 1);
	if (!strcmp(m, "uaf-direct"))
		return bug_uaf(n, 0);
	if (!strcmp(m, "extent"))
		return bug_extent(n);
	if (!strcmp(m, "realloc"))
		return bug_realloc();
	if (!strcmp(m, "double-free"))
		return bug_double_free();
	fprintf(stderr, "usage: mtagtest status|api|classes MAX|neighbours SIZE|overflow SIZE|uaf-tcache SIZE|uaf-direct SIZE|extent SIZE|realloc|double-free\n");
	return 2;
}
