// SPDX-License-Identifier: GPL-2.0
/*
 * mte-upgrade.c -- boot tests of the timed upgrade to synchronous checking
 * (patches/linux/0008): prctl(PR_SET_MTE_UPGRADE) and its errors,
 * /proc/PID/status, asynchronous (and the CPU's preferred) checking that
 * faults synchronously while the deadline is ahead, in every thread and in
 * a child, and asynchronously again after it without anything being set,
 * a thread without checking left alone, and the deadline kept across
 * execve (plain and set-user-ID). Issue 32: MTE_Upgrade only for readers
 * that may ptrace the task, and ERANGE (not EINVAL, which a kernel without
 * the interface gives) for a deadline out of range (106752 days). Execs
 * run /init again with argv[1] "upgrade-...".
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mte-init.h"

#define NOBODY 65534
#define SUID_INIT "/init-suid"		/* set-user-ID root copy (cpio) */
#define NSEC 1000000000ULL

/* What fault_here() saw: 0 none, else the SIGSEGV's si_code. */
#define NO_FAULT 0

static unsigned long long boottime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (unsigned long long)ts.tv_sec * NSEC + ts.tv_nsec;
}

static long get_upg(void)
{
	return prctl(PR_GET_MTE_UPGRADE, 0, 0, 0, 0);
}

static int set_upg(unsigned long long until)
{
	return prctl(PR_SET_MTE_UPGRADE, (unsigned long)until, 0, 0, 0);
}

/* PR_GET_MTE_UPGRADE: milliseconds left (rounded up), 0: none.  Does R
 * fit a deadline UNTIL, read now? */
static int ms_left_ok(long r, unsigned long long until)
{
	unsigned long long now = boottime_ns();
	long want = now >= until ? 0 : (long)((until - now + 999999) / 1000000);

	/* Read a moment apart: within 2 s (the emulator is slow). */
	return r > 0 && r >= want && r <= want + 2000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* --- a tag check fault in the calling thread ------------------------------ */

static __thread sigjmp_buf fault_jmp;
static __thread volatile int fault_code;
static __thread volatile int fault_armed;

static void upg_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (!fault_armed)
		_exit(99);
	fault_code = si->si_code;
	fault_armed = 0;
	siglongjmp(fault_jmp, 1);
}

static int install_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = upg_segv;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	return sigaction(SIGSEGV, &sa, NULL);
}

/*
 * Store through a pointer with tag 5 to a granule with tag 3 and enter the
 * kernel (where an asynchronous fault is delivered). Returns the si_code of
 * the SIGSEGV (SEGV_MTESERR 9, SEGV_MTEAERR 8), NO_FAULT, or -1.
 */
static int fault_here(void)
{
	static __thread char *buf;
	volatile char *bad;
	int i;

	if (!buf)
		buf = map_mte();
	if (!buf)
		return -1;
	set_mem_tag(tag_ptr(buf + 64, 3));
	bad = (volatile char *)tag_ptr(buf + 64, 5);
	fault_code = NO_FAULT;
	if (sigsetjmp(fault_jmp, 1) == 0) {
		fault_armed = 1;
		*bad = 1;
		for (i = 0; i < 100; i++)
			syscall(SYS_getppid);
		fault_armed = 0;
	}
	return fault_code;
}

static const char *code_name(int c)
{
	return c == SEGV_MTESERR ? "sync (9)" : c == SEGV_MTEAERR ? "async (8)" :
	       c == NO_FAULT ? "none" : "error";
}

/* "MTE_Upgrade" of PATH into got; whether it is WANT ("none"), or, with
 * want NULL, "sync until UNTIL". */
static int upg_status(const char *path, unsigned long long until, const char *want,
		      char *got, size_t len)
{
	char exp[64];

	snprintf(got, len, "(missing)");
	status_field(path, "MTE_Upgrade", got, len);
	if (want)
		return !strcmp(got, want);
	snprintf(exp, sizeof(exp), "sync until %llu", until);
	return !strcmp(got, exp);
}

/* --- prctl rules ------------------------------------------------------------ */

