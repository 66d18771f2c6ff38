// SPDX-License-Identifier: GPL-2.0
/*
 * mte-report: the report-only mode cases of the kernel suite's /init
 * (patches/linux/0004): prctl(PR_SET_MTE_REPORT / PR_GET_MTE_REPORT), the
 * fault that is logged and completes, the thread whose checking is off
 * afterwards while other threads keep theirs, the re-enable time, and the
 * state across fork, execve (with glibc's own start-up prctl) and a
 * set-user-ID exec.
 *
 * Each case runs in a child process, so that its tag check settings and
 * report state start clean; the child prints its PASS/FAIL lines and exits
 * with its number of failures.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mte-init.h"

#define NOTE_USER " (report mode: tag checks off in this thread)"
#define NOTE_SYSCALL " (report mode, in a system call: tag checks off in this thread)"
#define SUID_INIT "/init-suid"	/* set-user-ID root copy of /init */
#define NOBODY 65534

static long get_report(void)
{
	return prctl(PR_GET_MTE_REPORT, 0, 0, 0, 0);
}

static int set_report(unsigned long flags, unsigned long reenable_ns)
{
	return prctl(PR_SET_MTE_REPORT, flags, reenable_ns, 0, 0);
}

/* --- a fault that is not signalled --------------------------------------- */

static volatile sig_atomic_t segv_seen;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	segv_seen = 1;
	/* In report mode there is none; if there is, do not loop on it. */
	_exit(42);
}

static void catch_segv(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
}

/*
 * A granule of a PROT_MTE page with memory tag 3 holding the byte 0x5a,
 * and a pointer with tag 5 to it.
 */
struct target {
	char *good;		/* tag 3 */
	volatile char *bad;	/* tag 5 */
};

static int make_target(struct target *t, size_t off)
{
	char *buf = map_mte();

	if (!buf)
		return -1;
	t->good = (char *)tag_ptr(buf + off, 3);
	set_mem_tag((unsigned long)t->good);
	t->good[0] = 0x5a;
	t->bad = (volatile char *)tag_ptr(buf + off, 5);
	return 0;
}

/* Load through the bad pointer: the tag check fault, in sync mode. */
static int bad_load(struct target *t)
{
	return *t->bad;
}

static void thread_status(pid_t tid, const char *key, char *val, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	snprintf(val, len, "(missing)");
	status_field(path, key, val, len);
}

/* Burn ms milliseconds of this thread's CPU time, then sleep briefly so the
 * thread is switched out and back in. */
static void burn_cpu_ms(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	usleep(2000);
}

/*
 * The kernel line of a sync fault of thread comm[tid] of process pid at addr
 * (tags 5, 3) of a make_target() page: its other granules have tag 0, those
 * of the page before may have any; the cgroup is the root one.
 */
static int find_sync_line(int fd, const char *comm, pid_t tid, pid_t pid,
			  const volatile void *addr, const char *note, char *found, size_t len,
			  char *want, size_t wlen)
{
	long g = ((unsigned long)addr & 4095) / 16;
	char needle[128], tags[24], *p = tags;

	for (long i = g - 8; i <= g + 8; i++) {
		if (i == g)
			p += sprintf(p, "[3]");
		else
			*p++ = i < 0 ? '#' : '0';
	}
	*p = 0;
	snprintf(needle, sizeof(needle), "mte: sync tag check fault in %s[%d]: ", comm, tid);
	snprintf(want, wlen, "%saddr 0x%016lx pointer tag 0x5 memory tag 0x3 pc 0x* pid %d "
		 "tags %s cgroup /%s", needle, (unsigned long)addr, pid, tags, note);
	if (kmsg_find(fd, needle, found, len))
		return -1;
	printf("# kmsg: %s\n", found);
	return line_match(want, found) ? 0 : -1;
}

/* --- the cases ------------------------------------------------------------ */

