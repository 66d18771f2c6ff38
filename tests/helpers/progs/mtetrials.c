/* mtetrials -- count how often glibc malloc's memory tags miss a heap bug
 * (issue 33).  Used by the glibc suite, with the mtag glibc and with
 * Debian's stock libc6 (glibc.mem.tagging=3), under qemu-aarch64.
 *
 *   mtetrials KIND SIZE TRIALS
 *
 * KIND is one of
 *   overflow          a = malloc(SIZE), b = malloc(SIZE); when the two are
 *                     neighbours, write through the lower one into the
 *                     first granule of the higher one (an indexed write
 *                     past the end that skips the chunk header between)
 *   overflow-realloc  the same after realloc(lower, SIZE - 16), which
 *                     keeps the chunk in place and gives it a new tag
 *   uaf               a = malloc(SIZE), free(a), write through a
 *   uaf-realloc       a = malloc(SIZE), b = realloc(a, SIZE - 16) in place,
 *                     write through a
 *   reuse             a = malloc(SIZE), free(a), c = malloc(SIZE); when c
 *                     is the chunk a was, write through a
 *
 * A trial whose write faults is caught: with SEGV_MTESERR (precise tag
 * check fault), or otherwise (counted apart: "unmapped", a stale pointer
 * to an mmapped chunk that free unmapped).  The handler returns to the
 * trial with siglongjmp, so one process runs every trial (run it with
 * precise faults: mem.tagging=3).  A write that completes is missed.  Trials where the allocations do not
 * have the layout the bug needs are skipped and do not count; the
 * program runs until TRIALS have counted or 20 * TRIALS were attempted.
 * A fault outside the trial's write ends the program with status 2.
 *
 * mallopt(M_MMAP_THRESHOLD, 128 KiB) fixes the mmap threshold (it
 * otherwise rises after the first free of an mmapped chunk): SIZE above
 * it gives mmapped chunks.  The tcache is turned off from outside
 * (glibc.malloc.tcache_count=0) to reach the fastbins and smallbins.
 *
 * Prints "mtetrials: KIND SIZE trials=N caught=C missed=M skipped=S
 * unmapped=U" (U of the C were not tag check faults).
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SEGV_MTESERR
#define SEGV_MTESERR 9
#endif

#define ADDR(p) ((uintptr_t)(p) & (((uintptr_t)1 << 56) - 1))
/* Chunk header in front of each allocation when tagging (two words,
 * one granule). */
#define HDR 16
#define MMAP_THRESHOLD (128 * 1024)

static sigjmp_buf recover;
static volatile sig_atomic_t armed;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	static const char msg[] = "mtetrials: unexpected SIGSEGV\n";

	(void)sig;
	(void)uc;
	if (armed) {
		armed = 0;
		siglongjmp(recover, si->si_code == SEGV_MTESERR ? 1 : 2);
	}
	if (write(2, msg, sizeof(msg) - 1) < 0) {
		/* Nothing more to say. */
	}
	_exit(2);
}

/* Store one byte at P; 1 if the store faulted on its tag, 2 if it
 * faulted otherwise (unmapped: an mmapped chunk after free), 0 if not. */
static int faults(volatile char *p)
{
	int r = sigsetjmp(recover, 1);

	if (r)
		return r;
	armed = 1;
	*p = 0x5a;
	armed = 0;
	return 0;
}

/* Writes a into the first granule of b, the chunk right after it; -1
 * when b does not follow a. */
static int overflow_into(char *a, char *b)
{
	if (ADDR(b) != ADDR(a) + malloc_usable_size(a) + HDR)
		return -1;
	return faults(a + (ADDR(b) - ADDR(a)));
}

/* Whether P is an mmapped chunk: bit 1 of the size in its header, read
 * with tag 0, the header's tag. */
static int mmapped(const char *p)
{
	return (*(const volatile size_t *)(ADDR(p) - sizeof(size_t)) & 2) != 0;
}

/* The same pointer, of which the compiler knows nothing: using it after
 * free is the point. */
static char *stale(char *p)
{
	__asm__("" : "+r"(p));
	return p;
}

static int trial(const char *kind, size_t size)
{
	char *a, *b, *lo, *hi;
	int r;

	if (strcmp(kind, "overflow") == 0 || strcmp(kind, "overflow-realloc") == 0) {
		a = malloc(size);
		b = malloc(size);
		if (!a || !b)
			return -2;
		lo = ADDR(a) < ADDR(b) ? a : b;
		hi = lo == a ? b : a;
		if (kind[8] == '-') {
			char *n = realloc(lo, size - 16);

			if (ADDR(n) != ADDR(lo)) {
				/* Moved: not the case being measured. */
				free(n);
				free(hi);
				return -1;
			}
			lo = n;
		}
		r = overflow_into(lo, hi);
		/* A guard keeps the pair from merging into the top chunk, so
		 * that bins are used; it stays allocated. */
		if (size > 128 && !malloc(16))
			return -2;
		free(lo);
		free(hi);
		return r;
	}
	if (strcmp(kind, "uaf") == 0) {
		a = malloc(size);
		if (!a)
			return -2;
		if (size > MMAP_THRESHOLD && !mmapped(a))
			return -1;
		lo = stale(a);
		free(a);
		/* The last byte: a missed write must not hit malloc's links. */
		return faults(lo + size - 1);
	}
	if (strcmp(kind, "uaf-realloc") == 0) {
		a = malloc(size);
		if (!a)
			return -2;
		lo = stale(a);
		b = realloc(a, size - 16);
		if (!b)
			return -2;
		r = ADDR(b) == ADDR(lo) ? faults(lo) : -1;
		free(b);
		return r;
	}
	if (strcmp(kind, "reuse") == 0) {
		a = malloc(size);
		if (!a)
			return -2;
		lo = stale(a);
		free(a);
		b = malloc(size);
		if (!b)
			return -2;
		if (size > MMAP_THRESHOLD && !mmapped(b)) {
			free(b);
			return -1;
		}
		r = ADDR(b) == ADDR(lo) ? faults(lo) : -1;
		free(b);
		return r;
	}
	return -3;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	long want, done = 0, caught = 0, missed = 0, skipped = 0, unmapped = 0, attempts;
	size_t size;
	int r;

	if (argc != 4 || (size = strtoul(argv[2], NULL, 0)) < 32 || size % 16 ||
	    (want = strtol(argv[3], NULL, 0)) <= 0) {
		fprintf(stderr, "usage: mtetrials KIND SIZE TRIALS (SIZE a multiple of 16, >= 32)\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);

	for (attempts = 0; done < want && attempts < 20 * want; attempts++) {
		r = trial(argv[1], size);
		if (r == -3) {
			fprintf(stderr, "mtetrials: unknown kind %s\n", argv[1]);
			return 2;
		}
		if (r == -2) {
			fprintf(stderr, "mtetrials: out of memory\n");
			return 2;
		}
		if (r < 0) {
			skipped++;
			continue;
		}
		done++;
		if (r)
			caught++;
		else
			missed++;
		if (r == 2)
			unmapped++;
	}
	printf("mtetrials: %s %zu trials=%ld caught=%ld missed=%ld skipped=%ld unmapped=%ld\n",
	       argv[1], size, done, caught, missed, skipped, unmapped);
	return 0;
}