static void case_prctl(void)
{
	unsigned long long until = boottime_ns() + 600 * NSEC;
	char got[96];
	long r;
	int ok;

	r = get_upg();
	result(r == 0, "upgrade-initial-none", "PR_GET_MTE_UPGRADE at boot: %ld", r);
	result(upg_status("/proc/self/status", 0, "none", got, sizeof(got)),
	       "upgrade-status-none", "MTE_Upgrade '%s' (want none)", got);

	r = set_upg(until);
	result(r == 0 && ms_left_ok(get_upg(), until), "upgrade-set",
	       "set: %ld (%s), get %ld ms left, want about %llu", r, strerror(errno), get_upg(),
	       (until - boottime_ns()) / 1000000);
	result(upg_status("/proc/self/status", until, NULL, got, sizeof(got)),
	       "upgrade-status-until", "MTE_Upgrade '%s' (want sync until %llu)", got, until);
	/* TCF shows what the thread asked for, not the upgrade. */
	set_ctrl(PR_MTE_TCF_ASYNC, 0xfffe);
	status_field("/proc/self/status", "MTE_TCF", got, sizeof(got));
	result(!strcmp(got, "async"), "upgrade-tcf-as-asked", "MTE_TCF '%s' (want async)", got);

	ok = 1;
	{
		/*
		 * Deadlines out of range give ERANGE, which a kernel without the
		 * interface never returns (issue 32): 106752 days from now is past
		 * KTIME_MAX. Bad arguments give EINVAL.
		 */
		static const struct {
			const char *what;
			int past, err;
			unsigned long a2, a3, a4, a5;
		} bad[] = {
			{ "deadline 1 (past)", 0, ERANGE, 1, 0, 0, 0 },
			{ "deadline now (past)", 1, ERANGE, 0, 0, 0, 0 },
			{ "deadline above KTIME_MAX", 0, ERANGE, 1UL << 63, 0, 0, 0 },
			{ "deadline 106752 days ahead", 2, ERANGE, 0, 0, 0, 0 },
			{ "deadline ULONG_MAX", 0, ERANGE, ~0UL, 0, 0, 0 },
			{ "arg3", 0, EINVAL, 0, 1, 0, 0 },
			{ "arg4", 0, EINVAL, 0, 0, 1, 0 },
			{ "arg5", 0, EINVAL, 0, 0, 0, 1 },
		};
		size_t i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			unsigned long a2 = bad[i].past == 1 ? (unsigned long)boottime_ns() :
				bad[i].past == 2 ? (unsigned long)(boottime_ns() +
								   106752ULL * 86400 * NSEC) :
				(bad[i].a3 || bad[i].a4 || bad[i].a5) ? until + NSEC : bad[i].a2;

			errno = 0;
			r = prctl(PR_SET_MTE_UPGRADE, a2, bad[i].a3, bad[i].a4, bad[i].a5);
			if (r != -1 || errno != bad[i].err) {
				ok = 0;
				result(0, "upgrade-bad-args-errno", "%s: %ld errno %d (%s), want %s",
				       bad[i].what, r, errno, strerror(errno),
				       bad[i].err == ERANGE ? "ERANGE" : "EINVAL");
			}
		}
	}
	result(ok && ms_left_ok(get_upg(), until) &&
	       upg_status("/proc/self/status", until, NULL, got, sizeof(got)),
	       "upgrade-bad-args-errno", "the deadline changed after refused calls: %ld ms, '%s'",
	       get_upg(), got);
	/* A deadline past INT_MAX ms: the time left is capped, not wrapped. */
	r = set_upg(boottime_ns() + 40ULL * 24 * 3600 * NSEC);
	result(r == 0 && get_upg() == 0x7fffffff, "upgrade-get-capped",
	       "40 days ahead: set %ld, get %ld (want INT_MAX)", r, get_upg());
	set_upg(until);
	errno = 0;
	r = prctl(PR_GET_MTE_UPGRADE, 1, 0, 0, 0);
	result(r == -1 && errno == EINVAL, "upgrade-get-args-einval", "%ld errno %d", r, errno);

	r = set_upg(0);
	result(r == 0 && get_upg() == 0 &&
	       upg_status("/proc/self/status", 0, "none", got, sizeof(got)),
	       "upgrade-clear", "set 0: %ld, get %ld, MTE_Upgrade '%s'", r, get_upg(), got);
	set_ctrl(0, 0);
}