static void case_prctl(void)
{
	char v[64], v2[64], v3[64];
	long r;

	r = get_report();
	result(r == 0, "report-prctl-default", "PR_GET_MTE_REPORT %ld (errno %d), want 0", r, errno);
	r = set_report(PR_MTE_REPORT_ON, 250000000);
	result(r == 0 && get_report() == (long)PR_MTE_REPORT_ON, "report-prctl-set",
	       "PR_SET_MTE_REPORT %ld (%s), then GET %ld", r, strerror(errno), get_report());
	thread_status(gettid(), "MTE_Report", v, sizeof(v));
	thread_status(gettid(), "MTE_ReportReenable", v2, sizeof(v2));
	thread_status(gettid(), "MTE_ReportChecking", v3, sizeof(v3));
	result(!strcmp(v, "on") && !strcmp(v2, "250000000") && !strcmp(v3, "active"),
	       "report-status-on", "MTE_Report '%s' MTE_ReportReenable '%s' MTE_ReportChecking '%s'",
	       v, v2, v3);

	/* Bad arguments, and no argument names another process. */
	errno = 0;
	r = set_report(PR_MTE_REPORT_ON | 4, 0);
	result(r == -1 && errno == EINVAL, "report-prctl-bad-flag", "got %ld errno %d", r, errno);
	errno = 0;
	r = set_report(0, 1000);
	result(r == -1 && errno == EINVAL, "report-prctl-reenable-without-on",
	       "got %ld errno %d", r, errno);
	errno = 0;
	r = prctl(PR_SET_MTE_REPORT, PR_MTE_REPORT_ON, 0, getppid(), 0);
	result(r == -1 && errno == EINVAL, "report-prctl-arg4", "got %ld errno %d", r, errno);
	errno = 0;
	r = prctl(PR_GET_MTE_REPORT, 1, 0, 0, 0);
	result(r == -1 && errno == EINVAL, "report-prctl-get-arg", "got %ld errno %d", r, errno);

	r = set_report(0, 0);
	thread_status(gettid(), "MTE_Report", v, sizeof(v));
	thread_status(gettid(), "MTE_ReportReenable", v2, sizeof(v2));
	result(r == 0 && get_report() == 0 && !strcmp(v, "off") && !strcmp(v2, "0"),
	       "report-prctl-off", "SET 0: %ld, GET %ld, MTE_Report '%s' MTE_ReportReenable '%s'",
	       r, get_report(), v, v2);
}

static void case_sync(void)
{
	char found[2048] = "", want[512], v[64], tcf[64];
	struct target t;
	int fd, got, r;

	prctl(PR_SET_NAME, "mterpt", 0, 0, 0);
	catch_segv();
	if (make_target(&t, 80) || set_ctrl(PR_MTE_TCF_SYNC, 0xfffe) ||
	    set_report(PR_MTE_REPORT_ON, 0))
		return result(0, "report-sync", "set-up: %s", strerror(errno));
	fd = kmsg_open();
	got = bad_load(&t);
	/* Still here: no SIGSEGV; the load completed with the memory's byte. */
	result(!segv_seen && got == 0x5a, "report-sync-completes",
	       "load through the bad pointer gave 0x%x, want 0x5a", got);
	r = find_sync_line(fd, "mterpt", gettid(), getpid(), t.bad, NOTE_USER,
			   found, sizeof(found), want, sizeof(want));
	result(r == 0, "report-sync-logged", "got '%s', want '%s'", found, want);

	thread_status(gettid(), "MTE_ReportChecking", v, sizeof(v));
	thread_status(gettid(), "MTE_TCF", tcf, sizeof(tcf));
	result(get_report() == (long)(PR_MTE_REPORT_ON | PR_MTE_REPORT_SUSPENDED) &&
	       !strcmp(v, "suspended") && !strcmp(tcf, "sync"), "report-sync-suspended",
	       "GET %ld, MTE_ReportChecking '%s', MTE_TCF '%s' (want 3, suspended, sync)",
	       get_report(), v, tcf);

	/* A second bug in the same thread: not checked, not logged again. */
	t.bad[1] = 0x11;
	got = bad_load(&t);
	r = kmsg_find(fd, "mte: ", found, sizeof(found));
	result(!segv_seen && r != 0 && t.good[1] == 0x11, "report-sync-second-silent",
	       "second fault: logged '%s'", r ? "" : found);
	close(fd);
	(void)got;
}

