// SPDX-License-Identifier: GPL-2.0
/*
 * mte-faultline: the fields that patches/linux/0005 adds to the kernel's
 * tag check fault line, in the kernel suite's /init:
 *
 *   ... pc 0x%lx pid TGID tags HHHHHHHH[H]HHHHHHHH cgroup PATH[ SUFFIX]
 *   mte: async tag check fault in COMM[TID]: pid TGID cgroup PATH[ SUFFIX]
 *
 *  - "pid" is the process of a thread that is not its leader;
 *  - "tags" on a layout whose tags are all known: an overflow from the end
 *    of one page into the next, a fault at the start of a page whose
 *    previous page is unmapped and at the end of one whose next page is not
 *    tagged ('-');
 *  - "cgroup" is "/" (where /init is) without and with cgroup2 mounted,
 *    then that of a child moved into /mtag-test.slice/mtag-fault.service
 *    (sync, async and report mode, whose suffix stays last), paths of 510
 *    and more characters (cut to 508 + "...") and a name with control
 *    characters (printed as '?').
 *
 * The other cases (mte-init.c, mte-report.c) check pid, tags and cgroup in
 * their lines too.  Each case here runs in a child process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "mte-init.h"

#define PG 4096UL
#define CGROOT "/sys/fs/cgroup"
#define SERVICE "/mtag-test.slice/mtag-fault.service"
#define NOTE_USER " (report mode: tag checks off in this thread)"

/* --- faults that are caught ------------------------------------------------ */

static sigjmp_buf jb;
static volatile unsigned long seen_addr, seen_pc;
static volatile int seen_code;

static void on_segv(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	(void)sig;
	seen_addr = (unsigned long)si->si_addr;
	seen_pc = uc->uc_mcontext.pc;
	seen_code = si->si_code;
	siglongjmp(jb, 1);
}

static void catch_segv(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_EXPOSE_TAGBITS | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
}

/* A load through p in sync mode: 0 and the PC if it faulted there. */
static int sync_fault(volatile char *p, unsigned long *pc)
{
	if (sigsetjmp(jb, 1) == 0) {
		(void)*p;
		return -1;
	}
	*pc = seen_pc;
	return seen_code == SEGV_MTESERR && seen_addr == (unsigned long)p ? 0 : -1;
}

/* A store through p in async mode: 0 if the SIGSEGV came. */
static int async_fault(volatile char *p)
{
	if (sigsetjmp(jb, 1) == 0) {
		*p = 1;
		for (int i = 0; i < 1000; i++)
			syscall(SYS_getppid);
		return -1;
	}
	return seen_code == SEGV_MTEAERR ? 0 : -1;
}

static void set_tag(char *p, unsigned int tag)
{
	set_mem_tag(tag_ptr(p, tag));
}

/* Look for the line starting with needle; on success *found is printed. */
static void check_line(int fd, const char *name, const char *needle, const char *want)
{
	char found[2048] = "";
	int r = kmsg_find(fd, needle, found, sizeof(found));

	if (!r)
		printf("# kmsg: %s\n", found);
	result(r == 0 && !strcmp(found, want), name, "got '%s', want '%s'",
	       r ? "(nothing)" : found, want);
}

static void check_sync(int fd, const char *name, const char *comm, volatile char *p,
		       unsigned int mem_tag, unsigned long pc, const char *tags,
		       const char *cgroup, const char *note)
{
	char needle[128], want[1024];

	snprintf(needle, sizeof(needle), "mte: sync tag check fault in %s[%d]: addr 0x%016lx ",
		 comm, (int)gettid(), (unsigned long)p);
	snprintf(want, sizeof(want), "%spointer tag 0x%lx memory tag 0x%x pc 0x%lx pid %d "
		 "tags %s cgroup %s%s", needle, ((unsigned long)p >> 56) & 0xf, mem_tag, pc,
		 (int)getpid(), tags, cgroup, note);
	check_line(fd, name, needle, want);
}

static void check_async(int fd, const char *name, const char *comm, const char *cgroup,
			const char *note)
{
	char needle[128], want[1024];

	snprintf(needle, sizeof(needle), "mte: async tag check fault in %s[%d]: ", comm,
		 (int)gettid());
	snprintf(want, sizeof(want), "%spid %d cgroup %s%s", needle, (int)getpid(), cgroup, note);
	check_line(fd, name, needle, want);
}

