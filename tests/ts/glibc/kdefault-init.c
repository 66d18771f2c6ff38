// SPDX-License-Identifier: GPL-2.0
/*
 * kdefault-init.c -- /init of the glibc suite's boot test: the rebuilt
 * glibc (patches/glibc/memtag-exec-default.patch) on the mtag kernel
 * (patches/linux/0006) applies the kernel's MTE exec default when no
 * tunable is set, a tunable (even =0) wins, and under AT_SECURE (a
 * set-user-ID root copy of mtebug run by nobody) the default applies while
 * the tunables are ignored.
 *
 * The initramfs holds the rebuilt ld.so and libc.so.6 at their usual paths
 * and build/arm64/tests/mtebug (dynamic) as /mtebug and /mtebug-suid.
 * Each case forks, sets the exec default in the child with
 * PR_SET_MTE_EXEC_DEFAULT, execs mtebug with exactly the given environment
 * and compares how it ended ("sigsegv N" or "completed") with the wanted
 * outcome. Prints PASS:/FAIL: lines and MTAG-GLIBC-BOOT-DONE.
 *
 * Also: an exec default without a tag mask gets glibc's default mask, and
 * the rebuilt static ldconfig (/ldconfig) starts with _MTAG_ENABLE=3 when
 * the kernel refuses PR_SET_TAGGED_ADDR_CTRL (abi.tagged_addr_disabled).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PR_SET_MTE_EXEC_DEFAULT 0x4d545203
#define PR_GET_MTE_EXEC_DEFAULT 0x4d545204
#define PR_MTE_EXEC_TCF_SYNC (1UL << 1)
#define PR_MTE_EXEC_TCF_ASYNC (1UL << 2)
#define PR_MTE_EXEC_TAG_SHIFT 3
#define PR_MTE_EXEC_HEAP (1UL << 19)
#define MASK (0xfffeUL << PR_MTE_EXEC_TAG_SHIFT)
#define NOBODY 65534

static int failures;

/* Run mtebug BUG as PROG with DEF as exec default and ENV; "sigsegv N",
 * "completed" or "other: ..." in out. */
