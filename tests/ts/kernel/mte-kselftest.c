// SPDX-License-Identifier: GPL-2.0
/*
 * mte-kselftest.c -- run the kernel's own arm64 selftests
 * (tools/testing/selftests/arm64/{mte,abi,tags} of the tree the kernel was
 * built from, built static by tests/ts/kernel/run into /kselftest/) on the
 * booted kernel, so that every patch of the series is checked by them.
 * One case per program: exit 0 (KSFT_PASS) passes, 4 (KSFT_SKIP) skips,
 * anything else, a signal or the time limit fails. Their "not ok" and
 * "# Totals" lines are forwarded as "# " lines.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mte-init.h"

#define KSFT_DIR "/kselftest"
/*
 * check_gcr_el1_cswitch switches tasks in a loop: under TCG on a loaded
 * 2-core host it took 95 to over 300 s. The guest's clock is the host's
 * wall clock, so this limit only stops a program that hangs; what a guest
 * may use is limited by tests/ts/kernel/run on qemu's CPU time.
 */
#define KSFT_TIMEOUT_MS 1200000
#define KSFT_SKIP 4

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* Forward the interesting lines of buf[0..*len), keep an unfinished one. */
static void forward_lines(const char *prog, char *buf, size_t *len)
{
	char *start = buf, *nl;

	while ((nl = memchr(start, '\n', buf + *len - start))) {
		*nl = 0;
		if (!strncmp(start, "not ok", 6) || !strncmp(start, "# Totals", 8))
			printf("# kselftest %s: %s\n", prog, start);
		start = nl + 1;
	}
	*len = buf + *len - start;
	memmove(buf, start, *len);
	if (*len == 4096) {	/* a line that long: drop it */
		*len = 0;
	}
}

/*
 * Programs that need a kernel feature the virt configuration leaves out;
 * in 6.1 they fail instead of skipping when it is missing.
 */
static const struct {
	const char *prog, *needs, *config;
} needs[] = {
	{ "check_ksm_options", "/sys/kernel/mm/ksm/run", "CONFIG_KSM" },
	{ "check_hugetlb_options", "/proc/sys/vm/nr_hugepages", "CONFIG_HUGETLBFS" },
};

static void run_one(const char *prog)
{
	char path[256], name[300], buf[4097];
	int fds[2], status = 0, timed_out = 0;
	long t0 = now_ms(), left;
	size_t len = 0;
	struct pollfd p;
	ssize_t n;
	pid_t pid;

	snprintf(path, sizeof(path), KSFT_DIR "/%s", prog);
	snprintf(name, sizeof(name), "kselftest-%s", prog);
	for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++)
		if (!strcmp(prog, needs[i].prog) && access(needs[i].needs, F_OK)) {
			printf("SKIP: %s: this kernel has no %s (%s missing)\n", name,
			       needs[i].config, needs[i].needs);
			return;
		}
	if (pipe(fds))
		return result(0, name, "pipe: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char *argv[] = { path, NULL };
		char *envp[] = { NULL };

		close(fds[0]);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		execve(path, argv, envp);
		_exit(127);
	}
	close(fds[1]);
	p.fd = fds[0];
	p.events = POLLIN;
	for (;;) {
		left = KSFT_TIMEOUT_MS - (now_ms() - t0);
		if (left <= 0) {
			timed_out = 1;
			kill(pid, SIGKILL);
			break;
		}
		if (poll(&p, 1, (int)left) <= 0)
			continue;
		n = read(fds[0], buf + len, sizeof(buf) - 1 - len);
		if (n <= 0)
			break;
		len += n;
		forward_lines(prog, buf, &len);
	}
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (timed_out)
		return result(0, name, "still running after %d s", KSFT_TIMEOUT_MS / 1000);
	if (WIFEXITED(status) && WEXITSTATUS(status) == KSFT_SKIP) {
		printf("SKIP: %s: the program skipped (%.1f s)\n", name, (now_ms() - t0) / 1000.0);
		return;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		printf("PASS: %s (%.1f s)\n", name, (now_ms() - t0) / 1000.0);
		return;
	}
	result(0, name, "status 0x%x (exit %d, signal %d)", status,
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1,
	       WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

void test_kselftests(void)
{
	char *names[64];
	struct dirent *e;
	size_t n = 0, i;
	DIR *d;

	/* What the programs expect: a tmpfs at /dev/shm, sysfs (KSM). */
	mkdir("/dev/shm", 01777);
	mount("tmpfs", "/dev/shm", "tmpfs", 0, "mode=1777");
	mkdir("/sys", 0555);
	mount("sysfs", "/sys", "sysfs", 0, NULL);

	d = opendir(KSFT_DIR);
	if (!d)
		return result(0, "kselftest", "%s: %s", KSFT_DIR, strerror(errno));
	while ((e = readdir(d)) && n < sizeof(names) / sizeof(names[0]))
		if (e->d_name[0] != '.')
			names[n++] = strdup(e->d_name);
	closedir(d);
	result(n > 0, "kselftest-programs", "no program in %s", KSFT_DIR);
	qsort(names, n, sizeof(names[0]), cmp_names);
	for (i = 0; i < n; i++) {
		run_one(names[i]);
		free(names[i]);
	}
}
