// SPDX-License-Identifier: GPL-2.0
/*
 * mte-ratelimit: the per-cgroup rate limit of the kernel's tag check fault
 * lines (patches/linux/0007), in the kernel suite's /init:
 *
 *  - a storm of STORM_FAULTS synchronous faults of one process (a SIGSEGV
 *    handler that siglongjmps back) in /mtag-test.slice/storm.service, then
 *    one fault of a process in /mtag-test.slice/victim.service, signalled,
 *    and one in report mode: both victim lines are logged;
 *  - after the storm's interval, one more fault in the storm's cgroup: the
 *    line "mte: N fault reports suppressed for /mtag-test.slice/storm.service"
 *    comes first, and the storm's printed lines plus every N add up to
 *    exactly STORM_FAULTS;
 *  - a cgroup with suppressed reports whose slot is taken by 64 new ones:
 *    "mte: 10 fault reports suppressed for cgroup id ID", ID the inode
 *    number of its cgroup2 directory.
 *
 * And CONFIG_SECURITY_DMESG_RESTRICT (issue 18, item 5): an unprivileged
 * process (uid and gid of nobody) can read the kernel log neither with
 * syslog(SYSLOG_ACTION_READ_ALL) nor through /dev/kmsg (EPERM); root can.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mte-init.h"

#define CGROOT "/sys/fs/cgroup"
#define STORM_CG "/mtag-test.slice/storm.service"
#define VICTIM_CG "/mtag-test.slice/victim.service"
#define EVICT_CG "/mtag-test.slice/evicted.service"
#define STORM_FAULTS 100000
#define SOURCES 64		/* the kernel's table */
#define BURST 10		/* lines per interval and cgroup */
#define INTERVAL_S 5
#define NOBODY 65534
#define SYSLOG_ACTION_READ_ALL 3

static sigjmp_buf jb;
static volatile int seen_code;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	seen_code = si->si_code;
	siglongjmp(jb, 1);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* mkdir -p of a cgroup under CGROOT, then move this process into it. */
