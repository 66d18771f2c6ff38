// SPDX-License-Identifier: GPL-2.0
/*
 * mte-execdef.c -- boot tests of the MTE exec default (patches/linux/0006):
 * prctl(PR_SET_MTE_EXEC_DEFAULT) on the calling thread only, its errors,
 * raising, lowering and clearing it, /proc/PID/status, inheritance by fork
 * and threads, kept across execve (plain, set-user-ID, file capabilities,
 * an unreadable binary), and report-only mode (0004) dropped on every
 * secure exec (also with fs.suid_dumpable=1) but kept by the exec of an
 * unreadable binary. Issue 32: the exec default goes with report mode on
 * such a secure exec (and stays on one without report mode), and a mode
 * without a tag mask gets the mask 0xfffe, a mask of tag 0 only EINVAL.
 * Execs run /init again with argv[1] "execdef-...".
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "mte-init.h"

#define NOBODY 65534
#define SUID_INIT "/init-suid"		/* set-user-ID root copy (cpio) */
#define XDIR "/execdef"			/* a tmpfs made here */
#define FCAP_INIT XDIR "/init-fcap"	/* cap_net_bind_service+ep */
#define NOREAD_INIT XDIR "/init-noread"	/* mode 0711: not readable */

#define SYNC_HEAP (PR_MTE_EXEC_TCF_SYNC | PR_MTE_EXEC_HEAP | \
		   (0xfffeUL << PR_MTE_EXEC_TAG_SHIFT))

static long get_def(void)
{
	return prctl(PR_GET_MTE_EXEC_DEFAULT, 0, 0, 0, 0);
}

static int set_def(unsigned long flags)
{
	return prctl(PR_SET_MTE_EXEC_DEFAULT, flags, 0, 0, 0);
}

static int set_report_on(void)
{
	return prctl(PR_SET_MTE_REPORT, PR_MTE_REPORT_ON, 0, 0, 0);
}

/* "MTE_ExecDefault" of PATH is WANT and its tag mask is MASK. */
static int status_is(const char *path, const char *want, const char *mask,
		     char *got, size_t len)
{
	char d[64] = "(missing)", m[64] = "(missing)";

	status_field(path, "MTE_ExecDefault", d, sizeof(d));
	status_field(path, "MTE_ExecDefaultTagInclude", m, sizeof(m));
	snprintf(got, len, "MTE_ExecDefault '%s' MTE_ExecDefaultTagInclude '%s'", d, m);
	return !strcmp(d, want) && !strcmp(m, mask);
}

/* --- prctl rules ------------------------------------------------------------ */

static void case_prctl(void)
{
	static const unsigned long bad[] = {
		PR_TAGGED_ADDR_ENABLE | PR_MTE_EXEC_TCF_SYNC,
		PR_MTE_EXEC_TCF_SYNC | (1UL << 20),
		PR_MTE_EXEC_TCF_SYNC | (1UL << 63),
		PR_MTE_EXEC_HEAP,			/* heap without a mode */
		0xfffeUL << PR_MTE_EXEC_TAG_SHIFT,	/* mask without a mode */
		PR_MTE_EXEC_TCF_SYNC | (0x0001UL << PR_MTE_EXEC_TAG_SHIFT), /* tag 0 only */
	};
	char got[256];
	size_t i;
	long r;
	int ok;

	r = get_def();
	result(r == 0, "execdef-initial-none", "PR_GET_MTE_EXEC_DEFAULT at boot: %ld", r);
	result(status_is("/proc/self/status", "none", "0x0000", got, sizeof(got)),
	       "execdef-status-none", "%s (want none, 0x0000)", got);

	r = set_def(SYNC_HEAP);
	result(r == 0 && get_def() == (long)SYNC_HEAP, "execdef-set-sync-heap",
	       "set: %ld (%s), get 0x%lx", r, strerror(errno), get_def());
	result(status_is("/proc/self/status", "sync heap", "0xfffe", got, sizeof(got)),
	       "execdef-status-sync-heap", "%s (want sync heap, 0xfffe)", got);

	ok = 1;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		r = set_def(bad[i]);
		if (r != -1 || errno != EINVAL) {
			ok = 0;
			result(0, "execdef-unknown-bits-einval", "flags 0x%lx: %ld errno %d",
			       bad[i], r, errno);
		}
	}
	result(ok && get_def() == (long)SYNC_HEAP, "execdef-unknown-bits-einval",
	       "the default changed after refused calls: 0x%lx", get_def());

	/* No mask: the kernel stores the default one, never 0 (issue 32). */
	r = set_def(PR_MTE_EXEC_TCF_SYNC | PR_MTE_EXEC_HEAP);
	result(r == 0 && get_def() == (long)SYNC_HEAP &&
	       status_is("/proc/self/status", "sync heap", "0xfffe", got, sizeof(got)),
	       "execdef-no-mask-default", "set sync heap without a mask: %ld, get 0x%lx, %s "
	       "(want 0x%lx, 0xfffe)", r, get_def(), got, SYNC_HEAP);
	r = set_def(PR_MTE_EXEC_TCF_ASYNC);
	result(r == 0 && get_def() == (long)(PR_MTE_EXEC_TCF_ASYNC |
					     (0xfffeUL << PR_MTE_EXEC_TAG_SHIFT)) &&
	       status_is("/proc/self/status", "async", "0xfffe", got, sizeof(got)),
	       "execdef-no-mask-default-async", "set async without a mask: %ld, get 0x%lx, %s",
	       r, get_def(), got);
	set_def(SYNC_HEAP);

	errno = 0;
	r = prctl(PR_GET_MTE_EXEC_DEFAULT, 1, 0, 0, 0);
	result(r == -1 && errno == EINVAL, "execdef-get-args-einval", "%ld errno %d", r, errno);

	/* Raise, lower, clear: all allowed on oneself. */
	r = set_def(PR_MTE_EXEC_TCF_MASK | PR_MTE_EXEC_HEAP | (0xfffeUL << PR_MTE_EXEC_TAG_SHIFT));
	result(r == 0 && status_is("/proc/self/status", "sync,async heap", "0xfffe", got,
				   sizeof(got)),
	       "execdef-set-cpu-preferred", "set %ld; %s", r, got);
	r = set_def(PR_MTE_EXEC_TCF_ASYNC | (0x00ffUL << PR_MTE_EXEC_TAG_SHIFT));
	result(r == 0 && status_is("/proc/self/status", "async", "0x00ff", got, sizeof(got)),
	       "execdef-lower-self", "set %ld; %s", r, got);
	r = set_def(0);
	result(r == 0 && get_def() == 0 &&
	       status_is("/proc/self/status", "none", "0x0000", got, sizeof(got)),
	       "execdef-clear-self", "set %ld; %s", r, got);
}