/* --- tags around the fault ------------------------------------------------- */

/*
 * Five pages: a PROT_NONE guard (so that nothing is mapped into the hole),
 * a hole, P1 and P2 with PROT_MTE, P3 without (present).  Tags:
 *   P1 granule 0..8:     c d e f 1 2 3 4 6   (a fault at P1: the page before
 *                                            is not mapped)
 *   P1 granule 248..255: 5 (the pointer's tag: an object ending at P2)
 *   P2 granule 0..8:     3 4 5 6 7 8 9 a b  (the overflow faults at P2)
 *   P2 granule 247..255: 0                   (a fault at the last granule:
 *                                            the page after is not tagged)
 */
struct layout {
	char *hole, *p1, *p2, *p3;
};

static int make_layout(struct layout *l)
{
	static const unsigned char p1_tags[] = { 0xc, 0xd, 0xe, 0xf, 1, 2, 3, 4, 6 };
	char *m = mmap(NULL, 5 * PG, PROT_READ | PROT_WRITE | PROT_MTE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned int i;

	if (m == MAP_FAILED)
		return -1;
	l->hole = m + PG;
	l->p1 = m + 2 * PG;
	l->p2 = m + 3 * PG;
	l->p3 = m + 4 * PG;
	if (mprotect(m, PG, PROT_NONE) || munmap(l->hole, PG) || munmap(l->p3, PG) ||
	    mmap(l->p3, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) != l->p3)
		return -1;
	memset(l->p3, 0x77, PG);
	for (i = 0; i < sizeof(p1_tags); i++)
		set_tag(l->p1 + 16 * i, p1_tags[i]);
	for (i = 248; i < 256; i++)
		set_tag(l->p1 + 16 * i, 5);
	for (i = 0; i < 9; i++)
		set_tag(l->p2 + 16 * i, 3 + i);
	return 0;
}

static int hole_unmapped(const struct layout *l)
{
	unsigned char v;

	return mincore(l->hole, PG, &v) == -1 && errno == ENOMEM;
}

static void *tags_thread(void *arg)
{
	volatile char *p;
	struct layout l;
	unsigned long pc = 0;
	int fd;

	(void)arg;
	prctl(PR_SET_NAME, "mteline", 0, 0, 0);
	result(gettid() != getpid(), "line-thread", "the faulting thread is the leader");
	if (make_layout(&l) || set_ctrl(PR_MTE_TCF_SYNC, 0xfffe))
		return result(0, "line-tags", "set-up: %s", strerror(errno)), NULL;
	fd = kmsg_open();

	/* 128 bytes with tag 5 at the end of P1, read one byte past them. */
	p = (volatile char *)tag_ptr(l.p2 - 128, 5) + 128;
	if (sync_fault(p, &pc))
		result(0, "line-tags-overflow", "no tag check fault at %p", (void *)p);
	else
		check_sync(fd, "line-tags-overflow", "mteline", p, 3, pc, "55555555[3]456789ab",
			   "/", "");

	p = (volatile char *)tag_ptr(l.p1, 5);
	if (!hole_unmapped(&l))
		result(0, "line-tags-prev-unmapped", "the page before P1 is mapped");
	else if (sync_fault(p, &pc))
		result(0, "line-tags-prev-unmapped", "no tag check fault at %p", (void *)p);
	else
		check_sync(fd, "line-tags-prev-unmapped", "mteline", p, 0xc, pc,
			   "--------[c]def12346", "/", "");

	p = (volatile char *)tag_ptr(l.p2 + PG - 16, 5);
	if (sync_fault(p, &pc))
		result(0, "line-tags-next-untagged", "no tag check fault at %p", (void *)p);
	else
		check_sync(fd, "line-tags-next-untagged", "mteline", p, 0, pc,
			   "00000000[0]--------", "/", "");

	if (set_ctrl(PR_MTE_TCF_ASYNC, 0xfffe) ||
	    async_fault((volatile char *)tag_ptr(l.p2 + 320, 5)))
		result(0, "line-async", "no asynchronous tag check fault");
	else
		check_async(fd, "line-async", "mteline", "/", "");
	close(fd);
	return NULL;
}

static void case_tags(void)
{
	pthread_t th;

	catch_segv();
	if (pthread_create(&th, NULL, tags_thread, NULL))
		return result(0, "line-tags", "pthread_create");
	pthread_join(th, NULL);
}

/* --- cgroup ------------------------------------------------------------------ */

/* mkdir -p CGROOT path */
static int make_cgroup(const char *path)
{
	char dir[1024];
	size_t i;

	snprintf(dir, sizeof(dir), "%s%s", CGROOT, path);
	for (i = strlen(CGROOT) + 1; ; i++) {
		if (dir[i] == '/' || !dir[i]) {
			char c = dir[i];

			dir[i] = 0;
			if (mkdir(dir, 0755) && errno != EEXIST)
				return -1;
			if (!c)
				return 0;
			dir[i] = c;
		}
	}
}

/* Move this process into cgroup path and check /proc/self/cgroup. */
static int enter_cgroup(const char *path)
{
	char file[1100], line[1100], want[1100];
	FILE *f;
	int fd, ok;

	snprintf(file, sizeof(file), "%s%s/cgroup.procs", CGROOT, path);
	fd = open(file, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, "0", 1) == 1;
	close(fd);
	f = fopen("/proc/self/cgroup", "r");
	if (!ok || !f || !fgets(line, sizeof(line), f))
		ok = 0;
	if (f)
		fclose(f);
	snprintf(want, sizeof(want), "0::%s\n", path);
	return ok && !strcmp(line, want) ? 0 : -1;
}

/* A page with tag 3 on granule 8 (the others 0) and a pointer to it with 5. */
static __attribute__((noinline)) volatile char *simple_target(void)
{
	char *buf = map_mte();

	if (!buf)
		return NULL;
	set_tag(buf + 128, 3);
	return (volatile char *)tag_ptr(buf + 128, 5);
}

static void *service_thread(void *arg)
{
	volatile char *p = simple_target();
	unsigned long pc = 0;
	int fd;

	(void)arg;
	prctl(PR_SET_NAME, "mtecg", 0, 0, 0);
	if (!p || set_ctrl(PR_MTE_TCF_SYNC, 0xfffe))
		return result(0, "line-cgroup", "set-up: %s", strerror(errno)), NULL;
	fd = kmsg_open();
	if (sync_fault(p, &pc))
		result(0, "line-cgroup-sync", "no tag check fault");
	else
		check_sync(fd, "line-cgroup-sync", "mtecg", p, 3, pc, "00000000[3]00000000",
			   SERVICE, "");
	if (set_ctrl(PR_MTE_TCF_ASYNC, 0xfffe) || async_fault(p))
		result(0, "line-cgroup-async", "no asynchronous tag check fault");
	else
		check_async(fd, "line-cgroup-async", "mtecg", SERVICE, "");

	/* Report mode: the suffix comes after the cgroup. */
	if (set_ctrl(PR_MTE_TCF_SYNC, 0xfffe) ||
	    prctl(PR_SET_MTE_REPORT, PR_MTE_REPORT_ON, 0, 0, 0))
		return result(0, "line-cgroup-report", "set-up: %s", strerror(errno)), NULL;
	if (sigsetjmp(jb, 1) == 0) {
		char needle[128], want[1024], found[2048] = "";
		int r;

		(void)*p;	/* logged, completes */
		snprintf(needle, sizeof(needle), "mte: sync tag check fault in mtecg[%d]: ",
			 (int)gettid());
		snprintf(want, sizeof(want), "%saddr 0x%016lx pointer tag 0x5 memory tag 0x3 pc 0x* "
			 "pid %d tags 00000000[3]00000000 cgroup " SERVICE NOTE_USER, needle,
			 (unsigned long)p, (int)getpid());
		r = kmsg_find(fd, needle, found, sizeof(found));
		if (!r)
			printf("# kmsg: %s\n", found);
		result(r == 0 && line_match(want, found), "line-cgroup-report",
		       "got '%s', want '%s'", r ? "(nothing)" : found, want);
	} else {
		result(0, "line-cgroup-report", "SIGSEGV in report mode");
	}
	close(fd);
	return NULL;
}

static void case_service(void)
{
	pthread_t th;

	catch_segv();
	if (make_cgroup(SERVICE) || enter_cgroup(SERVICE))
		return result(0, "line-cgroup", "into %s: %s", SERVICE, strerror(errno));
	if (pthread_create(&th, NULL, service_thread, NULL))
		return result(0, "line-cgroup", "pthread_create");
	pthread_join(th, NULL);
}

/* A sync fault in cgroup path, whose line must show the cgroup as shown. */
static void cgroup_line(const char *name, const char *path, const char *shown)
{
	volatile char *p;
	unsigned long pc = 0;
	int fd;

	catch_segv();
	prctl(PR_SET_NAME, "mtecgpath", 0, 0, 0);
	if (make_cgroup(path) || enter_cgroup(path))
		return result(0, name, "into %s: %s", path, strerror(errno));
	p = simple_target();
	if (!p || set_ctrl(PR_MTE_TCF_SYNC, 0xfffe))
		return result(0, name, "set-up: %s", strerror(errno));
	fd = kmsg_open();
	if (sync_fault(p, &pc))
		result(0, name, "no tag check fault");
	else
		check_sync(fd, name, "mtecgpath", p, 3, pc, "00000000[3]00000000", shown, "");
	close(fd);
}

/* "/mtag-test.slice/" and then components of these lengths, letter c on. */
static void long_path(char *buf, size_t len, char c, int n1, int n2, int n3)
{
	int n[3] = { n1, n2, n3 }, k, o;

	o = snprintf(buf, len, "/mtag-test.slice");
	for (k = 0; k < 3 && n[k]; k++, c++) {
		buf[o++] = '/';
		memset(buf + o, c, n[k]);
		o += n[k];
	}
	buf[o] = 0;
}

/* The kernel shows at most 510 characters: 508 and "..." for longer ones. */
static void cut(char *shown, const char *path)
{
	if (strlen(path) <= 510)
		strcpy(shown, path);
	else
		snprintf(shown, 512, "%.508s...", path);
}

static void case_path_510(void)
{
	char path[700], shown[700];

	long_path(path, sizeof(path), 'd', 246, 246, 0);
	cut(shown, path);
	result(strlen(path) == 510 && !strcmp(shown, path), "line-cgroup-510-setup",
	       "path of %zu", strlen(path));
	cgroup_line("line-cgroup-510-whole", path, shown);
}

static void case_path_511(void)
{
	char path[700], shown[700];

	long_path(path, sizeof(path), 'f', 246, 247, 0);
	cut(shown, path);
	result(strlen(path) == 511 && strlen(shown) == 511, "line-cgroup-511-setup",
	       "path of %zu", strlen(path));
	cgroup_line("line-cgroup-511-cut", path, shown);
}

static void case_path_deep(void)
{
	char path[700], shown[700];

	long_path(path, sizeof(path), 'a', 200, 200, 200);
	cut(shown, path);
	cgroup_line("line-cgroup-619-cut", path, shown);
}

static void case_root(void)
{
	cgroup_line("line-cgroup-root", "/", "/");
}

static void case_path_control(void)
{
	cgroup_line("line-cgroup-control-chars", "/mtag-test.slice/ctl\tx\x1b\x7fy.service",
		    "/mtag-test.slice/ctl?x??y.service");
}

/* --- driver ----------------------------------------------------------------- */

void test_fault_line(void)
{
	/* The fault lines are rate limited (10 per 5 s). */
	sleep(6);
	run_case("line-tags", case_tags);

	mkdir("/sys", 0755);
	mkdir("/sys/fs", 0755);
	mkdir(CGROOT, 0755);
	if (mount("cgroup2", CGROOT, "cgroup2", 0, NULL))
		return result(0, "line-cgroup2-mount", "mount cgroup2: %s", strerror(errno));
	run_case("line-cgroup-root", case_root);
	run_case("line-cgroup-service", case_service);
	sleep(6);
	run_case("line-cgroup-510", case_path_510);
	run_case("line-cgroup-511", case_path_511);
	run_case("line-cgroup-619", case_path_deep);
	run_case("line-cgroup-control", case_path_control);
}