static void outcome(const char *prog, const char *bug, unsigned long def, int as_nobody,
		    char *const env[], char *out, size_t len)
{
	char buf[1024] = "", *p;
	int fds[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe(fds)) {
		snprintf(out, len, "other: pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		char *argv[] = { (char *)prog, (char *)bug, NULL };

		close(fds[0]);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		if (def && prctl(PR_SET_MTE_EXEC_DEFAULT, def, 0, 0, 0)) {
			printf("PR_SET_MTE_EXEC_DEFAULT: %s\n", strerror(errno));
			_exit(120);
		}
		if (as_nobody && (setgid(NOBODY) || setuid(NOBODY)))
			_exit(121);
		execve(prog, argv, env);
		printf("execve %s: %s\n", prog, strerror(errno));
		_exit(122);
	}
	close(fds[1]);
	while ((n = read(fds[0], buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	buf[got] = 0;
	close(fds[0]);
	waitpid(pid, &status, 0);
	p = strstr(buf, "mtebug: SIGSEGV si_code=");
	if (p && WIFSIGNALED(status) && WTERMSIG(status) == 11)
		snprintf(out, len, "sigsegv %d", atoi(p + strlen("mtebug: SIGSEGV si_code=")));
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && strstr(buf, "completed"))
		snprintf(out, len, "completed");
	else
		snprintf(out, len, "other: status 0x%x: %.200s", status, buf);
	for (p = out; *p; p++)
		if (*p == '\n')
			*p = ' ';
}

static void expect(const char *name, const char *want, const char *prog, unsigned long def,
		   int as_nobody, char *const env[])
{
	char got[512];

	outcome(prog, "overflow", def, as_nobody, env, got, sizeof(got));
	if (!strcmp(got, want)) {
		printf("PASS: %s: %s\n", name, want);
	} else {
		printf("FAIL: %s: wanted '%s', got '%s'\n", name, want, got);
		failures++;
	}
	fflush(stdout);
}

/* Control: the mask that the kernel hands to glibc for an exec default
 * set without one (what the glibc before the fix used as include mask). */
static void mask_control(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		long def;

		if (prctl(PR_SET_MTE_EXEC_DEFAULT, PR_MTE_EXEC_TCF_SYNC | PR_MTE_EXEC_HEAP, 0, 0, 0))
			printf("# control: PR_SET_MTE_EXEC_DEFAULT without a mask: %s\n",
			       strerror(errno));
		else if ((def = prctl(PR_GET_MTE_EXEC_DEFAULT, 0, 0, 0, 0)) < 0)
			printf("# control: PR_GET_MTE_EXEC_DEFAULT: %s\n", strerror(errno));
		else
			printf("# control: exec default set without a mask reads back mask 0x%04lx\n",
			       ((unsigned long)def >> PR_MTE_EXEC_TAG_SHIFT) & 0xffff);
		fflush(stdout);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
}

static void tag0_refused(const char *name)
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		int r = prctl(PR_SET_MTE_EXEC_DEFAULT, PR_MTE_EXEC_TCF_SYNC | PR_MTE_EXEC_HEAP |
			      (1UL << PR_MTE_EXEC_TAG_SHIFT), 0, 0, 0);

		_exit(r == -1 && errno == EINVAL ? 0 : 1);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		printf("PASS: %s\n", name);
	} else {
		printf("FAIL: %s: PR_SET_MTE_EXEC_DEFAULT with mask 0x0001 was not refused with EINVAL\n", name);
		failures++;
	}
	fflush(stdout);
}

static int set_sysctl(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return -1;
	ok = fputs(value, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* PROG ARG with ENV under abi.tagged_addr_disabled=1; its output in out
 * and its wait status returned (-1: could not run it). */
static int run_untagged_abi(const char *prog, const char *arg, const char *env1, char *out,
			    size_t len)
{
	char *argv[] = { (char *)prog, (char *)arg, NULL };
	char *env[] = { (char *)env1, NULL };
	int fds[2], status = -1;
	ssize_t n;
	size_t got = 0;
	pid_t pid;

	out[0] = 0;
	if (set_sysctl("/proc/sys/abi/tagged_addr_disabled", "1")) {
		snprintf(out, len, "cannot set abi.tagged_addr_disabled: %s", strerror(errno));
		return -1;
	}
	if (pipe(fds) == 0 && (pid = fork()) >= 0) {
		if (pid == 0) {
			dup2(fds[1], 1);
			dup2(fds[1], 2);
			execve(argv[0], argv, env);
			_exit(122);
		}
		close(fds[1]);
		while (got < len - 1 && (n = read(fds[0], out + got, len - 1 - got)) > 0)
			got += n;
		out[got] = 0;
		close(fds[0]);
		waitpid(pid, &status, 0);
	}
	set_sysctl("/proc/sys/abi/tagged_addr_disabled", "0");
	for (char *p = out; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return status;
}

/* The rebuilt static ldconfig asking for tagging (_MTAG_ENABLE=3) starts
 * when the kernel refuses PR_SET_TAGGED_ADDR_CTRL.  Control: a static
 * program of the stock libc.a (/mtebug-static, glibc.mem.tagging=3),
 * whose start-up stores errno through a thread pointer not yet set. */
static void static_starts(const char *name)
{
	char buf[512];
	int status;

	status = run_untagged_abi("/ldconfig", "--version", "_MTAG_ENABLE=3", buf, sizeof(buf));
	if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
	    strstr(buf, "ldconfig (Debian GLIBC")) {
		printf("PASS: %s\n", name);
	} else {
		printf("FAIL: %s: status 0x%x: %.200s\n", name, status, buf);
		failures++;
	}
	status = run_untagged_abi("/mtebug-static", "none", "GLIBC_TUNABLES=glibc.mem.tagging=3",
				  buf, sizeof(buf));
	printf("# control: stock static program under the same conditions: %s\n",
	       status != -1 && WIFSIGNALED(status) ? strsignal(WTERMSIG(status))
	       : status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "starts"
										: buf);
	fflush(stdout);
}

int main(void)
{
	const unsigned long sync_heap = PR_MTE_EXEC_TCF_SYNC | PR_MTE_EXEC_HEAP | MASK;
	const unsigned long async_heap = PR_MTE_EXEC_TCF_ASYNC | PR_MTE_EXEC_HEAP | MASK;
	const unsigned long sync_noheap = PR_MTE_EXEC_TCF_SYNC | MASK;
	char *none[] = { NULL };
	char *mem0[] = { "GLIBC_TUNABLES=glibc.mem.tagging=0", NULL };
	char *mem1[] = { "GLIBC_TUNABLES=glibc.mem.tagging=1", NULL };
	char *en0[] = { "GLIBC_TUNABLES=glibc.memtag.enable=0", NULL };
	char *alias0[] = { "_MTAG_ENABLE=0", NULL };
	char *alias3[] = { "_MTAG_ENABLE=3", NULL };

	setvbuf(stdout, NULL, _IOLBF, 0);
	mkdir("/proc", 0555);
	mount("proc", "/proc", "proc", 0, NULL);
	printf("kdefault-init: glibc exec default tests starting\n");

	expect("no default, no tunable (control)", "completed", "/mtebug", 0, 0, none);
	expect("default sync heap, no tunable", "sigsegv 9", "/mtebug", sync_heap, 0, none);
	expect("default async heap, no tunable", "sigsegv 8", "/mtebug", async_heap, 0, none);
	expect("default sync without heap: heap untagged", "completed", "/mtebug", sync_noheap, 0,
	       none);
	expect("default sync heap, glibc.mem.tagging=0 wins", "completed", "/mtebug", sync_heap, 0,
	       mem0);
	expect("default sync heap, glibc.memtag.enable=0 wins", "completed", "/mtebug", sync_heap,
	       0, en0);
	expect("default sync heap, _MTAG_ENABLE=0 wins", "completed", "/mtebug", sync_heap, 0,
	       alias0);
	expect("default sync heap, glibc.mem.tagging=1 wins (async)", "sigsegv 8", "/mtebug",
	       sync_heap, 0, mem1);
	expect("AT_SECURE, no default, _MTAG_ENABLE=3 ignored (control)", "completed",
	       "/mtebug-suid", 0, 1, alias3);
	expect("AT_SECURE, default sync heap applies", "sigsegv 9", "/mtebug-suid", sync_heap, 1,
	       none);
	expect("AT_SECURE, default sync heap, glibc.mem.tagging=0 ignored", "sigsegv 9",
	       "/mtebug-suid", sync_heap, 1, mem0);

	/* Issue 32: an exec default without a tag mask (or with tag 0
	 * alone) gets glibc's default mask, not an include mask under
	 * which every tag is 0 and nothing is ever caught. */
	mask_control();
	expect("default sync heap without a tag mask: 0xfffe used", "sigsegv 9", "/mtebug",
	       PR_MTE_EXEC_TCF_SYNC | PR_MTE_EXEC_HEAP, 0, none);
	/* A mask of tag 0 alone cannot reach glibc through this kernel
	 * any more: the kernel refuses it (patch 0006).  glibc's own
	 * check (memtag-exec-default-mask.patch) stays for a kernel that
	 * hands one over. */
	tag0_refused("default sync heap with tag 0 alone: the kernel refuses it");

	/* Issue 32: with the tagged address ABI turned off the kernel
	 * refuses PR_SET_TAGGED_ADDR_CTRL; a static program (the rebuilt
	 * ldconfig) asking for tagging must still start: the start-up
	 * must not store errno before its TLS exists. */
	static_starts("static program starts when PR_SET_TAGGED_ADDR_CTRL fails");

	printf("MTAG-GLIBC-BOOT-DONE failures=%d\n", failures);
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