/*
 * No process can set another's: there is no argument naming one (a PID in
 * arg3 is EINVAL) and an unprivileged process setting its own changes
 * nothing in its parent.
 */
static void case_not_others(void)
{
	char path[64], got[256];
	int fds[2], back[2], status;
	pid_t child;
	long r;
	char c;

	if (set_def(SYNC_HEAP) || pipe(fds) || pipe(back))
		return result(0, "execdef-not-others", "set-up: %s", strerror(errno));
	child = fork();
	if (child == 0) {
		close(fds[1]);
		close(back[0]);
		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(2);
		errno = 0;
		r = prctl(PR_SET_MTE_EXEC_DEFAULT, 0, getppid(), 0, 0);
		if (r != -1 || errno != EINVAL)
			_exit(3);
		if (set_def(PR_MTE_EXEC_TCF_ASYNC))
			_exit(4);
		if (write(back[1], "x", 1) != 1 || read(fds[0], &c, 1) != 1)
			_exit(5);
		_exit(0);
	}
	close(fds[0]);
	close(back[1]);
	if (read(back[0], &c, 1) != 1)
		c = 0;
	snprintf(path, sizeof(path), "/proc/%d/status", child);
	result(c == 'x' && status_is(path, "async", "0xfffe", got, sizeof(got)),
	       "execdef-child-set-own", "child's %s (want async, 0xfffe)", got);
	result(get_def() == (long)SYNC_HEAP &&
	       status_is("/proc/self/status", "sync heap", "0xfffe", got, sizeof(got)),
	       "execdef-not-others", "after the child set its own: get 0x%lx, %s",
	       get_def(), got);
	if (write(fds[1], "x", 1) != 1)
		c = 0;
	waitpid(child, &status, 0);
	result(WIFEXITED(status) && WEXITSTATUS(status) == 0, "execdef-pid-arg-einval",
	       "child status 0x%x (exit 3: a PID in arg3 was not EINVAL)", status);
}

static void case_fork(void)
{
	int status;
	pid_t pid;

	if (set_def(SYNC_HEAP))
		return result(0, "execdef-fork", "set: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		if (get_def() != (long)SYNC_HEAP)
			_exit(1);
		set_def(0);	/* must not reach the parent */
		_exit(0);
	}
	waitpid(pid, &status, 0);
	result(WIFEXITED(status) && WEXITSTATUS(status) == 0, "execdef-fork-inherited",
	       "child status 0x%x (exit 1: not inherited)", status);
	result(get_def() == (long)SYNC_HEAP, "execdef-fork-parent-kept",
	       "parent 0x%lx after the child cleared its own", get_def());
}

static long thread_got;
static char thread_status[256];