static void case_reenable(void)
{
	char found[2048] = "", want[512], v[64];
	struct target t;
	int fd, r;

	prctl(PR_SET_NAME, "mterenb", 0, 0, 0);
	catch_segv();
	if (make_target(&t, 96) || set_ctrl(PR_MTE_TCF_SYNC, 0xfffe) ||
	    set_report(PR_MTE_REPORT_ON, 300 * 1000000UL))
		return result(0, "report-reenable", "set-up: %s", strerror(errno));
	fd = kmsg_open();
	bad_load(&t);
	r = find_sync_line(fd, "mterenb", gettid(), getpid(), t.bad, NOTE_USER,
			   found, sizeof(found), want, sizeof(want));
	result(r == 0 && get_report() & PR_MTE_REPORT_SUSPENDED, "report-reenable-first",
	       "first fault: '%s', GET %ld", found, get_report());
	/* Less than the re-enable time: still off. */
	usleep(2000);
	bad_load(&t);
	r = kmsg_find(fd, "mte: ", found, sizeof(found));
	result(r != 0 && get_report() & PR_MTE_REPORT_SUSPENDED, "report-reenable-before",
	       "logged '%s' before the re-enable time, GET %ld", r ? "" : found, get_report());
	/* 600 ms of CPU time later, checking is back: the next bug is logged. */
	burn_cpu_ms(600);
	thread_status(gettid(), "MTE_ReportChecking", v, sizeof(v));
	result(get_report() == (long)PR_MTE_REPORT_ON && !strcmp(v, "active"),
	       "report-reenable-active", "after 600 ms of CPU time: GET %ld, MTE_ReportChecking '%s'",
	       get_report(), v);
	bad_load(&t);
	r = find_sync_line(fd, "mterenb", gettid(), getpid(), t.bad, NOTE_USER,
			   found, sizeof(found), want, sizeof(want));
	result(r == 0 && !segv_seen, "report-reenable-again", "got '%s', want '%s'", found, want);
	close(fd);
}

/* A thread that never faulted keeps checking while another's is off. */
static struct target thr_t;
static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int step;
static pid_t other_tid;
static long other_report;

static void wait_step(int s)
{
	pthread_mutex_lock(&lk);
	while (step < s)
		pthread_cond_wait(&cv, &lk);
	pthread_mutex_unlock(&lk);
}

static void set_step(int s)
{
	pthread_mutex_lock(&lk);
	step = s;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&lk);
}

static void *other_thread(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "mteoth", 0, 0, 0);
	other_tid = gettid();
	set_step(1);
	wait_step(2);		/* the main thread has faulted */
	other_report = get_report();
	set_step(3);
	wait_step(4);
	bad_load(&thr_t);	/* checked: logged, then off for this thread */
	set_step(5);
	return NULL;
}

static void case_threads(void)
{
	char found[2048] = "", want[512], v[64];
	pthread_t th;
	int fd, r;

	prctl(PR_SET_NAME, "mtemain", 0, 0, 0);
	catch_segv();
	if (make_target(&thr_t, 112) || set_ctrl(PR_MTE_TCF_SYNC, 0xfffe) ||
	    set_report(PR_MTE_REPORT_ON, 0))
		return result(0, "report-threads", "set-up: %s", strerror(errno));
	fd = kmsg_open();
	if (pthread_create(&th, NULL, other_thread, NULL))
		return result(0, "report-threads", "pthread_create");
	wait_step(1);
	bad_load(&thr_t);	/* the main thread's fault */
	set_step(2);
	wait_step(3);
	thread_status(other_tid, "MTE_ReportChecking", v, sizeof(v));
	result(other_report == (long)PR_MTE_REPORT_ON && !strcmp(v, "active"),
	       "report-thread-other-active",
	       "other thread after the main thread's fault: GET %ld, MTE_ReportChecking '%s'",
	       other_report, v);
	set_step(4);
	wait_step(5);
	pthread_join(th, NULL);
	r = find_sync_line(fd, "mteoth", other_tid, getpid(), thr_t.bad, NOTE_USER,
			   found, sizeof(found), want, sizeof(want));
	result(r == 0 && !segv_seen, "report-thread-other-logged", "got '%s', want '%s'",
	       found, want);
	close(fd);
}