/*
 * MTE_Upgrade only for who may ptrace the task (issue 32): an unprivileged
 * reader of root's status gets no MTE_Upgrade line (the other MTE lines
 * stay), its own status has it, and root reads it in the status of the
 * unprivileged process.
 */
static void case_visibility(void)
{
	unsigned long long until = boottime_ns() + 600 * NSEC;
	int fds[2], back[2], status;
	char path[64], v[96], c;
	pid_t child;

	if (set_upg(until) || pipe(fds) || pipe(back))
		return result(0, "upgrade-visibility", "set-up: %s", strerror(errno));
	child = fork();
	if (child == 0) {
		char got[96];
		int code = 0;

		close(fds[1]);
		close(back[0]);
		snprintf(path, sizeof(path), "/proc/%d/status", getppid());
		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(10);
		/* 1: root's line shown to nobody; 2: no MTE_TCF; 4: own not shown. */
		if (!status_field(path, "MTE_Upgrade", got, sizeof(got)))
			code |= 1;
		if (status_field(path, "MTE_TCF", got, sizeof(got)))
			code |= 2;
		if (!upg_status("/proc/self/status", until, NULL, got, sizeof(got)))
			code |= 4;
		if (write(back[1], "x", 1) != 1 || read(fds[0], &c, 1) != 1)
			_exit(11);
		_exit(code);
	}
	close(fds[0]);
	close(back[1]);
	if (read(back[0], &c, 1) != 1)
		c = 0;
	snprintf(path, sizeof(path), "/proc/%d/status", child);
	result(c == 'x' && upg_status(path, until, NULL, v, sizeof(v)),
	       "upgrade-status-root-reads-others", "root reading %s: MTE_Upgrade '%s'", path, v);
	if (write(fds[1], "x", 1) != 1)
		c = 0;
	waitpid(child, &status, 0);
	result(WIFEXITED(status) && !(WEXITSTATUS(status) & ~2),
	       "upgrade-status-hidden-from-others",
	       "child status 0x%x (exit 1: nobody read MTE_Upgrade of root's process, "
	       "4: not its own, 10/11: set-up)", status);
	result(WIFEXITED(status) && !(WEXITSTATUS(status) & 2), "upgrade-status-others-lines-kept",
	       "child status 0x%x (exit 2: nobody read no MTE_TCF of root's process)", status);
	set_upg(0);
}

/* --- the effect on the tag check mode --------------------------------------- */

static void case_modes(void)
{
	int c;

	if (install_handler())
		return result(0, "upgrade-modes", "sigaction: %s", strerror(errno));
	/* The baseline: async faults are async without an upgrade. */
	set_ctrl(PR_MTE_TCF_ASYNC, 0xfffe);
	c = fault_here();
	result(c == SEGV_MTEAERR, "upgrade-baseline-async", "async without upgrade: %s",
	       code_name(c));

	/* Set after the mode. */
	if (set_upg(boottime_ns() + 600 * NSEC))
		return result(0, "upgrade-modes", "set: %s", strerror(errno));
	c = fault_here();
	result(c == SEGV_MTESERR, "upgrade-async-is-sync", "async under upgrade: %s",
	       code_name(c));

	/* Mode set under the deadline, as the C library does after exec. */
	set_ctrl(0, 0);
	set_ctrl(PR_MTE_TCF_ASYNC, 0xfffe);
	c = fault_here();
	result(c == SEGV_MTESERR, "upgrade-mode-set-later", "async set under upgrade: %s",
	       code_name(c));

	set_ctrl(PR_MTE_TCF_SYNC | PR_MTE_TCF_ASYNC, 0xfffe);
	c = fault_here();
	result(c == SEGV_MTESERR, "upgrade-preferred-is-sync",
	       "sync,async under upgrade: %s", code_name(c));

	set_ctrl(PR_MTE_TCF_SYNC, 0xfffe);
	c = fault_here();
	result(c == SEGV_MTESERR, "upgrade-sync-stays-sync", "sync under upgrade: %s",
	       code_name(c));

	/* No checking asked for: the upgrade does not turn it on. */
	set_ctrl(0, 0xfffe);
	c = fault_here();
	result(c == NO_FAULT, "upgrade-none-stays-none", "no checking under upgrade: %s",
	       code_name(c));

	/* Cleared: async again at once. */
	set_ctrl(PR_MTE_TCF_ASYNC, 0xfffe);
	set_upg(0);
	c = fault_here();
	result(c == SEGV_MTEAERR, "upgrade-cleared-async", "async after clearing: %s",
	       code_name(c));
}

