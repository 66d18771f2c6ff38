/* mtagtest -- memory-safety bugs on jemalloc memory, for the MTE-aware
 * libjemalloc2 (patches/jemalloc).  Linked with -ljemalloc; run under
 * qemu-aarch64 -cpu max by tests/ts/jemalloc/run.
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
 *   mtagtest tags SIZE N [MASK]
 *                            three adjacent objects of SIZE freed and
 *                            allocated again N times: prints the histogram
 *                            of the middle one's tags; exit 0 when every
 *                            tag of MASK (default 0xfffe: 1..15) shows up
 *                            at least N/30 times and no other does, and no
 *                            tag equals the object's previous tag or a
 *                            neighbour's (tags spread, no lucky reuse)
 *   mtagtest trials KIND SIZE N
 *                            N trials of one bug kind, each a write that
 *                            must trap (caught in process: SIGSEGV
 *                            si_code 9, siglongjmp): overflow (into the
 *                            object right after, or past a large one),
 *                            overflow-realloc (the same from an object
 *                            realloc moved), uaf (after free), reuse,
 *                            reuse-calloc, reuse-realloc (through the
 *                            dangling pointer once malloc, calloc or
 *                            realloc handed the memory out again); prints
 *                            "N trials, M missed"; exit 0 when M is 0
 *   mtagtest batch SIZE N ZERO
 *                            experimental.batch_alloc of N objects: tagged,
 *                            a granule each, neighbours unlike, zeroed if
 *                            ZERO, usable and freed without a fault
 *   mtagtest reset           arena.<i>.reset and arena.<i>.destroy of an
 *                            arena with live objects, then zeroed
 *                            allocations from the same memory: no fault,
 *                            zeroed, and the old pointers trap
 *   mtagtest bench N         N malloc(32)/free pairs (instruction counts)
 *
 * jemalloc calls prctl() through the PLT; the prctl() below takes those
 * calls, for tests of the heap flag without mtag's kernel:
 * MTAGTEST_EXEC_DEFAULT=N answers PR_GET_MTE_EXEC_DEFAULT with N and
 * MTAGTEST_CTRL=N sets PR_SET_TAGGED_ADDR_CTRL to N before the first
 * PR_GET_TAGGED_ADDR_CTRL (what mtag's glibc does at start-up from the
 * exec default, or a program that checks PROT_MTE memory of its own).
 *
 * On SIGSEGV it prints "mtagtest: SIGSEGV si_code=N addr=0xA" and dies of
 * the signal; when a bug goes unnoticed it prints "mtagtest: BUG completed"
 * and exits 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jemalloc/jemalloc.h>

#ifndef PR_GET_TAGGED_ADDR_CTRL
#define PR_GET_TAGGED_ADDR_CTRL 56
#endif
#ifndef PR_SET_TAGGED_ADDR_CTRL
#define PR_SET_TAGGED_ADDR_CTRL 55
#endif
#define MTAGTEST_PR_GET_MTE_EXEC_DEFAULT 0x4d545204

/* See the top: injection of the kernel side of the heap flag. */
int prctl(int option, ...)
{
	static int ctrl_done;
	unsigned long a[4];
	const char *s;
	va_list ap;
	int i;

	va_start(ap, option);
	for (i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	if (option == MTAGTEST_PR_GET_MTE_EXEC_DEFAULT &&
	    (s = getenv("MTAGTEST_EXEC_DEFAULT")) != NULL)
		return (int)strtol(s, NULL, 0);
	if (option == PR_GET_TAGGED_ADDR_CTRL && !ctrl_done &&
	    (s = getenv("MTAGTEST_CTRL")) != NULL) {
		ctrl_done = 1;
		if (syscall(SYS_prctl, PR_SET_TAGGED_ADDR_CTRL,
			    strtoul(s, NULL, 0), 0UL, 0UL, 0UL) != 0)
			return -1;
	}
	return (int)syscall(SYS_prctl, option, a[0], a[1], a[2], a[3]);
}

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

/* The number of regions a slab of SIZE's class holds (jemalloc's own
 * classes: the first bin of SIZE bytes or more, whatever tagging makes of
 * a request). */
static size_t class_nregs(size_t size)
{
	size_t bsz, sz;
	unsigned nbins, bin;
	uint32_t nregs = 0;
	char name[64];

	sz = sizeof(nbins);
	if (mallctl("arenas.nbins", &nbins, &sz, NULL, 0))
		die("mallctl arenas.nbins");
	for (bin = 0; bin < nbins; bin++) {
		sz = sizeof(bsz);
		snprintf(name, sizeof(name), "arenas.bin.%u.size", bin);
		if (!mallctl(name, &bsz, &sz, NULL, 0) && bsz >= size)
			break;
	}
	if (bin == nbins)
		die("not a small size class");
	sz = sizeof(nregs);
	snprintf(name, sizeof(name), "arenas.bin.%u.nregs", bin);
	if (mallctl(name, &nregs, &sz, NULL, 0) || nregs == 0)
		die("mallctl arenas.bin.N.nregs");
	return nregs;
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
	size_t cls = nallocx(size, 0), i, adjacent = 0, equal = 0, bound;
	size_t nregs = class_nregs(cls);
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
	printf("mtagtest: neighbours %zu (class %zu, %zu a slab): %zu adjacent pairs, %zu with the same tag (at most %zu slab boundaries)\n",
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

/* --- bugs caught in process: one write, trapped or not ------------------ */

static sigjmp_buf trial_env;
static volatile sig_atomic_t trial_armed;
static volatile int trial_code;

static void on_trial_segv(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (!trial_armed) {
		/* Not a trial's write: die of it (returning re-faults). */
		signal(sig, SIG_DFL);
		return;
	}
	trial_armed = 0;
	trial_code = si->si_code;
	siglongjmp(trial_env, 1);
}

/* 1: the write of a byte at P trapped with SEGV_MTESERR; 0: it completed;
 * -1: another fault. */
static int write_traps(volatile char *p)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trial_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	if (sigsetjmp(trial_env, 1))
		return trial_code == 9 ? 1 : -1;
	trial_armed = 1;
	*p = 0x5a;
	trial_armed = 0;
	return 0;
}

static uintptr_t addr_of(const void *p)
{
	return (uintptr_t)p & ((1ULL << 56) - 1);
}

#define KEEP_MAX 4096

/* Keep A and B allocated (the next pair comes after them); when KEEP is
 * full (KEEP_MAX objects or 64 MiB), or A is NULL, free what it holds
 * first. */
static void keep_pair(void **keep, size_t *nkeep, void *a, void *b)
{
	size_t k;

	if (!a || *nkeep + 2 > KEEP_MAX ||
	    (*nkeep + 2) * malloc_usable_size(a) > ((size_t)64 << 20)) {
		for (k = 0; k < *nkeep; k++)
			free(keep[k]);
		*nkeep = 0;
	}
	if (a) {
		keep[(*nkeep)++] = a;
		keep[(*nkeep)++] = b;
	}
}

/* The largest small size class (arenas.bin.<nbins - 1>.size). */
static size_t small_max(void)
{
	unsigned nbins;
	size_t sz = sizeof(nbins), max = 0;
	char name[64];

	if (mallctl("arenas.nbins", &nbins, &sz, NULL, 0) || nbins == 0)
		die("mallctl arenas.nbins");
	snprintf(name, sizeof(name), "arenas.bin.%u.size", nbins - 1);
	sz = sizeof(max);
	if (mallctl(name, &max, &sz, NULL, 0))
		die("mallctl arenas.bin.N.size");
	return max;
}

/*
 * N trials of bug KIND with objects of SIZE.  Small objects of the
 * overflow kinds stay allocated (each trial takes the next two objects,
 * as a program does: the next one may be in the next slab); the others
 * are freed after each trial.  A trial whose layout is not the one the
 * kind needs (two objects not adjacent, memory not handed out again) is
 * not counted, and retried.
 */
static int trials(const char *kind, size_t size, int n)
{
	static void *keep[KEEP_MAX];
	size_t nkeep = 0;
	int done = 0, missed = 0, other = 0, setup = 0, recut = 0, recut_missed = 0;
	size_t page = 0, psz = sizeof(page);

	int small = nallocx(size, 0) <= small_max();

	while (done < n) {
		char *a = NULL, *b = NULL, *q = NULL;
		volatile char *target = NULL;
		int r;

		if (setup > 20 * n + 100)
			die("trials: too many set-ups without the layout");
		if (!strcmp(kind, "overflow") || !strcmp(kind, "overflow-realloc")) {
			if (!strcmp(kind, "overflow"))
				a = malloc(size);
			else
				a = realloc(malloc(16), size);
			if (!a)
				die("malloc failed");
			if (small) {
				b = malloc(size);
				if (!b)
					die("malloc failed");
				if (addr_of(a) + malloc_usable_size(a) != addr_of(b)) {
					setup++;
					keep_pair(keep, &nkeep, a, b);
					continue;
				}
			}
			target = a + malloc_usable_size(a);
		} else if (!strcmp(kind, "uaf")) {
			a = malloc(size);
			if (!a)
				die("malloc failed");
			memset(a, 1, size);
			stale = (uintptr_t)a;
			free(a);
			target = (volatile char *)stale;
			a = NULL;
		} else if (!strncmp(kind, "reuse", 5)) {
			char *old = malloc(size);

			if (!old)
				die("malloc failed");
			memset(old, 1, size);
			stale = (uintptr_t)old;
			free(old);
			if (!strcmp(kind, "reuse"))
				q = malloc(size);
			else if (!strcmp(kind, "reuse-calloc"))
				q = calloc(1, size);
			else if (!strcmp(kind, "reuse-realloc"))
				q = realloc(malloc(16), size);
			else
				die("unknown trial kind");
			if (!q)
				die("malloc failed");
			if (addr_of((void *)stale) < addr_of(q) ||
			    addr_of((void *)stale) >= addr_of(q) + malloc_usable_size(q)) {
				/* Not handed out again over the old pointer. */
				setup++;
				free(q);
				continue;
			}
			target = (volatile char *)stale;
		} else {
			die("unknown trial kind");
		}
		r = write_traps(target);
		if (!small && q) {
			if (!page && mallctl("arenas.page", &page, &psz, NULL, 0))
				die("mallctl arenas.page");
			if ((addr_of((void *)stale) & ~(page - 1)) !=
			    (addr_of(q) & ~(page - 1))) {
				/*
				 * A large object in memory cut differently
				 * (another extent base): its previous tag is
				 * not known (patch 0003); counted apart.
				 */
				recut++;
				recut_missed += r == 0;
				free(q);
				continue;
			}
		}
		done++;
		if (r == 0)
			missed++;
		else if (r < 0)
			other++;
		if (small && b) {
			keep_pair(keep, &nkeep, a, b);
		} else {
			free(a);
		}
		free(q);
	}
	keep_pair(keep, &nkeep, NULL, NULL);
	printf("mtagtest: trials %s %zu: %d trials, %d missed, %d other faults (%d set-ups skipped",
	       kind, size, done, missed, other, setup);
	if (recut)
		printf("; apart: %d reuses of a large object's memory from another extent base, %d missed",
		       recut, recut_missed);
	printf(")\n");
	return missed || other ? 1 : 0;
}

/*
 * Three adjacent objects of SIZE (a small class), freed and allocated
 * again N times (the tcache gives the same three back).  Each time, every
 * object must get a tag unlike the one its memory had before and unlike
 * its live neighbours'; the middle one's tags over the N rounds must cover
 * the tags of MASK (each at least N/30 times: a uniform choice among the
 * 12 or more allowed gives about N/15) and no other.  Tags are kept per
 * address, so that a round where the tcache hands the three back in
 * another order still compares each memory with itself.
 */
#define SEEN_MAX 64
static int tags(size_t size, int n, unsigned mask)
{
	char *v[3], *keep[64];
	struct { uintptr_t at; unsigned tag; } seen[SEEN_MAX];
	unsigned hist[16] = { 0 };
	int i, j, k, nseen = 0, same_prev = 0, same_nb = 0, moved = 0, bad;

	/* Three in a row: consecutive allocations from a fresh slab region. */
	for (i = 0; i < 64; i++) {
		keep[i] = malloc(size);
		if (!keep[i])
			die("malloc failed");
	}
	for (i = 0; i + 2 < 64; i++)
		if (addr_of(keep[i]) + malloc_usable_size(keep[i]) == addr_of(keep[i + 1]) &&
		    addr_of(keep[i + 1]) + malloc_usable_size(keep[i + 1]) == addr_of(keep[i + 2]))
			break;
	if (i + 2 >= 64)
		die("tags: no three adjacent objects");
	for (j = 0; j < 3; j++) {
		v[j] = keep[i + j];
		keep[i + j] = NULL;
		seen[nseen].at = addr_of(v[j]);
		seen[nseen++].tag = tag_of(v[j]);
	}
	for (int round = 0; round < n; round++) {
		for (j = 0; j < 3; j++)
			free(v[j]);
		for (j = 2; j >= 0; j--) {
			v[j] = malloc(size);
			if (!v[j])
				die("malloc failed");
		}
		for (j = 0; j < 3; j++) {
			for (k = 0; k < nseen && seen[k].at != addr_of(v[j]); k++)
				;
			if (k == nseen) {
				moved++;
				if (nseen == SEEN_MAX)
					die("tags: the objects keep moving");
				seen[nseen].at = addr_of(v[j]);
				seen[nseen++].tag = tag_of(v[j]);
				continue;
			}
			if (seen[k].tag == tag_of(v[j]))
				same_prev++;
			seen[k].tag = tag_of(v[j]);
		}
		qsort(v, 3, sizeof(v[0]), cmp_ptr);
		for (j = 0; j < 2; j++)
			if (addr_of(v[j]) + malloc_usable_size(v[j]) == addr_of(v[j + 1]) &&
			    tag_of(v[j]) == tag_of(v[j + 1]))
				same_nb++;
		hist[tag_of(v[1])]++;
	}
	printf("mtagtest: tags %zu, %d rounds: histogram of the middle object's tag:", size, n);
	for (j = 0; j < 16; j++)
		printf(" %d:%u", j, hist[j]);
	printf("\nmtagtest: tags %zu: same as the previous tag %d, same as a neighbour %d, objects at a new address %d\n",
	       size, same_prev, same_nb, moved);
	bad = same_prev || same_nb || moved > n / 100;
	for (j = 0; j < 16; j++)
		if ((mask >> j) & 1 ? hist[j] < (unsigned)(n / 30) : hist[j] != 0)
			bad = 1;
	for (j = 0; j < 64; j++)
		free(keep[j]);
	for (j = 0; j < 3; j++)
		free(v[j]);
	return bad;
}

/*
 * experimental.batch_alloc: N objects of SIZE (MALLOCX_ZERO if ZERO); N 0:
 * a slab's worth and 100 more, so that batch_alloc fills whole fresh slabs
 * (arena_fill_small_fresh) and takes the rest from the tcache.
 */
static int batch(size_t size, size_t n, int zero)
{
	struct {
		void **ptrs;
		size_t num;
		size_t size;
		int flags;
	} pk;
	void **ptrs;
	uintptr_t *sorted;
	size_t filled = 0, sz = sizeof(filled), i, j, untagged = 0, eq = 0;
	int tagging = 0;

	if (n == 0)
		n = class_nregs(size) + 100;
	ptrs = calloc(n, sizeof(*ptrs));
	sorted = calloc(n, sizeof(*sorted));
	if (!ptrs || !sorted)
		die("calloc failed");
	{
		void *p = malloc(32);
		tagging = tag_of(p) != 0;
		free(p);
	}
	pk.ptrs = ptrs;
	pk.num = n;
	pk.size = size;
	pk.flags = zero ? MALLOCX_ZERO : 0;
	if (mallctl("experimental.batch_alloc", &filled, &sz, &pk, sizeof(pk)))
		die("mallctl experimental.batch_alloc");
	for (i = 0; i < filled; i++) {
		size_t us = malloc_usable_size(ptrs[i]);

		if (!tag_of(ptrs[i]))
			untagged++;
		if (tagging) {
			CHECK(us >= 16);
			CHECK(((uintptr_t)ptrs[i] & 15) == 0);
		}
		if (zero)
			for (j = 0; j < us; j++)
				CHECK(((char *)ptrs[i])[j] == 0);
		fill_check(ptrs[i], us, (int)i);
		sorted[i] = (uintptr_t)ptrs[i];
	}
	qsort(sorted, filled, sizeof(sorted[0]), cmp_ptr);
	for (i = 1; i < filled; i++)
		if (addr_of((void *)sorted[i - 1]) + malloc_usable_size((void *)sorted[i - 1]) ==
		    addr_of((void *)sorted[i]) &&
		    tag_of((void *)sorted[i - 1]) == tag_of((void *)sorted[i]))
			eq++;
	for (i = 0; i < filled; i++)
		free(ptrs[i]);
	free(ptrs);
	free(sorted);
	printf("mtagtest: batch %zu x %zu%s: %zu filled, %zu untagged, %zu adjacent pairs with one tag (tagging %s)\n",
	       n, size, zero ? " zeroed" : "", filled, untagged, eq, tagging ? "on" : "off");
	if (filled != n)
		return 1;
	return tagging && (untagged || eq) ? 1 : 0;
}

/* arena.<i>.reset and .destroy with live objects, then zeroed allocations. */
static int reset(void)
{
	static char *small[400], *large[8];
	char name[64];
	unsigned ind, ind2;
	size_t sz = sizeof(ind), i, j;
	int fl, tagging, trapped = 0, stale_checks = 0;
	uintptr_t stale_small, stale_large;

	{
		void *p = malloc(32);
		tagging = tag_of(p) != 0;
		free(p);
	}
	for (int round = 0; round < 2; round++) {
		const char *what = round ? "destroy" : "reset";

		if (mallctl("arenas.create", &ind, &sz, NULL, 0))
			die("mallctl arenas.create");
		fl = MALLOCX_ARENA(ind) | MALLOCX_TCACHE_NONE;
		for (i = 0; i < 400; i++) {
			small[i] = mallocx(48, fl);
			CHECK(small[i]);
			memset(small[i], 0x77, 48);
		}
		for (i = 0; i < 8; i++) {
			large[i] = mallocx(100000, fl);
			CHECK(large[i]);
			memset(large[i], 0x77, 100000);
		}
		stale_small = (uintptr_t)small[7];
		stale_large = (uintptr_t)large[3];
		snprintf(name, sizeof(name), "arena.%u.%s", ind, what);
		if (mallctl(name, NULL, NULL, NULL, 0))
			die("mallctl arena.<i>.reset/destroy");
		if (round) {
			/* A new arena: it may take the destroyed one's memory. */
			if (mallctl("arenas.create", &ind2, &sz, NULL, 0))
				die("mallctl arenas.create");
			fl = MALLOCX_ARENA(ind2) | MALLOCX_TCACHE_NONE;
		}
		for (i = 0; i < 400; i++) {
			small[i] = mallocx(48, fl | MALLOCX_ZERO);
			CHECK(small[i]);
			for (j = 0; j < 48; j++)
				CHECK(small[i][j] == 0);
		}
		for (i = 0; i < 8; i++) {
			large[i] = mallocx(100000, fl | MALLOCX_ZERO);
			CHECK(large[i]);
			for (j = 0; j < 100000; j += 4096)
				CHECK(large[i][j] == 0);
		}
		if (tagging && !round) {
			/* The arena's memory is in use again: the old pointers
			 * must trap (new tag, or tag 0). */
			trapped += write_traps((volatile char *)stale_small) == 1;
			trapped += write_traps((volatile char *)stale_large) == 1;
			stale_checks += 2;
		}
		for (i = 0; i < 400; i++)
			dallocx(small[i], MALLOCX_TCACHE_NONE);
		for (i = 0; i < 8; i++)
			dallocx(large[i], MALLOCX_TCACHE_NONE);
	}
	printf("mtagtest: reset ok: zeroed allocations after arena reset and destroy, %d of %d old pointers trapped (tagging %s)\n",
	       trapped, stale_checks, tagging ? "on" : "off");
	return trapped == stale_checks ? 0 : 1;
}

/* Where bench's pointers go, so that no allocation is optimised out. */
void *volatile mtagtest_sink;

static int bench(long n)
{
	long i;

	for (i = 0; i < n; i++) {
		void *p = malloc(32);

		mtagtest_sink = p;
		free(p);
	}
	printf("mtagtest: bench %ld\n", n);
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
	if (!strcmp(m, "tags"))
		return tags(n, argc > 3 ? atoi(argv[3]) : 15000,
			    argc > 4 ? (unsigned)strtoul(argv[4], NULL, 0) : 0xfffe);
	if (!strcmp(m, "trials") && argc > 4)
		return trials(argv[2], strtoull(argv[3], NULL, 0), atoi(argv[4]));
	if (!strcmp(m, "batch"))
		return batch(n, argc > 3 ? strtoull(argv[3], NULL, 0) : 100,
			     argc > 4 ? atoi(argv[4]) : 0);
	if (!strcmp(m, "reset"))
		return reset();
	if (!strcmp(m, "bench"))
		return bench((long)n);
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