/* A child of a thread whose checking is off starts with checking on. */
static void case_fork(void)
{
	char found[2048] = "", want[512];
	struct target t;
	int fd, status, r;
	pid_t pid;

	prctl(PR_SET_NAME, "mtefpar", 0, 0, 0);
	catch_segv();
	if (make_target(&t, 128) || set_ctrl(PR_MTE_TCF_SYNC, 0xfffe) ||
	    set_report(PR_MTE_REPORT_ON, 0))
		return result(0, "report-fork", "set-up: %s", strerror(errno));
	bad_load(&t);
	fd = kmsg_open();
	pid = fork();
	if (pid == 0) {
		long g = get_report();

		prctl(PR_SET_NAME, "mtefchl", 0, 0, 0);
		if (g != (long)PR_MTE_REPORT_ON)
			_exit(10 + (int)g);
		bad_load(&t);
		_exit(get_report() == (long)(PR_MTE_REPORT_ON | PR_MTE_REPORT_SUSPENDED) ? 0 : 20);
	}
	waitpid(pid, &status, 0);
	result(WIFEXITED(status) && WEXITSTATUS(status) == 0, "report-fork-inherited",
	       "child: status 0x%x (exit 10+n: GET was n; 20: not suspended after its fault; "
	       "42: SIGSEGV)", status);
	r = find_sync_line(fd, "mtefchl", pid, pid, t.bad, NOTE_USER,
			   found, sizeof(found), want, sizeof(want));
	result(r == 0, "report-fork-child-logged", "got '%s', want '%s'", found, want);
	close(fd);
}

/*
 * execve() keeps the state (with checking on again), and glibc's start-up
 * PR_SET_TAGGED_ADDR_CTRL (GLIBC_TUNABLES=glibc.mem.tagging=3) does not
 * clear it: /init is run again as "report-exec-child", which checks.
 */
static void case_exec(void)
{
	struct target t;

	prctl(PR_SET_NAME, "mteexec", 0, 0, 0);
	if (make_target(&t, 144) || set_ctrl(PR_MTE_TCF_SYNC, 0xfffe) ||
	    set_report(PR_MTE_REPORT_ON, 123000000))
		return result(0, "report-exec", "set-up: %s", strerror(errno));
	bad_load(&t);		/* checking off before the exec */
	set_ctrl(0, 0);		/* and no tag checking asked for: glibc does it */
	char *argv[] = { "/init", "report-exec-child", NULL };
	char *envp[] = { "GLIBC_TUNABLES=glibc.mem.tagging=3", NULL };

	execve("/init", argv, envp);
	result(0, "report-exec", "execve /init: %s", strerror(errno));
}

static int exec_child(void)
{
	char rep[64], ren[64], chk[64], tcf[64], found[2048] = "", want[512];
	struct target t;
	int fd, r;

	status_field("/proc/self/status", "MTE_Report", rep, sizeof(rep));
	status_field("/proc/self/status", "MTE_ReportReenable", ren, sizeof(ren));
	status_field("/proc/self/status", "MTE_ReportChecking", chk, sizeof(chk));
	status_field("/proc/self/status", "MTE_TCF", tcf, sizeof(tcf));
	result(!strcmp(tcf, "sync"), "report-exec-glibc-sync",
	       "MTE_TCF '%s' after glibc's start-up with glibc.mem.tagging=3", tcf);
	result(!strcmp(rep, "on") && !strcmp(ren, "123000000") && !strcmp(chk, "active"),
	       "report-exec-kept", "MTE_Report '%s' MTE_ReportReenable '%s' MTE_ReportChecking '%s' "
	       "(want on, 123000000, active)", rep, ren, chk);
	catch_segv();
	if (make_target(&t, 160))
		return result(0, "report-exec-logged", "mmap"), 1;
	fd = kmsg_open();
	bad_load(&t);
	r = find_sync_line(fd, "init", gettid(), getpid(), t.bad, NOTE_USER,
			   found, sizeof(found), want, sizeof(want));
	result(r == 0 && !segv_seen, "report-exec-logged", "got '%s', want '%s'", found, want);
	close(fd);
	return failures;
}

