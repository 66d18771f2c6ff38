// SPDX-License-Identifier: GPL-2.0
/*
 * mte-ratelimit: the per-cgroup rate limit of the kernel's tag check fault
 * lines (patches/linux/0007), in the kernel suite's /init:
 *
 *  - a storm of STORM_FAULTS synchronous faults of one process (a SIGSEGV
 *    handler that siglongjmps back) in /mtag-test.slice/storm.service, then
 *    one fault of a process in /mtag-test.slice/victim.service, signalled,
 *    and one in report mode: both victim lines are logged;
 *  - after the storm's interval, with no more fault of the storm's cgroup,
 *    the line "mte: N fault reports suppressed for /mtag-test.slice/
 *    storm.service" comes all the same (the kernel's timer), and the
 *    storm's printed lines plus every N add up to exactly STORM_FAULTS;
 *    one more fault of that cgroup is then logged, with no count first;
 *  - one budget per delegation (issue 32): a cgroup delegated to a user
 *    as systemd does it (user@UID.service, chowned), in which the user
 *    makes its own cgroups: the user's USER_FAULTS faults in 1 cgroup and,
 *    under another uid, in USER_CGROUPS cgroups (half of them chowned to
 *    other uids, as a container's user namespace root can) give no more
 *    lines than the budget of one cgroup; a root service's fault and the
 *    same user's fault in a root-owned scope right after are logged; and
 *    in each delegation the lines plus the "suppressed" counts, which the
 *    timer logs after the interval, are the faults taken;
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
 * In a fault child: name it comm, catch SIGSEGV (siglongjmp to jb) and
 * return a pointer with tag 5 to a granule with tag 3; NULL on failure.
 * The caller turns tag checking on.
 */