static void *thread_fn(void *arg)
{
	char path[96];

	(void)arg;
	thread_got = get_def();
	snprintf(path, sizeof(path), "/proc/self/task/%ld/status", (long)syscall(SYS_gettid));
	if (!status_is(path, "sync heap", "0xfffe", thread_status, sizeof(thread_status)))
		thread_got = -2;
	return NULL;
}

static void case_threads(void)
{
	pthread_t th;

	if (set_def(SYNC_HEAP) || pthread_create(&th, NULL, thread_fn, NULL))
		return result(0, "execdef-thread-inherited", "set-up: %s", strerror(errno));
	pthread_join(th, NULL);
	result(thread_got == (long)SYNC_HEAP, "execdef-thread-inherited",
	       "thread: get %ld, %s", thread_got, thread_status);
}

/* --- execs -------------------------------------------------------------------- */

static int copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in, out, ok = 1;
	ssize_t n;

	in = open(from, O_RDONLY);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0700);
	if (in < 0 || out < 0)
		return -1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			ok = 0;
	close(in);
	if (close(out) || n < 0 || !ok)
		return -1;
	return chmod(to, mode);
}

/* The execs' targets in a tmpfs of our own: file capabilities need xattrs. */
static int make_targets(void)
{
	/* struct vfs_cap_data, revision 2: cap_net_bind_service (10) =ep */
	uint32_t cap[5] = { 0x02000001, 1U << 10, 0, 0, 0 };

	mkdir(XDIR, 0755);
	if (mount("tmpfs", XDIR, "tmpfs", 0, "mode=0755"))
		return -1;
	if (copy_file("/init", FCAP_INIT, 0755) ||
	    setxattr(FCAP_INIT, "security.capability", cap, sizeof(cap), 0))
		return -1;
	return copy_file("/init", NOREAD_INIT, 0711);
}

static void exec_as_nobody(const char *name, const char *path, const char *role, int report)
{
	char *argv[] = { (char *)path, (char *)role, NULL };
	char *envp[] = { NULL };

	if (set_def(SYNC_HEAP) || (report && set_report_on()) ||
	    setgid(NOBODY) || setuid(NOBODY))
		return result(0, name, "set-up: %s", strerror(errno));
	execve(path, argv, envp);
	result(0, name, "execve %s: %s", path, strerror(errno));
}

static void case_exec(void)
{
	char *argv[] = { "/init", "execdef-exec-child", NULL };
	char *envp[] = { NULL };

	if (set_def(SYNC_HEAP))
		return result(0, "execdef-exec", "set: %s", strerror(errno));
	execve("/init", argv, envp);
	result(0, "execdef-exec", "execve /init: %s", strerror(errno));
}

static void case_setuid(void)
{
	exec_as_nobody("execdef-setuid", SUID_INIT, "execdef-setuid-child", 1);
}

/* Without report mode, a set-user-ID program keeps the exec default. */
static void case_setuid_norep(void)
{
	exec_as_nobody("execdef-setuid-norep", SUID_INIT, "execdef-suidnorep-child", 0);
}

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	return close(fd) || !ok ? -1 : 0;
}

/* fs.suid_dumpable=1 leaves the set-user-ID program dumpable: still secure. */
static void case_setuid_dumpable(void)
{
	if (write_file("/proc/sys/fs/suid_dumpable", "1"))
		return result(0, "execdef-setuid-dumpable", "fs.suid_dumpable: %s",
			      strerror(errno));
	exec_as_nobody("execdef-setuid-dumpable", SUID_INIT, "execdef-suiddump-child", 1);
}

static void case_fcap(void)
{
	exec_as_nobody("execdef-fcap", FCAP_INIT, "execdef-fcap-child", 1);
}

static void case_noread(void)
{
	exec_as_nobody("execdef-noread", NOREAD_INIT, "execdef-noread-child", 1);
}