/* A set-user-ID exec drops report mode (it would weaken that program). */
static void case_setuid(void)
{
	if (access(SUID_INIT, X_OK))
		return result(0, "report-setuid-drops", "%s: %s", SUID_INIT, strerror(errno));
	if (set_report(PR_MTE_REPORT_ON, 0) || setgid(NOBODY) || setuid(NOBODY))
		return result(0, "report-setuid-drops", "set-up: %s", strerror(errno));
	char *argv[] = { SUID_INIT, "report-suid-child", NULL };
	char *envp[] = { NULL };

	execve(SUID_INIT, argv, envp);
	result(0, "report-setuid-drops", "execve %s: %s", SUID_INIT, strerror(errno));
}

static int suid_child(void)
{
	long r = get_report();

	result(geteuid() == 0 && getuid() == NOBODY && r == 0, "report-setuid-drops",
	       "euid %d uid %d, PR_GET_MTE_REPORT %ld (want 0, %d, 0)", geteuid(), getuid(), r,
	       NOBODY);
	return failures;
}

/*
 * Only the calling thread: an unprivileged process turning it on changes
 * nothing in another process, and no route names another one.
 */
static void case_not_others(void)
{
	char path[64], v[64] = "(missing)";
	int sync_fds[2], status, fd, r;
	pid_t victim;
	char c;

	if (pipe(sync_fds))
		return result(0, "report-not-others", "pipe");
	victim = fork();
	if (victim == 0) {
		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(2);
		close(sync_fds[1]);
		/* Wait until the other process is done, then show own state. */
		if (read(sync_fds[0], &c, 1) != 1)
			_exit(3);
		_exit(get_report() == 0 ? 0 : 1);
	}
	close(sync_fds[0]);
	if (setgid(NOBODY) || setuid(NOBODY))
		return result(0, "report-not-others", "setuid: %s", strerror(errno));
	r = set_report(PR_MTE_REPORT_ON, 0);
	result(r == 0, "report-unprivileged-self", "PR_SET_MTE_REPORT as uid %d: %s", NOBODY,
	       strerror(errno));
	errno = 0;
	r = prctl(PR_SET_MTE_REPORT, PR_MTE_REPORT_ON, 0, victim, 0);
	result(r == -1 && errno == EINVAL, "report-no-pid-argument", "with a pid: %d errno %d",
	       r, errno);
	snprintf(path, sizeof(path), "/proc/%d/status", victim);
	fd = open(path, O_WRONLY);
	result(fd < 0, "report-status-read-only", "%s opened for writing", path);
	if (fd >= 0)
		close(fd);
	status_field(path, "MTE_Report", v, sizeof(v));
	if (write(sync_fds[1], "x", 1) != 1)
		return result(0, "report-not-others", "write");
	waitpid(victim, &status, 0);
	result(!strcmp(v, "off") && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "report-not-others", "other process (same uid): MTE_Report '%s', exit status 0x%x",
	       v, status);
}

