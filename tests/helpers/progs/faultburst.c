/* faultburst.c -- many tag-check faults from many processes, fast (make
 * reliability: mtag-faultd must give every kernel fault line exactly one
 * entry).
 *
 *   faultburst PROCS FAULTS
 *
 * Forks PROCS processes; each turns on synchronous tag checking for itself
 * (prctl), maps a PROT_MTE page (allocation tag 0) and stores through a
 * pointer with tag 1, FAULTS times, catching each SIGSEGV and going on
 * (siglongjmp).  The kernel logs a fault line for each (rate-limited per
 * cgroup).  Prints "faultburst: N faults in M processes in S s" with the
 * SIGSEGVs counted (SEGV_MTESERR), exit 0 when every process took all its
 * faults; exit 77 without MTE.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef HWCAP2_MTE
#define HWCAP2_MTE (1UL << 18)
#endif
#ifndef PROT_MTE
#define PROT_MTE 0x20
#endif
#ifndef PR_SET_TAGGED_ADDR_CTRL
#define PR_SET_TAGGED_ADDR_CTRL 55
#endif
#ifndef PR_TAGGED_ADDR_ENABLE
#define PR_TAGGED_ADDR_ENABLE (1UL << 0)
#endif
#ifndef PR_MTE_TCF_SYNC
#define PR_MTE_TCF_SYNC (1UL << 1)
#endif
#ifndef PR_MTE_TAG_SHIFT
#define PR_MTE_TAG_SHIFT 3
#endif
#ifndef SEGV_MTESERR
#define SEGV_MTESERR 9
#endif

static sigjmp_buf env;
static volatile sig_atomic_t mte_faults;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code == SEGV_MTESERR)
		mte_faults++;
	siglongjmp(env, 1);
}

static int child(long faults)
{
	struct sigaction sa = { 0 };
	volatile char *page;
	volatile long i;

	if (prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE | PR_MTE_TCF_SYNC |
		  (0xfffeUL << PR_MTE_TAG_SHIFT), 0, 0, 0) != 0) {
		perror("faultburst: prctl");
		return 2;
	}
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_MTE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		perror("faultburst: mmap PROT_MTE");
		return 2;
	}
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	for (i = 0; i < faults; i++) {
		if (sigsetjmp(env, 1) == 0) {
			/* Pointer tag 1, memory tag 0: a tag-check fault. */
			volatile char *p = (volatile char *)((uintptr_t)page | (1UL << 56));

			p[0] = 1;
		}
	}
	if (mte_faults != faults)
		fprintf(stderr, "faultburst: %ld of %ld faults caught\n", (long)mte_faults, faults);
	return mte_faults == faults ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	long procs, faults, ok = 0;

	if (argc != 3 || (procs = atol(argv[1])) <= 0 || (faults = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: faultburst PROCS FAULTS\n");
		return 2;
	}
	if (!(getauxval(AT_HWCAP2) & HWCAP2_MTE)) {
		fprintf(stderr, "faultburst: no MTE (HWCAP2_MTE)\n");
		return 77;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long p = 0; p < procs; p++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("faultburst: fork");
			return 2;
		}
		if (pid == 0)
			_exit(child(faults));
	}
	for (long p = 0; p < procs; p++) {
		int st;

		if (wait(&st) > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
			ok++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("faultburst: %ld faults in %ld processes in %.2f s\n", ok * faults, procs,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return ok == procs ? 0 : 1;
}
