// SPDX-License-Identifier: GPL-2.0
/*
 * mte-init: /init of the kernel suite's initramfs.  Runs the MTE checks of
 * the patched kernel inside QEMU (-M virt,mte=on -cpu max), prints one line
 * per case on the console ("PASS: name" / "FAIL: name: why" / "SKIP: ...")
 * and powers the machine off.  The host side (tests/ts/kernel/run) forwards the
 * lines and fails if "MTAG-KERNEL-TESTS-DONE" never appears.
 *
 * Build: aarch64-linux-gnu-gcc -static -march=armv8.5-a+memtag
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "mte-init.h"

int failures;

void result(int ok, const char *name, const char *fmt, ...)
{
	char why[512] = "";
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
	}
	if (ok) {
		printf("PASS: %s\n", name);
	} else {
		printf("FAIL: %s: %s\n", name, why);
		failures++;
	}
	fflush(stdout);
}

void run_case(const char *name, void (*fn)(void))
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return result(0, name, "fork: %s", strerror(errno));
	if (pid == 0) {
		failures = 0;
		fn();
		fflush(stdout);
		_exit(failures > 100 ? 100 : failures);
	}
	waitpid(pid, &status, 0);
	if (WIFEXITED(status))
		failures += WEXITSTATUS(status);
	else
		result(0, name, "case process ended with status 0x%x", status);
}

/*
 * Whether kernel line s is as pattern pat: '#' stands for any one character,
 * '*' for a run of hex digits (a PC), anything else for itself.
 */
int line_match(const char *pat, const char *s)
{
	for (; *pat; pat++, s++) {
		if (*pat == '*') {
			if (!isxdigit((unsigned char)*s))
				return 0;
			while (isxdigit((unsigned char)s[1]))
				s++;
		} else if (*pat == '#') {
			if (!*s)
				return 0;
		} else if (*pat != *s) {
			return 0;
		}
	}
	return *s == 0;
}

unsigned long tag_ptr(void *p, unsigned int tag)
{
	return ((uintptr_t)p & ~(0xfUL << 56)) | ((unsigned long)tag << 56);
}

/* Set the allocation tag of the 16-byte granule at tagged address p. */
void set_mem_tag(unsigned long p)
{
	asm volatile(".arch_extension memtag\n\tstg %0, [%0]" : : "r"(p) : "memory");
}

int set_ctrl(unsigned long tcf, unsigned long incl)
{
	return prctl(PR_SET_TAGGED_ADDR_CTRL,
		     PR_TAGGED_ADDR_ENABLE | tcf | (incl << PR_MTE_TAG_SHIFT), 0, 0, 0);
}

void *map_mte(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_MTE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* --- faults in a child, reported through a pipe ---------------------------- */

struct fault_info {
	int signo;
	int code;
	unsigned long addr;
	unsigned long pc;
	unsigned long expect_addr;	/* the bad pointer, tagged */
	int pid;
};

static int report_fd = -1;
static int fault_child_h(const char *comm, unsigned long tcf, int handle,
			 struct fault_info *out, const char **why);
static struct fault_info fi;

static void segv_handler(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	fi.signo = sig;
	fi.code = si->si_code;
	fi.addr = (unsigned long)si->si_addr;
	fi.pc = uc->uc_mcontext.pc;
	fi.pid = getpid();
	if (write(report_fd, &fi, sizeof(fi)) != sizeof(fi))
		_exit(3);
	_exit(0);
}

/*
 * Run a child named comm that makes a tag check fault in mode tcf (a load
 * with pointer tag 5 from memory with tag 3) and report what its SIGSEGV
 * handler saw.  Returns 0 and fills *out, or -1 with *why set.
 */
static int fault_child(const char *comm, unsigned long tcf, struct fault_info *out,
		       const char **why)
{
	return fault_child_h(comm, tcf, 1, out, why);
}

/*
 * Like fault_child() but without a SIGSEGV handler when handle is 0: then
 * the child dies of the signal and only its pid is reported.
 */
static int fault_child_h(const char *comm, unsigned long tcf, int handle,
			 struct fault_info *out, const char **why)
{
	int fds[2], status;
	pid_t pid;
	ssize_t n;

	if (pipe(fds)) {
		*why = "pipe";
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		*why = "fork";
		return -1;
	}
	if (pid == 0) {
		struct sigaction sa;
		volatile char *bad;
		char *buf;

		close(fds[0]);
		report_fd = fds[1];
		prctl(PR_SET_NAME, comm, 0, 0, 0);
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = segv_handler;
		sa.sa_flags = SA_SIGINFO | SA_EXPOSE_TAGBITS;
		if (handle)
			sigaction(SIGSEGV, &sa, NULL);
		buf = map_mte();
		if (!buf || set_ctrl(tcf, 0xfffe))
			_exit(2);
		set_mem_tag(tag_ptr(buf + 64, 3));
		bad = (volatile char *)tag_ptr(buf + 64, 5);
		fi.expect_addr = (unsigned long)bad;
		if (tcf == PR_MTE_TCF_SYNC) {
			(void)*bad;
		} else {
			*bad = 1;
			/* Delivered on the next kernel entry. */
			for (int i = 0; i < 1000; i++)
				syscall(SYS_getppid);
		}
		_exit(1);	/* no fault */
	}
	close(fds[1]);
	memset(out, 0, sizeof(*out));
	n = read(fds[0], out, sizeof(*out));
	close(fds[0]);
	waitpid(pid, &status, 0);
	out->pid = pid;
	if (!handle) {
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV)
			return 0;
		*why = "child did not die of SIGSEGV";
		return -1;
	}
	if (n != sizeof(*out)) {
		*why = WIFEXITED(status) && WEXITSTATUS(status) == 1 ?
			"no SIGSEGV" : "child failed before the fault";
		return -1;
	}
	return 0;
}