static void case_async(void)
{
	char found[2048] = "", want[256];
	struct target t;
	int fd, r;

	prctl(PR_SET_NAME, "mterasy", 0, 0, 0);
	catch_segv();
	if (make_target(&t, 176) || set_ctrl(PR_MTE_TCF_ASYNC, 0xfffe) ||
	    set_report(PR_MTE_REPORT_ON, 0))
		return result(0, "report-async", "set-up: %s", strerror(errno));
	fd = kmsg_open();
	t.bad[0] = 0x22;
	for (int i = 0; i < 1000; i++)
		syscall(SYS_getppid);
	snprintf(want, sizeof(want), "mte: async tag check fault in mterasy[%d]: pid %d cgroup /"
		 NOTE_USER, gettid(), getpid());
	r = kmsg_find(fd, "mte: async tag check fault in mterasy[", found, sizeof(found));
	if (!r)
		printf("# kmsg: %s\n", found);
	result(!segv_seen && r == 0 && !strcmp(found, want) &&
	       get_report() == (long)(PR_MTE_REPORT_ON | PR_MTE_REPORT_SUSPENDED),
	       "report-async", "got '%s', want '%s', GET %ld", found, want, get_report());
	close(fd);
}

/* A system call reading user memory through a bad pointer: in sync mode it
 * fails with EFAULT; in report mode it is logged and succeeds. */
static void case_syscall(void)
{
	char found[2048] = "", want[512], buf[16];
	struct target t;
	int fds[2], fd, r;
	ssize_t n;

	prctl(PR_SET_NAME, "mtersys", 0, 0, 0);
	if (make_target(&t, 192) || pipe(fds) || set_ctrl(PR_MTE_TCF_SYNC, 0xfffe))
		return result(0, "report-syscall", "set-up: %s", strerror(errno));
	errno = 0;
	n = write(fds[1], (const void *)t.bad, 16);
	result(n == -1 && errno == EFAULT, "report-syscall-baseline-sync",
	       "write() from a bad pointer in sync mode: %zd errno %d (want -1 EFAULT)", n, errno);
	if (set_report(PR_MTE_REPORT_ON, 0))
		return result(0, "report-syscall", "PR_SET_MTE_REPORT: %s", strerror(errno));
	fd = kmsg_open();
	n = write(fds[1], (const void *)t.bad, 16);
	result(n == 16 && read(fds[0], buf, 16) == 16 && buf[0] == 0x5a, "report-syscall-completes",
	       "write() from a bad pointer in report mode: %zd errno %d", n, errno);
	r = find_sync_line(fd, "mtersys", gettid(), getpid(), t.bad, NOTE_SYSCALL,
			   found, sizeof(found), want, sizeof(want));
	result(r == 0, "report-syscall-logged", "got '%s', want '%s'", found, want);
	close(fd);
}

/* --- driver --------------------------------------------------------------- */

/* The fault lines are rate limited (10 per 5 s): leave room before a group. */
static void ratelimit_pause(void)
{
	sleep(6);
}

void test_report_mode(void)
{
	if (get_report() < 0 && errno == EINVAL) {
		result(0, "report-mode", "PR_GET_MTE_REPORT: EINVAL (no report-only mode: "
		       "patches/linux/0004 not applied?)");
		return;
	}
	run_case("report-prctl", case_prctl);
	run_case("report-not-others", case_not_others);
	run_case("report-setuid", case_setuid);
	ratelimit_pause();
	run_case("report-sync", case_sync);
	run_case("report-reenable", case_reenable);
	run_case("report-threads", case_threads);
	run_case("report-fork", case_fork);
	ratelimit_pause();
	run_case("report-exec", case_exec);
	run_case("report-async", case_async);
	run_case("report-syscall", case_syscall);
}

void test_report_mode_nomte(void)
{
	long r;

	errno = 0;
	r = get_report();
	result(r == -1 && errno == EINVAL, "report-no-mte-einval",
	       "PR_GET_MTE_REPORT without MTE: %ld errno %d (want -1 EINVAL)", r, errno);
}

int report_exec_main(int argc, char **argv)
{
	(void)argc;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "report-exec-child"))
		return exec_child();
	if (!strcmp(argv[1], "report-suid-child"))
		return suid_child();
	fprintf(stderr, "init: unknown argument '%s'\n", argv[1]);
	return 125;
}