/* The exec'd side: what it inherited. */
static int exec_child(const char *role)
{
	char name[96], got[256], tcf[64] = "(missing)";
	long def = get_def(), rep = prctl(PR_GET_MTE_REPORT, 0, 0, 0, 0);
	unsigned long secure = getauxval(AT_SECURE);
	int dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
	int st = status_is("/proc/self/status", "sync heap", "0xfffe", got, sizeof(got));
	const char *r = role + strlen("execdef-");

	/*
	 * A secure exec in report mode drops the exec default with report mode
	 * (issue 32): the privileged program runs as without either.
	 */
	int dropped = secure && strcmp(role, "execdef-suidnorep-child");

	if (dropped) {
		st = status_is("/proc/self/status", "none", "0x0000", got, sizeof(got));
		snprintf(name, sizeof(name), "execdef-%.*s-default-dropped",
			 (int)(strlen(r) - strlen("-child")), r);
		result(def == 0 && st, name, "after a secure exec in report mode: get 0x%lx, %s "
		       "(want 0, none)", def, got);
	} else {
		snprintf(name, sizeof(name), "execdef-%.*s-kept",
			 (int)(strlen(r) - strlen("-child")), r);
		result(def == (long)SYNC_HEAP && st, name, "after the exec: get 0x%lx, %s", def,
		       got);
	}

	if (!strcmp(role, "execdef-exec-child")) {
		/* The kernel keeps it, it does not apply it. */
		status_field("/proc/self/status", "MTE_TCF", tcf, sizeof(tcf));
		result(!strcmp(tcf, "none") && !secure, "execdef-exec-not-applied",
		       "MTE_TCF '%s' AT_SECURE %lu (want none, 0)", tcf, secure);
	} else if (!strcmp(role, "execdef-setuid-child") ||
		   !strcmp(role, "execdef-suiddump-child")) {
		int suiddump = !strcmp(role, "execdef-suiddump-child");

		snprintf(name, sizeof(name), "execdef-%s-report-dropped",
			 suiddump ? "suiddump" : "setuid");
		result(geteuid() == 0 && getuid() == NOBODY && secure && rep == 0 &&
		       (!suiddump || dumpable == 1), name,
		       "euid %d uid %d AT_SECURE %lu dumpable %d PR_GET_MTE_REPORT %ld "
		       "(want 0, %d, 1, %s, 0)", geteuid(), getuid(), secure, dumpable, rep,
		       NOBODY, suiddump ? "1" : "any");
	} else if (!strcmp(role, "execdef-fcap-child")) {
		char eff[64] = "";

		status_field("/proc/self/status", "CapEff", eff, sizeof(eff));
		result(getuid() == NOBODY && secure && rep == 0 &&
		       !strcmp(eff, "0000000000000400"), "execdef-fcap-report-dropped",
		       "uid %d CapEff %s AT_SECURE %lu PR_GET_MTE_REPORT %ld "
		       "(want %d, 0000000000000400, 1, 0)", getuid(), eff, secure, rep, NOBODY);
	} else if (!strcmp(role, "execdef-suidnorep-child")) {
		result(geteuid() == 0 && getuid() == NOBODY && secure && rep == 0,
		       "execdef-suidnorep-secure", "euid %d uid %d AT_SECURE %lu "
		       "PR_GET_MTE_REPORT %ld (want 0, %d, 1, 0)", geteuid(), getuid(), secure,
		       rep, NOBODY);
	} else if (!strcmp(role, "execdef-noread-child")) {
		result(getuid() == NOBODY && !secure && dumpable == 0 &&
		       rep == (long)PR_MTE_REPORT_ON, "execdef-noread-report-kept",
		       "uid %d AT_SECURE %lu dumpable %d PR_GET_MTE_REPORT %ld "
		       "(want %d, 0, 0, 1): an unreadable binary gains nothing",
		       getuid(), secure, dumpable, rep, NOBODY);
	}
	return failures;
}

int execdef_exec_main(int argc, char **argv)
{
	(void)argc;
	setvbuf(stdout, NULL, _IOLBF, 0);
	return exec_child(argv[1]);
}

void test_exec_default(void)
{
	errno = 0;
	if (get_def() < 0 && errno == EINVAL) {
		result(0, "execdef", "PR_GET_MTE_EXEC_DEFAULT: EINVAL (no exec default: "
		       "patches/linux/0006 not applied?)");
		return;
	}
	run_case("execdef-prctl", case_prctl);
	run_case("execdef-not-others", case_not_others);
	run_case("execdef-fork", case_fork);
	run_case("execdef-threads", case_threads);
	run_case("execdef-exec", case_exec);
	run_case("execdef-setuid", case_setuid);
	run_case("execdef-setuid-norep", case_setuid_norep);
	run_case("execdef-setuid-dumpable", case_setuid_dumpable);
	write_file("/proc/sys/fs/suid_dumpable", "0");
	if (make_targets()) {
		result(0, "execdef-targets", "%s: %s", XDIR, strerror(errno));
		return;
	}
	run_case("execdef-fcap", case_fcap);
	run_case("execdef-noread", case_noread);
}

void test_exec_default_nomte(void)
{
	char v[64];
	long r;

	errno = 0;
	r = get_def();
	result(r == -1 && errno == EINVAL, "execdef-no-mte-einval",
	       "PR_GET_MTE_EXEC_DEFAULT without MTE: %ld errno %d (want -1 EINVAL)", r, errno);
	errno = 0;
	r = set_def(SYNC_HEAP);
	result(r == -1 && errno == EINVAL, "execdef-set-no-mte-einval",
	       "PR_SET_MTE_EXEC_DEFAULT without MTE: %ld errno %d (want -1 EINVAL)", r, errno);
	result(status_field("/proc/self/status", "MTE_ExecDefault", v, sizeof(v)) != 0,
	       "execdef-no-mte-no-status-line", "MTE_ExecDefault '%s' without MTE", v);
}