static void test_sync(void)
{
	struct fault_info f;
	const char *why;

	if (fault_child("mtesync", PR_MTE_TCF_SYNC, &f, &why))
		return result(0, "sync-fault", "%s", why);
	result(f.signo == SIGSEGV && f.code == SEGV_MTESERR && f.addr == f.expect_addr,
	       "sync-fault", "signo %d si_code %d si_addr 0x%lx (want SIGSEGV, %d, 0x%lx)",
	       f.signo, f.code, f.addr, SEGV_MTESERR, f.expect_addr);
}

static void test_async(void)
{
	struct fault_info f;
	const char *why;

	if (fault_child("mteasync", PR_MTE_TCF_ASYNC, &f, &why))
		return result(0, "async-fault", "%s", why);
	result(f.signo == SIGSEGV && f.code == SEGV_MTEAERR && f.addr == 0,
	       "async-fault", "signo %d si_code %d si_addr 0x%lx (want SIGSEGV, %d, 0)",
	       f.signo, f.code, f.addr, SEGV_MTEAERR);
}

/* --- /proc/<pid>/status ------------------------------------------------------ */

/* Copy the value of "key:\t" in status file path into val; 0 if found. */
int status_field(const char *path, const char *key, char *val, size_t len)
{
	char line[256];
	size_t klen = strlen(key);
	FILE *f = fopen(path, "r");
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen) && line[klen] == ':' && line[klen + 1] == '\t') {
			snprintf(val, len, "%s", line + klen + 2);
			val[strcspn(val, "\n")] = 0;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

static int check_status(const char *path, const char *tcf, unsigned long incl, char *why,
			size_t len)
{
	char v1[64] = "(missing)", v2[64] = "(missing)", want[16];

	status_field(path, "MTE_TCF", v1, sizeof(v1));
	status_field(path, "MTE_TagInclude", v2, sizeof(v2));
	snprintf(want, sizeof(want), "0x%04lx", incl);
	if (!strcmp(v1, tcf) && !strcmp(v2, want))
		return 0;
	snprintf(why, len, "%s: MTE_TCF '%s' MTE_TagInclude '%s', want '%s' '%s'",
		 path, v1, v2, tcf, want);
	return -1;
}

static void test_status_self(void)
{
	static const struct {
		unsigned long tcf;
		unsigned long incl;
		const char *name;
	} cases[] = {
		{ 0, 0x0000, "none" },
		{ PR_MTE_TCF_SYNC, 0xfffe, "sync" },
		{ PR_MTE_TCF_ASYNC, 0x00ff, "async" },
		{ PR_MTE_TCF_SYNC | PR_MTE_TCF_ASYNC, 0x8001, "sync,async" },
		{ 0, 0xffff, "none" },
		{ PR_MTE_TCF_SYNC, 0x0000, "sync" },
	};
	char why[300], name[64];
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(name, sizeof(name), "status-self-%s-0x%04lx", cases[i].name,
			 cases[i].incl);
		if (set_ctrl(cases[i].tcf, cases[i].incl)) {
			result(0, name, "prctl: %s", strerror(errno));
			continue;
		}
		result(!check_status("/proc/self/status", cases[i].name, cases[i].incl,
				     why, sizeof(why)), name, "%s", why);
	}
	set_ctrl(0, 0);
}

static void test_status_child(void)
{
	int fds[2], status;
	char path[64], why[300], c;
	pid_t pid;

	if (pipe(fds))
		return result(0, "status-child", "pipe");
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		set_ctrl(PR_MTE_TCF_SYNC, 0x0f0f);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &c, 1) != 1) {
		result(0, "status-child", "child did not start");
	} else {
		snprintf(path, sizeof(path), "/proc/%d/status", pid);
		result(!check_status(path, "sync", 0x0f0f, why, sizeof(why)),
		       "status-child", "%s", why);
	}
	close(fds[0]);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