/* --- every thread, a child, and the return after the deadline ------------- */

#define NTHREADS 3
#define WINDOW_MS 3000

struct thr {
	pthread_t th;
	unsigned long long until;
	int before, after;
	char st_before[96], st_after[96];
	int st_ok_before, st_ok_after;
};

static pthread_barrier_t bar;

static void *thr_fn(void *arg)
{
	struct thr *t = arg;
	char path[96];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/status", (long)syscall(SYS_gettid));
	t->before = fault_here();
	t->st_ok_before = upg_status(path, t->until, NULL, t->st_before,
				     sizeof(t->st_before));
	pthread_barrier_wait(&bar);	/* main waits out the window */
	pthread_barrier_wait(&bar);
	t->after = fault_here();
	t->st_ok_after = upg_status(path, 0, "none", t->st_after, sizeof(t->st_after));
	return NULL;
}

static int child_fault(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fault_here());
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void case_window(void)
{
	struct thr t[NTHREADS];
	unsigned long long until;
	char got[96];
	int i, c, ok;

	if (install_handler() || set_ctrl(PR_MTE_TCF_ASYNC, 0xfffe))
		return result(0, "upgrade-window", "set-up: %s", strerror(errno));
	until = boottime_ns() + WINDOW_MS * 1000000ULL;
	if (set_upg(until))
		return result(0, "upgrade-window", "set: %s", strerror(errno));
	pthread_barrier_init(&bar, NULL, NTHREADS + 1);
	for (i = 0; i < NTHREADS; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].until = until;
		if (pthread_create(&t[i].th, NULL, thr_fn, &t[i]))
			return result(0, "upgrade-window", "pthread_create");
	}
	pthread_barrier_wait(&bar);
	c = child_fault();
	result(c == SEGV_MTESERR, "upgrade-child-sync", "a child's fault: %s", code_name(c));
	c = fault_here();
	result(c == SEGV_MTESERR, "upgrade-main-sync", "main thread: %s", code_name(c));
	ok = 1;
	for (i = 0; i < NTHREADS; i++)
		if (t[i].before != SEGV_MTESERR || !t[i].st_ok_before) {
			ok = 0;
			result(0, "upgrade-threads-sync", "thread %d: %s, MTE_Upgrade '%s'", i,
			       code_name(t[i].before), t[i].st_before);
		}
	if (ok)
		result(1, "upgrade-threads-sync", NULL);

	/* Past the deadline: nobody sets anything. */
	while (boottime_ns() < until + 200000000ULL)
		sleep_ms(100);
	pthread_barrier_wait(&bar);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(t[i].th, NULL);
	ok = 1;
	for (i = 0; i < NTHREADS; i++)
		if (t[i].after != SEGV_MTEAERR || !t[i].st_ok_after) {
			ok = 0;
			result(0, "upgrade-threads-back-async", "thread %d: %s, MTE_Upgrade '%s'",
			       i, code_name(t[i].after), t[i].st_after);
		}
	if (ok)
		result(1, "upgrade-threads-back-async", NULL);
	c = fault_here();
	result(c == SEGV_MTEAERR && get_upg() == 0 &&
	       upg_status("/proc/self/status", 0, "none", got, sizeof(got)),
	       "upgrade-main-back-async", "main thread: %s, get %ld, MTE_Upgrade '%s'",
	       code_name(c), get_upg(), got);
	c = child_fault();
	result(c == SEGV_MTEAERR, "upgrade-child-back-async", "a child's fault: %s",
	       code_name(c));
	status_field("/proc/self/status", "MTE_TCF", got, sizeof(got));
	result(!strcmp(got, "async"), "upgrade-tcf-unchanged", "MTE_TCF '%s' (want async)", got);
}

