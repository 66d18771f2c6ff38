/* mtebug-bugs.h -- the injected heap bugs, shared by tests/helpers/progs/mtebug.c
 * and the VM test's LD_PRELOAD library (tests/helpers/inject/mtaginject.c), so
 * both commit exactly the same writes.
 *
 * "overflow": 8 bytes past a 32-byte allocation, onto the next chunk's
 * prev_size field: its header granule has tag 0, which glibc never hands
 * out, and the field is unused while that chunk is in use, so nothing is
 * corrupted when tagging is off.  "uaf": a write to a freed 32-byte
 * allocation past the tcache link and key words.  "none": no bug.  A
 * system call follows, so an asynchronous fault is delivered before the
 * function returns.  Returns 0, or -1 for an unknown KIND or no memory.
 */
#ifndef MTAG_MTEBUG_BUGS_H
#define MTAG_MTEBUG_BUGS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The stale pointer lives where the compiler cannot see it dangles. */
static volatile uintptr_t mtebug_stale;

static inline int mtebug_commit(const char *kind)
{
	volatile char *a, *b;

	if (strcmp(kind, "overflow") != 0 && strcmp(kind, "uaf") != 0 &&
	    strcmp(kind, "none") != 0)
		return -1;
	a = malloc(32);
	b = malloc(32);
	if (!a || !b) {
		free((void *)a);
		free((void *)b);
		return -1;
	}
	if (strcmp(kind, "overflow") == 0) {
		for (int i = 0; i < 40; i++)
			a[i] = 'A';
	} else if (strcmp(kind, "uaf") == 0) {
		mtebug_stale = (uintptr_t)b;
		free((void *)b);
		b = NULL;
		for (int i = 16; i < 24; i++)
			((volatile char *)mtebug_stale)[i] = 'U';
	}
	(void)syscall(SYS_getppid);
	free((void *)a);
	free((void *)b);
	return 0;
}

#endif