static pthread_mutex_t thr_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t thr_cond = PTHREAD_COND_INITIALIZER;
static int thr_state;	/* 1: thread configured, 2: main done */
static pid_t thr_tid;

static void *thread_fn(void *arg)
{
	(void)arg;
	set_ctrl(PR_MTE_TCF_ASYNC, 0x00f0);
	pthread_mutex_lock(&thr_lock);
	thr_tid = gettid();
	thr_state = 1;
	pthread_cond_broadcast(&thr_cond);
	while (thr_state != 2)
		pthread_cond_wait(&thr_cond, &thr_lock);
	pthread_mutex_unlock(&thr_lock);
	return NULL;
}

static void test_status_thread(void)
{
	char path[64], why[300];
	pthread_t t;

	set_ctrl(PR_MTE_TCF_SYNC, 0x000f);
	if (pthread_create(&t, NULL, thread_fn, NULL))
		return result(0, "status-thread", "pthread_create");
	pthread_mutex_lock(&thr_lock);
	while (thr_state != 1)
		pthread_cond_wait(&thr_cond, &thr_lock);
	pthread_mutex_unlock(&thr_lock);

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", thr_tid);
	result(!check_status(path, "async", 0x00f0, why, sizeof(why)),
	       "status-thread-own", "%s", why);
	/* The leader's view is unchanged by the other thread. */
	result(!check_status("/proc/self/status", "sync", 0x000f, why, sizeof(why)),
	       "status-thread-leader", "%s", why);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", getpid(), getpid());
	result(!check_status(path, "sync", 0x000f, why, sizeof(why)),
	       "status-thread-leader-task", "%s", why);

	pthread_mutex_lock(&thr_lock);
	thr_state = 2;
	pthread_cond_broadcast(&thr_cond);
	pthread_mutex_unlock(&thr_lock);
	pthread_join(t, NULL);
	set_ctrl(0, 0);
}

/* --- kernel log report --------------------------------------------------- */

int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* Find a record containing needle in what was logged since kmsg_open(). */
int kmsg_find(int fd, const char *needle, char *found, size_t len)
{
	char rec[2048];
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0) {
			if (errno == EPIPE)	/* overwritten records */
				continue;
			return -1;	/* EAGAIN: no more */
		}
		rec[n] = 0;
		if (strstr(rec, needle)) {
			char *msg = strchr(rec, ';');

			snprintf(found, len, "%s", msg ? msg + 1 : rec);
			found[strcspn(found, "\n")] = 0;
			return 0;
		}
	}
}