/* --- execve -------------------------------------------------------------------- */

static char until_arg[32];

static void exec_with(const char *name, const char *path, const char *role, int nobody)
{
	unsigned long long until = boottime_ns() + 600 * NSEC;
	char *argv[] = { (char *)path, (char *)role, until_arg, NULL };
	char *envp[] = { NULL };

	snprintf(until_arg, sizeof(until_arg), "%llu", until);
	if (set_upg(until) || (nobody && (setgid(NOBODY) || setuid(NOBODY))))
		return result(0, name, "set-up: %s", strerror(errno));
	execve(path, argv, envp);
	result(0, name, "execve %s: %s", path, strerror(errno));
}

static void case_exec(void)
{
	exec_with("upgrade-exec", "/init", "upgrade-exec-child", 0);
}

static void case_exec_setuid(void)
{
	exec_with("upgrade-setuid", SUID_INIT, "upgrade-setuid-child", 1);
}

int upgrade_exec_main(int argc, char **argv)
{
	unsigned long long until = argc > 2 ? strtoull(argv[2], NULL, 10) : 0;
	int setuid_child = !strcmp(argv[1], "upgrade-setuid-child");
	const char *name = setuid_child ? "upgrade-setuid-kept" : "upgrade-exec-kept";
	unsigned long secure = getauxval(AT_SECURE);
	char got[96];
	long r = get_upg();
	int st, c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	st = upg_status("/proc/self/status", until, NULL, got, sizeof(got));
	result(ms_left_ok(r, until) && st && (!setuid_child || (secure && geteuid() == 0)), name,
	       "after the exec: get %ld ms left (deadline %llu), MTE_Upgrade '%s', AT_SECURE %lu euid %d",
	       r, until, got, secure, geteuid());
	/* The program's own mode after exec (as the C library sets it). */
	if (install_handler() || set_ctrl(PR_MTE_TCF_ASYNC, 0xfffe)) {
		result(0, name, "set-up: %s", strerror(errno));
		return failures;
	}
	c = fault_here();
	result(c == SEGV_MTESERR, setuid_child ? "upgrade-setuid-applied" : "upgrade-exec-applied",
	       "async after the exec: %s", code_name(c));
	return failures;
}

void test_upgrade(void)
{
	errno = 0;
	if (get_upg() < 0 && errno == EINVAL) {
		result(0, "upgrade", "PR_GET_MTE_UPGRADE: EINVAL (no timed upgrade: "
		       "patches/linux/0008 not applied?)");
		return;
	}
	run_case("upgrade-prctl", case_prctl);
	run_case("upgrade-visibility", case_visibility);
	run_case("upgrade-modes", case_modes);
	run_case("upgrade-window", case_window);
	run_case("upgrade-exec", case_exec);
	run_case("upgrade-setuid", case_exec_setuid);
}

void test_upgrade_nomte(void)
{
	char v[64];
	long r;

	errno = 0;
	r = get_upg();
	result(r == -1 && errno == EINVAL, "upgrade-no-mte-einval",
	       "PR_GET_MTE_UPGRADE without MTE: %ld errno %d (want -1 EINVAL)", r, errno);
	errno = 0;
	r = set_upg(boottime_ns() + 60 * NSEC);
	result(r == -1 && errno == EINVAL, "upgrade-set-no-mte-einval",
	       "PR_SET_MTE_UPGRADE without MTE: %ld errno %d (want -1 EINVAL)", r, errno);
	result(status_field("/proc/self/status", "MTE_Upgrade", v, sizeof(v)) != 0,
	       "upgrade-no-mte-no-status-line", "MTE_Upgrade '%s' without MTE", v);
}
