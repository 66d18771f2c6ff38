/* mtebug -- commit one memory-safety bug on glibc malloc memory and report
 * how the process ended.  Used by the arm64, glibc and VM tests.
 *
 *   mtebug overflow   write 8 bytes past a 32-byte allocation, into the
 *                     header granule of the next chunk (tag 0, never a
 *                     tag glibc hands out), then make a system call
 *   mtebug uaf        free a 32-byte allocation and write to it
 *   mtebug none       allocate and free, no bug
 *   mtebug status     print PR_GET_TAGGED_ADDR_CTRL and AT_HWCAP2 MTE bit
 *
 * On SIGSEGV it prints "mtebug: SIGSEGV si_code=N addr=0xA" and dies of the
 * signal (default action re-raised); when the bug goes unnoticed it prints
 * "mtebug: <bug> completed" and exits 0.  The bugs themselves are in
 * mtebug-bugs.h, shared with the VM test's injection library.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "mtebug-bugs.h"

#ifndef HWCAP2_MTE
#define HWCAP2_MTE (1UL << 18)
#endif
#ifndef PR_GET_TAGGED_ADDR_CTRL
#define PR_GET_TAGGED_ADDR_CTRL 56
#endif

static void put_hex(char *buf, size_t *n, uintptr_t v)
{
	char tmp[2 * sizeof(v)];
	int i = 0;

	do {
		tmp[i++] = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v && i < (int)sizeof(tmp));
	buf[(*n)++] = '0';
	buf[(*n)++] = 'x';
	while (i)
		buf[(*n)++] = tmp[--i];
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	/* Only async-signal-safe calls here. */
	char buf[96];
	size_t n = 0;
	const char *p = "mtebug: SIGSEGV si_code=";
	int code = si->si_code;

	(void)uc;
	while (*p)
		buf[n++] = *p++;
	if (code < 0) {
		buf[n++] = '-';
		code = -code;
	}
	if (code >= 10)
		buf[n++] = (char)('0' + code / 10 % 10);
	buf[n++] = (char)('0' + code % 10);
	p = " addr=";
	while (*p)
		buf[n++] = *p++;
	put_hex(buf, &n, (uintptr_t)si->si_addr);
	buf[n++] = '\n';
	(void)!write(STDOUT_FILENO, buf, n);
	signal(sig, SIG_DFL);
	raise(sig);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	const char *bug = argc > 1 ? argv[1] : "none";

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	setvbuf(stdout, NULL, _IONBF, 0);

	if (strcmp(bug, "status") == 0) {
		long ctrl = prctl(PR_GET_TAGGED_ADDR_CTRL, 0, 0, 0, 0);

		printf("mtebug: hwcap2_mte=%d tagged_addr_ctrl=%#lx\n",
		       (getauxval(AT_HWCAP2) & HWCAP2_MTE) ? 1 : 0, ctrl);
		return 0;
	}

	if (mtebug_commit(bug) < 0) {
		fprintf(stderr, "usage: mtebug overflow|uaf|none|status\n");
		return 2;
	}
	printf("mtebug: %s completed\n", bug);
	return 0;
}