static volatile char *fault_setup(const char *comm)
{
	struct sigaction sa;
	char *buf;

	prctl(PR_SET_NAME, comm, 0, 0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	buf = map_mte();
	if (!buf)
		return NULL;
	set_mem_tag(tag_ptr(buf + 64, 3));
	return (volatile char *)tag_ptr(buf + 64, 5);
}

/* One caught synchronous fault through bad: 0, or 4 (none), 5 (not sync). */
static int fault_once(volatile char *bad)
{
	/* The mask is not saved: SA_NODEFER leaves SIGSEGV open. */
	if (sigsetjmp(jb, 0) == 0) {
		(void)*bad;
		return 4;
	}
	return seen_code == SEGV_MTESERR ? 0 : 5;
}

/*
 * In a child named comm in cgroup path (NULL: its parent's): n synchronous
 * tag check faults, each caught; in report mode (report) the first one is
 * logged and completes.  Exits 0 if every fault came as expected.
 */
static pid_t fault_proc(const char *comm, const char *path, long n, int report)
{
	pid_t pid = fork();
	volatile char *bad;
	long i;
	int rc;

	if (pid)
		return pid;
	bad = fault_setup(comm);
	if (!bad || (path && into_cgroup(path)) || set_ctrl(PR_MTE_TCF_SYNC, 0xfffe))
		_exit(2);
	if (report) {
		if (prctl(PR_SET_MTE_REPORT, PR_MTE_REPORT_ON, 0, 0, 0))
			_exit(2);
		if (sigsetjmp(jb, 0))
			_exit(3);	/* signalled in report mode */
		(void)*bad;
		_exit(0);
	}
	for (i = 0; i < n; i++) {
		rc = fault_once(bad);
		if (rc)
			_exit(rc);
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

	/*
	 * After the storm's interval, with no fault of its cgroup: the count
	 * of its last interval comes from the kernel's timer.
	 */
	sleep(INTERVAL_S + 1);
	kmsg_all(fd, &log);
	suppressed += sum_suppressed(log, STORM_CG, &more);
	lines += more;
	printf("# storm: %ld lines printed, %ld suppressed in %d \"suppressed\" lines\n",
	       printed, suppressed, lines);
	/* The storm's last interval too, though that cgroup faults no more. */
	result(printed + suppressed == STORM_FAULTS, "ratelimit-suppressed-timer",
	       "%ld printed + %ld in %d \"mte: N fault reports suppressed for %s\" lines "
	       "%d s after the storm without another fault of it, want %d",
	       printed, suppressed, lines, STORM_CG, INTERVAL_S + 1, STORM_FAULTS);
	free(log);

	/* A new fault of the storm's cgroup: logged, nothing left to count. */
	rc = wait_ok(fault_proc("mtestorm2", STORM_CG, 1, 0));
	kmsg_all(fd, &log);
	close(fd);
	if (!find_prefix(log, "mte: sync tag check fault in mtestorm2[", line, sizeof(line)))
		printf("# kmsg: %s\n", line);
	else
		rc = -1;
	result(rc == 0, "ratelimit-after-interval", "no line of mtestorm2 after %d s",
	       INTERVAL_S + 1);
	sum_suppressed(log, STORM_CG, &more);
	result(more == 0, "ratelimit-counted-once",
	       "%d more \"suppressed\" lines for %s after its count was logged", more,
	       STORM_CG);
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
	int fd, i, rc = 0, n;
	long by_path;
	double t0, secs;

	fd = kmsg_open();
	t0 = now_s();
	rc = wait_ok(fault_proc("mteevict", EVICT_CG, 2 * BURST, 0));
	if (rc || stat(CGROOT EVICT_CG, &st))
		return result(0, "ratelimit-evict", "set-up: %d %s", rc, strerror(errno));
	for (i = 0; i < SOURCES && !rc; i++) {
		snprintf(path, sizeof(path), "/mtag-test.slice/evict-%02d.service", i);
		rc = wait_ok(fault_proc("mtenew", path, 1, 0));
	}
	secs = now_s() - t0;
	sleep(INTERVAL_S + 1);	/* a count not evicted comes from the timer */
	kmsg_all(fd, &log);
	close(fd);
	snprintf(want, sizeof(want), "mte: %d fault reports suppressed for cgroup id %lu", BURST,
		 (unsigned long)st.st_ino);
	if (!find_prefix(log, want, line, sizeof(line)))
		printf("# kmsg: %s\n", line);
	by_path = sum_suppressed(log, EVICT_CG, &n);
	printf("# evict: %d new cgroups %.1f s after the first fault, count by ID '%s', "
	       "by path %ld\n", SOURCES, secs, line, by_path);
	/*
	 * Evicted within its interval: the count by ID. Slower than that (the
	 * emulator), the timer logged it by path first: once either way.
	 */
	if (secs < INTERVAL_S - 0.5)
		result(!rc && !strcmp(line, want) && by_path == 0, "ratelimit-evict",
		       "no '%s' after %d new cgroups in %.1f s (fault process exit %d, %ld by path)",
		       want, SOURCES, secs, rc, by_path);
	else
		result(!rc && !strcmp(line, want) != (by_path == BURST), "ratelimit-evict",
		       "the %d suppressed reports of %s not logged once after %.1f s: by ID '%s', "
		       "by path %ld", BURST, EVICT_CG, secs, line, by_path);
	free(log);
}

/* --- one budget per delegation ---------------------------------------------- */

#define USER_FAULTS 1000
#define USER_CGROUPS 1000
#define UID_ONE 1001		/* USER_FAULTS faults in 1 cgroup */
#define UID_MANY 1002		/* in USER_CGROUPS cgroups */
#define OTHER_UIDS 200000	/* owners given to every other cgroup of UID_MANY */
#define ROOTSVC_CG "/mtag-test.slice/rootsvc.service"

/* "/mtag-test.slice/user-UID.slice/user@UID.service" */
static void deleg_path(char *buf, size_t len, uid_t uid)
{
	snprintf(buf, len, "/mtag-test.slice/user-%u.slice/user@%u.service", uid, uid);
}

/* chown of a file under CGROOT. */
static int cg_chown(const char *path, const char *file, uid_t uid)
{
	char p[600];

	snprintf(p, sizeof(p), "%s%s%s%s", CGROOT, path, *file ? "/" : "", file);
	return chown(p, uid, uid);
}

/*
 * Delegate cgroup path to uid as systemd's Delegate=yes does: root makes it
 * and gives the directory, cgroup.procs, cgroup.threads and
 * cgroup.subtree_control to the user. The parents stay root's.
 */
static int delegate(const char *path, uid_t uid)
{
	pid_t pid = fork();

	if (pid == 0)	/* into_cgroup() makes it, in a process of its own */
		_exit(into_cgroup(path) ? 1 : 0);
	if (wait_ok(pid))
		return -1;
	return cg_chown(path, "", uid) || cg_chown(path, "cgroup.procs", uid) ||
	       cg_chown(path, "cgroup.threads", uid) ||
	       cg_chown(path, "cgroup.subtree_control", uid) ? -1 : 0;
}

static int drop_to(uid_t uid)
{
	return setgroups(0, NULL) || setgid(uid) || setuid(uid) ? -1 : 0;
}

/* As uid, in the delegated cgroup deleg: make n cgroups c0000... in it. */
static int user_mkdirs(const char *deleg, uid_t uid, int n)
{
	pid_t pid = fork();
	char dir[600];
	int i;

	if (pid)
		return wait_ok(pid);
	if (into_cgroup(deleg) || drop_to(uid))
		_exit(2);
	for (i = 0; i < n; i++) {
		snprintf(dir, sizeof(dir), "%s%s/c%04d", CGROOT, deleg, i);
		if (mkdir(dir, 0755))
			_exit(3);
	}
	_exit(0);
}

/*
 * In a child named comm running as uid, started in deleg: nfaults caught
 * synchronous tag check faults, the i-th after moving itself into cgroup
 * c(i % ncg) of deleg. Exits 0 if every fault came as expected.
 */
static pid_t user_faults(const char *comm, const char *deleg, uid_t uid, int ncg, int nfaults)
{
	pid_t pid = fork();
	volatile char *bad;
	char path[600];
	int fd, i, rc;

	if (pid)
		return pid;
	bad = fault_setup(comm);
	if (!bad || into_cgroup(deleg) || drop_to(uid) || set_ctrl(PR_MTE_TCF_SYNC, 0xfffe))
		_exit(2);
	for (i = 0; i < nfaults; i++) {
		snprintf(path, sizeof(path), "%s%s/c%04d/cgroup.procs", CGROOT, deleg,
			 i % ncg);
		fd = open(path, O_WRONLY);
		if (fd < 0 || write(fd, "0", 1) != 1)
			_exit(6);
		close(fd);
		rc = fault_once(bad);
		if (rc)
			_exit(rc);
	}
	_exit(0);
}

/* A single caught fault of comm as uid in a cgroup of root's, path. */
static pid_t fault_as(const char *comm, const char *path, uid_t uid)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	if (into_cgroup(path) || drop_to(uid))
		_exit(2);
	if (wait_ok(fault_proc(comm, NULL, 1, 0)))
		_exit(3);
	_exit(0);
}

struct flood {
	uid_t uid;
	int ncg;
	const char *comm;
	char deleg[256];
	unsigned long ino;	/* of deleg: "suppressed for cgroup id INO" */
	double secs;
	long lines, suppressed;
	int rc;
};

/* Lines "mte: N fault reports suppressed for cgroup id ID": the sum of N. */
static long sum_suppressed_id(const char *text, unsigned long id)
{
	char what[64];
	int lines;

	snprintf(what, sizeof(what), "cgroup id %lu", id);
	return sum_suppressed(text, what, &lines);
}

static void run_flood(struct flood *f)
{
	struct stat st;
	double t0;

	deleg_path(f->deleg, sizeof(f->deleg), f->uid);
	f->rc = -1;
	if (delegate(f->deleg, f->uid) || user_mkdirs(f->deleg, f->uid, f->ncg))
		return;
	if (f->ncg > 1) {
		/* As a container's root can: its cgroups to other uids. */
		char cg[300];
		int i;

		for (i = 1; i < f->ncg; i += 2) {
			snprintf(cg, sizeof(cg), "%s/c%04d", f->deleg, i);
			if (cg_chown(cg, "", OTHER_UIDS + i))
				return;
		}
	}
	{
		char d[300];

		snprintf(d, sizeof(d), "%s%s", CGROOT, f->deleg);
		if (stat(d, &st))
			return;
		f->ino = st.st_ino;
	}
	t0 = now_s();
	f->rc = wait_ok(user_faults(f->comm, f->deleg, f->uid, f->ncg, USER_FAULTS));
	f->secs = now_s() - t0;
}

static void test_delegation(void)
{
	struct flood one = { .uid = UID_ONE, .ncg = 1, .comm = "mteuser1" };
	struct flood many = { .uid = UID_MANY, .ncg = USER_CGROUPS, .comm = "mteuserN" };
	char *log = NULL, prefix[64], line[1024] = "", scope[128];
	struct flood *f, *all[] = { &one, &many };
	long bound;
	size_t i;
	int fd, rc, n;

	fd = kmsg_open();
	if (fd < 0)
		return result(0, "ratelimit-delegation", "/dev/kmsg: %s", strerror(errno));
	run_flood(&one);
	run_flood(&many);
	result(one.rc == 0 && many.rc == 0, "ratelimit-user-faults",
	       "user fault processes exited %d (1 cgroup) and %d (%d cgroups)", one.rc, many.rc,
	       USER_CGROUPS);
	/* Right after the flood, the budget of UID_MANY's delegation used up. */
	rc = wait_ok(fault_as("mterootsvc", ROOTSVC_CG, 0));
	snprintf(scope, sizeof(scope), "/mtag-test.slice/user-%u.slice/session-1.scope", UID_MANY);
	rc |= wait_ok(fault_as("mteuserscope", scope, UID_MANY));
	sleep(INTERVAL_S + 1);	/* the timer logs the counts */
	kmsg_all(fd, &log);
	close(fd);

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		f = all[i];
		snprintf(prefix, sizeof(prefix), "mte: sync tag check fault in %s[", f->comm);
		f->lines = count_prefix(log, prefix);
		f->suppressed = sum_suppressed(log, f->deleg, &n) + sum_suppressed_id(log, f->ino);
		printf("# uid %u, %d cgroup(s): %d faults in %.1f s, %ld lines, %ld suppressed "
		       "in %d \"suppressed for %s\" lines\n", f->uid, f->ncg, USER_FAULTS, f->secs,
		       f->lines, f->suppressed, n, f->deleg);
	}
	/* As many lines as the budget of one cgroup for the time taken. */
	bound = BURST * (long)(many.secs / INTERVAL_S + 1);
	result(many.lines >= BURST && many.lines <= bound, "ratelimit-user-cgroups-one-budget",
	       "uid %u with %d cgroups: %ld lines in %.1f s, want %d to %ld (with 1 cgroup: %ld)",
	       UID_MANY, USER_CGROUPS, many.lines, many.secs, BURST, bound, one.lines);
	bound = BURST * (long)(one.secs / INTERVAL_S + 1);
	result(one.lines >= BURST && one.lines <= bound, "ratelimit-user-one-cgroup",
	       "uid %u with 1 cgroup: %ld lines in %.1f s, want %d to %ld", UID_ONE,
	       one.lines, one.secs, BURST, bound);
	printf("# flood: %ld lines with 1 cgroup, %ld lines with %d cgroups\n", one.lines,
	       many.lines, USER_CGROUPS);
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		f = all[i];
		result(f->lines + f->suppressed == USER_FAULTS,
		       f->ncg > 1 ? "ratelimit-user-cgroups-accounted" :
				    "ratelimit-user-one-cgroup-accounted",
		       "uid %u: %ld lines + %ld suppressed, want the %d faults taken", f->uid,
		       f->lines, f->suppressed, USER_FAULTS);
	}
	line[0] = 0;
	find_prefix(log, "mte: sync tag check fault in mterootsvc[", line, sizeof(line));
	result(!rc && strstr(line, " cgroup " ROOTSVC_CG), "ratelimit-root-service-logged",
	       "no line of a root service in %s right after the user flood (got '%s')",
	       ROOTSVC_CG, line);
	line[0] = 0;
	find_prefix(log, "mte: sync tag check fault in mteuserscope[", line, sizeof(line));
	result(!rc && strstr(line, scope), "ratelimit-user-root-scope-logged",
	       "no line of uid %u in the root-owned %s after its delegation's flood (got '%s')",
	       UID_MANY, scope, line);
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
	test_delegation();
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