static int write_sysctl(const char *val)
{
	int fd = open("/proc/sys/abi/mte_fault_report", O_WRONLY);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

static void test_report(void)
{
	char want[512], found[2048] = "", v[16] = "";
	struct fault_info f;
	const char *why;
	int fd, r;
	FILE *sf = fopen("/proc/sys/abi/mte_fault_report", "r");

	if (sf) {
		if (!fgets(v, sizeof(v), sf))
			v[0] = 0;
		fclose(sf);
	}
	result(!strcmp(v, "1\n"), "sysctl-default", "abi.mte_fault_report is '%s', want 1", v);

	/*
	 * sync: address, pointer tag 5, memory tag 3, the PC, the process, the
	 * tags around (the 4 granules before buf + 64 are on the page before,
	 * which may be anything) and the cgroup of /init, the root one.
	 */
	fd = kmsg_open();
	if (fd < 0)
		return result(0, "report-sync", "/dev/kmsg: %s", strerror(errno));
	if (fault_child("mterep", PR_MTE_TCF_SYNC, &f, &why)) {
		result(0, "report-sync", "%s", why);
	} else {
		snprintf(want, sizeof(want),
			 "mte: sync tag check fault in mterep[%d]: addr 0x%016lx pointer tag 0x5 memory tag 0x3 pc 0x%lx pid %d tags ####0000[3]00000000 cgroup /",
			 f.pid, f.expect_addr, f.pc, f.pid);
		r = kmsg_find(fd, "mte: sync tag check fault in mterep[", found, sizeof(found));
		if (!r)
			printf("# kmsg: %s\n", found);
		result(r == 0 && line_match(want, found), "report-sync",
		       "got '%s', want '%s'", r ? "(nothing)" : found, want);
	}
	close(fd);

	/* a process that does not handle SIGSEGV is reported as well */
	fd = kmsg_open();
	if (fault_child_h("mteunh", PR_MTE_TCF_SYNC, 0, &f, &why)) {
		result(0, "report-unhandled", "%s", why);
	} else {
		snprintf(want, sizeof(want), "mte: sync tag check fault in mteunh[%d]: addr ",
			 f.pid);
		r = kmsg_find(fd, want, found, sizeof(found));
		result(r == 0 && strstr(found, "pointer tag 0x5 memory tag 0x3 pc 0x"),
		       "report-unhandled", "got '%s'", r ? "(nothing)" : found);
	}
	close(fd);

	/* async */
	fd = kmsg_open();
	if (fault_child("mterepa", PR_MTE_TCF_ASYNC, &f, &why)) {
		result(0, "report-async", "%s", why);
	} else {
		snprintf(want, sizeof(want), "mte: async tag check fault in mterepa[%d]: pid %d cgroup /",
			 f.pid, f.pid);
		r = kmsg_find(fd, "mte: async tag check fault in mterepa[", found, sizeof(found));
		if (!r)
			printf("# kmsg: %s\n", found);
		result(r == 0 && !strcmp(found, want), "report-async",
		       "got '%s', want '%s'", r ? "(nothing)" : found, want);
	}
	close(fd);

	/* turned off: no line, but still the signal */
	if (write_sysctl("0"))
		return result(0, "report-off", "cannot write /proc/sys/abi/mte_fault_report");
	fd = kmsg_open();
	r = fault_child("mteoff", PR_MTE_TCF_SYNC, &f, &why);
	if (!r)
		r = fault_child("mteoffa", PR_MTE_TCF_ASYNC, &f, &why);
	if (r) {
		result(0, "report-off", "%s", why);
	} else {
		r = kmsg_find(fd, "mte: ", found, sizeof(found));
		result(r != 0, "report-off", "logged '%s' with abi.mte_fault_report=0", found);
	}
	close(fd);
	write_sysctl("1");

	/* and back on */
	fd = kmsg_open();
	if (fault_child("mteon", PR_MTE_TCF_SYNC, &f, &why)) {
		result(0, "report-on-again", "%s", why);
	} else {
		r = kmsg_find(fd, "mte: sync tag check fault in mteon[", found, sizeof(found));
		result(r == 0, "report-on-again", "no report after writing 1");
	}
	close(fd);
}

int expect_nomte(void)
{
	char cmdline[1024] = "";
	FILE *f = fopen("/proc/cmdline", "r");

	if (f) {
		if (!fgets(cmdline, sizeof(cmdline), f))
			cmdline[0] = 0;
		fclose(f);
	}
	return strstr(cmdline, "mtag.expect=nomte") != NULL;
}

int main(int argc, char **argv)
{
	unsigned long hwcap2;

	/* Re-executed by a report-mode case (mte-report.c). */
	if (argc > 1 && !strncmp(argv[1], "execdef-", 8))
		return execdef_exec_main(argc, argv);
	if (argc > 1 && !strncmp(argv[1], "upgrade-", 8))
		return upgrade_exec_main(argc, argv);
	if (argc > 1)
		return report_exec_main(argc, argv);

	setvbuf(stdout, NULL, _IOLBF, 0);
	mkdir("/proc", 0555);
	mkdir("/dev", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);

	printf("mte-init: kernel tests starting\n");
	hwcap2 = getauxval(AT_HWCAP2);
	if (expect_nomte()) {
		char v[64];

		/* Booted on a machine without MTE. */
		result(!(hwcap2 & HWCAP2_MTE), "no-hwcap2-mte", "AT_HWCAP2 0x%lx has HWCAP2_MTE",
		       hwcap2);
		result(status_field("/proc/self/status", "MTE_TCF", v, sizeof(v)) &&
		       status_field("/proc/self/status", "MTE_TagInclude", v, sizeof(v)) &&
		       status_field("/proc/self/status", "MTE_Report", v, sizeof(v)),
		       "status-no-mte-lines", "MTE lines in /proc/self/status without MTE");
		test_report_mode_nomte();
		test_exec_default_nomte();
		test_upgrade_nomte();
	} else {
		result(!!(hwcap2 & HWCAP2_MTE), "hwcap2-mte", "AT_HWCAP2 0x%lx has no HWCAP2_MTE",
		       hwcap2);
	}
	if ((hwcap2 & HWCAP2_MTE) && !expect_nomte()) {
		test_sync();
		test_async();
		test_status_self();
		test_status_child();
		test_status_thread();
		test_report();
		test_report_mode();
		test_fault_line();
		test_exec_default();
		test_rate_limit();
		test_upgrade();
		test_kselftests();
	}
	test_dmesg_restrict();
	printf("MTAG-KERNEL-TESTS-DONE failures=%d\n", failures);
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