static int into_cgroup(const char *path)
{
	char dir[512], *s;
	int fd, ok;

	snprintf(dir, sizeof(dir), "%s%s", CGROOT, path);
	for (s = dir + strlen(CGROOT) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -1;
	strncat(dir, "/cgroup.procs", sizeof(dir) - strlen(dir) - 1);
	fd = open(dir, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, "0", 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

/*
 * In a child named comm in cgroup path: n synchronous tag check faults,
 * each caught; in report mode (report) the first one is logged and
 * completes.  Exits 0 if every fault came as expected.
 */
static pid_t fault_proc(const char *comm, const char *path, long n, int report)
{
	pid_t pid = fork();
	struct sigaction sa;
	volatile char *bad;
	volatile long i;
	char *buf;

	if (pid)
		return pid;
	prctl(PR_SET_NAME, comm, 0, 0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	buf = map_mte();
	if (!buf || into_cgroup(path) || set_ctrl(PR_MTE_TCF_SYNC, 0xfffe))
		_exit(2);
	set_mem_tag(tag_ptr(buf + 64, 3));
	bad = (volatile char *)tag_ptr(buf + 64, 5);
	if (report) {
		if (prctl(PR_SET_MTE_REPORT, PR_MTE_REPORT_ON, 0, 0, 0))
			_exit(2);
		if (sigsetjmp(jb, 0))
			_exit(3);	/* signalled in report mode */
		(void)*bad;
		_exit(0);
	}
	for (i = 0; i < n; i++) {
		/* The mask is not saved: SA_NODEFER leaves SIGSEGV open. */
		if (sigsetjmp(jb, 0) == 0) {
			(void)*bad;
			_exit(4);	/* no fault */
		}
		if (seen_code != SEGV_MTESERR)
			_exit(5);
	}
	_exit(0);
}

static int wait_ok(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The records logged since kmsg_open(), one message per line, in *out. */
static size_t kmsg_all(int fd, char **out)
{
	char rec[2048], *msg, *all = NULL;
	size_t len = 0, cap = 0, m;
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0) {
			if (errno == EPIPE)
				continue;
			break;
		}
		rec[n] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		m = strcspn(msg, "\n");
		if (len + m + 2 > cap) {
			cap = (len + m + 2) * 2;
			all = realloc(all, cap);
			if (!all)
				break;
		}
		memcpy(all + len, msg, m);
		len += m;
		all[len++] = '\n';
		all[len] = 0;
	}
	*out = all;
	return all ? len : 0;
}

/* Lines of text that start with prefix. */
static long count_prefix(const char *text, const char *prefix)
{
	const char *l;
	long n = 0;

	for (l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, prefix, strlen(prefix)))
			n++;
	return n;
}

/* The line of text that starts with prefix (the first), in line. */
static int find_prefix(const char *text, const char *prefix, char *line, size_t len)
{
	const char *l;

	for (l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (!strncmp(l, prefix, strlen(prefix))) {
			snprintf(line, len, "%.*s", (int)strcspn(l, "\n"), l);
			return 0;
		}
	}
	return -1;
}

/* The sum of N of "mte: N fault reports suppressed for WHAT" lines. */
static long sum_suppressed(const char *text, const char *what, int *lines)
{
	char tail[600];
	const char *l;
	long sum = 0, n;
	int k;

	*lines = 0;
	snprintf(tail, sizeof(tail), " fault reports suppressed for %s", what);
	for (l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (sscanf(l, "mte: %ld%n", &n, &k) == 1 &&
		    !strncmp(l + k, tail, strlen(tail)) && l[k + strlen(tail)] == '\n') {
			sum += n;
			(*lines)++;
		}
	}
	return sum;
}

static void test_storm(void)
{
	char *log = NULL, prefix[128], line[1024];
	pid_t storm, victim;
	double t0, t1;
	long printed, suppressed;
	int fd, rc, lines, more;

	fd = kmsg_open();
	if (fd < 0)
		return result(0, "ratelimit-storm", "/dev/kmsg: %s", strerror(errno));
	t0 = now_s();
	storm = fault_proc("mtestorm", STORM_CG, STORM_FAULTS, 0);
	rc = wait_ok(storm);
	t1 = now_s();
	result(rc == 0, "ratelimit-storm", "storm process exited %d", rc);
	printf("# %d tag check faults in %.1f s (%.1f us each)\n", STORM_FAULTS, t1 - t0,
	       (t1 - t0) * 1e6 / STORM_FAULTS);

	/* Right after the storm, within its interval: other cgroups' faults. */
	victim = fault_proc("mtevictim", VICTIM_CG, 1, 0);
	rc = wait_ok(victim);
	result(rc == 0, "ratelimit-victim-fault", "victim exited %d", rc);
	rc = wait_ok(fault_proc("mtevicrep", VICTIM_CG, 1, 1));
	result(rc == 0, "ratelimit-victim-report-fault", "report-mode victim exited %d", rc);
	kmsg_all(fd, &log);
	snprintf(prefix, sizeof(prefix), "mte: sync tag check fault in mtevictim[%d]: ", victim);
	if (!find_prefix(log, prefix, line, sizeof(line)))
		printf("# kmsg: %s\n", line);
	result(strstr(line, " cgroup " VICTIM_CG) != NULL, "ratelimit-victim-logged",
	       "no line '%s... cgroup %s' after a storm of %d faults in %s", prefix,
	       VICTIM_CG, STORM_FAULTS, STORM_CG);
	line[0] = 0;
	find_prefix(log, "mte: sync tag check fault in mtevicrep[", line, sizeof(line));
	result(strstr(line, " cgroup " VICTIM_CG " (report mode: tag checks off in this thread)")
	       != NULL, "ratelimit-victim-report-logged",
	       "no report-mode line of mtevicrep in %s after the storm (got '%s')", VICTIM_CG,
	       line);
	snprintf(prefix, sizeof(prefix), "mte: sync tag check fault in mtestorm[%d]: ", storm);
	printed = count_prefix(log, prefix);
	suppressed = sum_suppressed(log, STORM_CG, &lines);
	printf("# storm: %ld lines printed while it ran, %ld suppressed in %d lines\n",
	       printed, suppressed, lines);
	result(printed >= BURST && printed <= BURST * (long)((t1 - t0) / INTERVAL_S + 2),
	       "ratelimit-storm-limited", "%ld lines of the storm in %.1f s, want %d per %d s",
	       printed, t1 - t0, BURST, INTERVAL_S);
	free(log);

	/* After the storm's interval: its count comes first. */
	sleep(INTERVAL_S + 1);
	rc = wait_ok(fault_proc("mtestorm2", STORM_CG, 1, 0));
	kmsg_all(fd, &log);
	close(fd);
	suppressed += sum_suppressed(log, STORM_CG, &more);
	lines += more;
	if (!find_prefix(log, "mte: sync tag check fault in mtestorm2[", line, sizeof(line)))
		printf("# kmsg: %s\n", line);
	else
		rc = -1;
	result(rc == 0, "ratelimit-after-interval", "no line of mtestorm2 after %d s",
	       INTERVAL_S + 1);
	printed += count_prefix(log, prefix);
	printf("# storm: %ld lines printed, %ld suppressed in %d \"suppressed\" lines\n",
	       printed, suppressed, lines);
	line[0] = 0;
	find_prefix(log, "mte: ", line, sizeof(line));
	printf("# kmsg: %s\n", line);
	result(more == 1 && strstr(line, " fault reports suppressed for " STORM_CG),
	       "ratelimit-suppressed-first", "first line after the interval '%s', want "
	       "'mte: N fault reports suppressed for %s'", line, STORM_CG);
	result(printed + suppressed == STORM_FAULTS, "ratelimit-suppressed-count",
	       "%ld printed + %ld in %d \"mte: N fault reports suppressed for %s\" lines, want %d",
	       printed, suppressed, lines, STORM_CG, STORM_FAULTS);
	free(log);
}

/*
 * A cgroup with BURST suppressed reports, then SOURCES new cgroups fault
 * once each: the table has room for SOURCES, so its slot is taken and its
 * count logged with its ID.
 */
static void test_evict(void)
{
	char *log = NULL, path[128], want[128], line[256] = "";
	struct stat st;
	int fd, i, rc = 0;

	fd = kmsg_open();
	rc = wait_ok(fault_proc("mteevict", EVICT_CG, 2 * BURST, 0));
	if (rc || stat(CGROOT EVICT_CG, &st))
		return result(0, "ratelimit-evict", "set-up: %d %s", rc, strerror(errno));
	for (i = 0; i < SOURCES && !rc; i++) {
		snprintf(path, sizeof(path), "/mtag-test.slice/evict-%02d.service", i);
		rc = wait_ok(fault_proc("mtenew", path, 1, 0));
	}
	kmsg_all(fd, &log);
	close(fd);
	snprintf(want, sizeof(want), "mte: %d fault reports suppressed for cgroup id %lu", BURST,
		 (unsigned long)st.st_ino);
	if (!find_prefix(log, want, line, sizeof(line)))
		printf("# kmsg: %s\n", line);
	result(!rc && !strcmp(line, want), "ratelimit-evict",
	       "no '%s' after %d new cgroups (fault process exit %d)", want, SOURCES, rc);
	free(log);
}

void test_rate_limit(void)
{
	mkdir("/sys", 0755);
	mkdir("/sys/fs", 0755);
	mkdir(CGROOT, 0755);
	if (access(CGROOT "/cgroup.procs", F_OK) &&
	    mount("cgroup2", CGROOT, "cgroup2", 0, NULL))
		return result(0, "ratelimit", "mount cgroup2: %s", strerror(errno));
	test_storm();
	test_evict();
}

/* --- who reads the kernel log ---------------------------------------------- */

/* 0 if the kernel log can be read both ways, else the errno of the first. */
static int read_log(const char **how)
{
	char buf[256];
	int fd;

	*how = "syslog(SYSLOG_ACTION_READ_ALL)";
	if (klogctl(SYSLOG_ACTION_READ_ALL, buf, sizeof(buf)) < 0)
		return errno;
	*how = "open(/dev/kmsg)";
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

void test_dmesg_restrict(void)
{
	int fds[2], err, status;
	const char *how;
	char v[16] = "";
	FILE *f;
	pid_t pid;

	f = fopen("/proc/sys/kernel/dmesg_restrict", "r");
	if (f) {
		if (!fgets(v, sizeof(v), f))
			v[0] = 0;
		fclose(f);
	}
	result(!strcmp(v, "1\n"), "dmesg-restrict-default", "kernel.dmesg_restrict is '%.*s', want 1",
	       (int)strcspn(v, "\n"), v);

	err = read_log(&how);
	result(err == 0, "dmesg-root-reads", "root: %s: %s", how, strerror(err));

	if (pipe(fds))
		return result(0, "dmesg-nobody", "pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		char buf[256];
		int e[2], kfd;

		close(fds[0]);
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(2);
		e[0] = klogctl(SYSLOG_ACTION_READ_ALL, buf, sizeof(buf)) < 0 ? errno : 0;
		kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
		e[1] = kfd < 0 ? errno : 0;
		if (write(fds[1], e, sizeof(e)) != sizeof(e))
			_exit(3);
		_exit(0);
	}
	close(fds[1]);
	{
		int e[2] = { -1, -1 };

		if (read(fds[0], e, sizeof(e)) != sizeof(e))
			result(0, "dmesg-nobody", "the child as nobody did not report");
		result(e[0] == EPERM, "dmesg-nobody-syslog",
		       "uid %d: syslog(SYSLOG_ACTION_READ_ALL) gave %s, want EPERM", NOBODY,
		       e[0] ? strerror(e[0]) : "success");
		result(e[1] == EPERM, "dmesg-nobody-kmsg",
		       "uid %d: open(/dev/kmsg, O_RDONLY) gave %s, want EPERM", NOBODY,
		       e[1] ? strerror(e[1]) : "success");
	}
	close(fds[0]);
	waitpid(pid, &status, 0);
}
