/* test-verdict.c -- the verdicts of "mtagctl status" (mtagctl-verdict.h),
 * each from the state and facts that lead to it, and their order: the
 * first reason that applies wins. */
#include <string.h>

#include "mtagctl-verdict.h"
#include "unit.h"

/* A running service under "sync" from p.conf:3, wrapped, started by the
 * launcher, its heap tagged: protected.  The tests change one thing. */
static void base(struct svc_state *s, struct svc_facts *f)
{
	memset(s, 0, sizeof(*s));
	strcpy(s->unit, "nginx.service");
	strcpy(s->active, "active");
	s->has_policy = s->named = true;
	s->mode = MTAG_MODE_SYNC;
	s->heap = true;
	strcpy(s->source, "p.conf:3");
	s->procs = 1;
	s->threads = 2;
	s->running_known = true;
	strcpy(s->running, "sync");
	s->malloc_kb = s->mt_malloc_kb = 100;
	*f = (struct svc_facts){
		.hw = true, .has_unit = true, .wrapped = true, .started = true,
		.launcher_entry = true, .le_mode = "sync", .le_heap = "on", .le_source = "p.conf:3",
		.odd_comm = "", .odd_tcf = "", .odd_execdef = "", .jemalloc_path = "",
	};
}

static void test_verdict_protected(void)
{
	struct svc_state s;
	struct svc_facts f;

	base(&s, &f);
	svc_verdict(&f, &s);
	CHECK(s.verdict == V_PROTECTED && s.as_asked);
	CHECK_STR(s.reason, "sync in 1 process, 2 threads");
	s.origin_kernel = 1;
	s.origin_env = 0;
	f.jemalloc = JEMALLOC_MTAG;
	svc_verdict(&f, &s);
	CHECK_STR(s.reason, "jemalloc +mtag, sync in 1 process, 2 threads; mode from the kernel's exec default in 1 (no tunable reached them), from the environment in 0");
}

static void test_verdict_no_mte_first(void)
{
	struct svc_state s;
	struct svc_facts f;

	base(&s, &f);
	f.hw = false;
	s.has_policy = false; /* no MTE is said before no policy */
	svc_verdict(&f, &s);
	CHECK(s.verdict == V_NOT_PROTECTED);
	CHECK_STR(s.reason, "no MTE in this CPU or kernel");
	CHECK(s.as_asked); /* no policy asked for MTE */
	base(&s, &f);
	f.hw = false;
	svc_verdict(&f, &s);
	CHECK(!s.as_asked);
}

static void test_verdict_policy(void)
{
	struct svc_state s;
	struct svc_facts f;

	base(&s, &f);
	s.has_policy = false;
	svc_verdict(&f, &s);
	CHECK_STR(s.reason, "no policy entry");
	base(&s, &f);
	s.named = false;
	f.launcher_entry = false;
	svc_verdict(&f, &s);
	CHECK_STR(s.reason, "no policy entry names it (the default entry, p.conf:3, applies to services that run mtag-launcher)");
	base(&s, &f);
	s.mode = MTAG_MODE_OFF;
	svc_verdict(&f, &s);
	CHECK(s.verdict == V_NOT_PROTECTED && s.as_asked);
	CHECK_STR(s.reason, "the policy says off (p.conf:3)");
}

static void test_verdict_not_running(void)
{
	struct svc_state s;
	struct svc_facts f;

	base(&s, &f);
	s.procs = 0;
	svc_verdict(&f, &s);
	CHECK(s.verdict == V_INACTIVE && s.as_asked);
	CHECK_STR(s.reason, "not running; sync from p.conf:3 at its next start");
	strcpy(s.active, "failed");
	svc_verdict(&f, &s);
	CHECK(s.verdict == V_NOT_PROTECTED && !s.as_asked);
	CHECK_STR(s.reason, "the service failed and is not running (systemctl status nginx.service; journalctl -u nginx.service)");
}

static void test_verdict_restart_needed(void)
{
	struct svc_state s;
	struct svc_facts f;

	base(&s, &f);
	f.wrapped = false;
	svc_verdict(&f, &s);
	CHECK_STR(s.reason, "daemon-reload and restart needed: the policy names it (p.conf:3), but systemd has not loaded mtag-generator's drop-in");
	f.by_pid = true; /* -p PID: no unit state to judge */
	svc_verdict(&f, &s);
	CHECK(s.verdict == V_PROTECTED);
	base(&s, &f);
	f.launcher_entry = false;
	svc_verdict(&f, &s);
	CHECK_STR(s.reason, "restart needed: started without mtag-launcher (no launcher entry in the journal for this start); policy sync (p.conf:3)");
	base(&s, &f);
	f.dropin_stale = true;
	f.dropin_runs = "async";
	f.policy_now = "sync";
	svc_verdict(&f, &s);
	CHECK_STR(s.reason, "daemon-reload and restart needed: the policy changed since the last daemon-reload (the unit runs \"async\"; the policy now says \"sync\", p.conf:3)");
	base(&s, &f);
	f.le_heap = "off";
	svc_verdict(&f, &s);
	CHECK_STR(s.reason, "restart needed: the policy changed since the start (running sync heap=off from p.conf:3; the policy now says sync heap=on, p.conf:3)");
	base(&s, &f);
	f.unwrapped_by = "zzz-local.conf";
	svc_verdict(&f, &s);
	CHECK_STR(s.reason, "unwrapped: zzz-local.conf, read after mtag-generator's zz-mtag-launcher.conf, sets ExecStart=, so the service does not run mtag-launcher (rename it to sort before zz-mtag-launcher.conf)");
}

static void test_verdict_processes(void)
{
	struct svc_state s;
	struct svc_facts f;

	base(&s, &f);
	s.running_known = false;
	svc_verdict(&f, &s);
	CHECK_STR(s.reason, "cannot tell: this kernel does not show MTE_TCF in /proc (not the mtag kernel)");
	base(&s, &f);
	f.odd_pid = 42;
	f.odd_comm = "worker";
	f.odd_tcf = "none";
	svc_verdict(&f, &s);
	CHECK_STR(s.reason, "mode differs between processes: 42 (worker) runs none, the policy says sync (p.conf:3)");
	f.odd_libc = true;
	f.odd_execdef = "sync heap";
	svc_verdict(&f, &s);
	CHECK_STR(s.reason, "this libc does not read the kernel's default: 42 (worker) runs none; the kernel's exec default says sync heap but no tunable reached it (a stock glibc, a static program or another libc; the mtag glibc applies it)");
}

/* Issue 36: a Debian update won over mtag's build.  The verdict names
 * the package, only where it is the reason; mtag's builds (or nothing
 * known) leave every text as it was. */
static void test_verdict_debian_builds(void)
{
	struct svc_state s;
	struct svc_facts f;
	struct pkg_set mtag = {
		.libc6 = { PKG_MTAG, "2.36-9+deb12u14+mtag1" },
		.jemalloc = { PKG_MTAG, "5.3.0-1+deb12u0+mtag1" },
		.kernel = { PKG_MTAG, "6.1.0-28-mtag" },
	};
	struct pkg_set deb = {
		.libc6 = { PKG_DEBIAN, "2.36-9+deb12u15" },
		.jemalloc = { PKG_DEBIAN, "5.3.0-1+deb12u1" },
		.kernel = { PKG_DEBIAN, "6.1.0-29-arm64" },
	};

	/* libc6. */
	base(&s, &f);
	strcpy(s.unit, "postgresql@15-main.service");
	f.odd_pid = 42;
	f.odd_comm = "postgres";
	f.odd_tcf = "none";
	f.odd_libc = true;
	f.odd_execdef = "sync heap";
	f.pkgs = &deb;
	svc_verdict(&f, &s);
	CHECK(s.verdict == V_NOT_PROTECTED && !s.as_asked);
	CHECK_STR(s.reason, "libc6 2.36-9+deb12u15 is Debian's build: the kernel's exec default is not read by postgresql@15-main's processes");
	CHECK_STR(s.lost, "libc6");
	CHECK_STR(s.lost_version, "2.36-9+deb12u15");
	f.pkgs = &mtag;
	svc_verdict(&f, &s);
	CHECK_STR(s.reason, "this libc does not read the kernel's default: 42 (postgres) runs none; the kernel's exec default says sync heap but no tunable reached it (a stock glibc, a static program or another libc; the mtag glibc applies it)");
	CHECK_STR(s.lost, "");
	/* Debian's libc6, but every process runs as asked (a tunable
	 * reached them): nothing lost. */
	base(&s, &f);
	f.pkgs = &deb;
	svc_verdict(&f, &s);
	CHECK(s.verdict == V_PROTECTED);
	CHECK_STR(s.lost, "");

	/* libjemalloc2. */
	base(&s, &f);
	strcpy(s.unit, "redis-server.service");
	f.jemalloc = JEMALLOC_STOCK;
	f.jemalloc_path = "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2";
	f.pkgs = &deb;
	svc_verdict(&f, &s);
	CHECK_STR(s.reason, "libjemalloc2 5.3.0-1+deb12u1 is Debian's build: redis-server's heap is not tagged (/usr/lib/aarch64-linux-gnu/libjemalloc.so.2)");
	CHECK_STR(s.lost, "libjemalloc2");
	f.pkgs = &mtag;
	svc_verdict(&f, &s);
	CHECK_STR(s.reason, "own allocator: jemalloc, install libjemalloc2 +mtag1 (/usr/lib/aarch64-linux-gnu/libjemalloc.so.2 does not tag its heap)");
	CHECK_STR(s.lost, "");

	/* The kernel. */
	base(&s, &f);
	s.running_known = false;
	f.pkgs = &deb;
	svc_verdict(&f, &s);
	CHECK_STR(s.reason, "kernel 6.1.0-29-arm64 is not mtag's build: the kernel's exec default and MTE_TCF in /proc are not there for nginx's processes (boot mtag's linux-image)");
	CHECK_STR(s.lost, "kernel");
	f.pkgs = &mtag;
	svc_verdict(&f, &s);
	CHECK_STR(s.reason, "cannot tell: this kernel does not show MTE_TCF in /proc (not the mtag kernel)");
	f.pkgs = NULL;
	svc_verdict(&f, &s);
	CHECK_STR(s.reason, "cannot tell: this kernel does not show MTE_TCF in /proc (not the mtag kernel)");
}

static void test_verdict_heap_and_report(void)
{
	struct svc_state s;
	struct svc_facts f;

	base(&s, &f);
	f.jemalloc = JEMALLOC_STOCK;
	f.jemalloc_path = "/usr/lib/libjemalloc.so.2";
	svc_verdict(&f, &s);
	CHECK_STR(s.reason, "own allocator: jemalloc, install libjemalloc2 +mtag1 (/usr/lib/libjemalloc.so.2 does not tag its heap)");
	s.heap = false; /* heap=off: the allocator does not matter */
	f.le_heap = "off";
	svc_verdict(&f, &s);
	CHECK(s.verdict == V_PROTECTED);
	base(&s, &f);
	s.mt_malloc_kb = 0;
	svc_verdict(&f, &s);
	CHECK(s.verdict == V_NOT_PROTECTED && !s.as_asked);
	CHECK(strncmp(s.reason, "heap not tagged: 0 of 100 kB", 28) == 0);
	base(&s, &f);
	s.mode = MTAG_MODE_REPORT;
	f.le_mode = "report";
	svc_verdict(&f, &s);
	CHECK_STR(s.reason, "report mode is not on in 1 of 1 processes: they stop at a fault");
	s.report_on_procs = 1;
	svc_verdict(&f, &s);
	CHECK(s.verdict == V_REPORT_ONLY && s.as_asked);
	CHECK_STR(s.reason, "faults are logged, not stopped");
	s.threads_suspended = 2;
	svc_verdict(&f, &s);
	CHECK_STR(s.reason, "faults are logged, not stopped; checking suspended by a reported fault in 2 threads");
}

/* Issue 32: an include mask with fewer than two non-zero tags (an exec
 * default or prctl without a mask: IRG gives only tag 0) is not
 * protection, whatever the mode says. */
static void test_verdict_tag_mask(void)
{
	struct svc_state s;
	struct svc_facts f;

	base(&s, &f);
	f.narrow_pid = 412;
	f.narrow_comm = "nginx";
	f.narrow_mask = "0x0000";
	f.narrow_tags = 0;
	svc_verdict(&f, &s);
	CHECK(s.verdict == V_NOT_PROTECTED && !s.as_asked);
	CHECK_STR(s.reason, "too few tags: 412 (nginx) may use 0 non-zero tags (MTE_TagInclude 0x0000): with fewer than two, neighbouring allocations share their tag and faults go unseen (an exec default or prctl without a tag mask)");
	f.narrow_mask = "0x0003";
	f.narrow_tags = 1;
	svc_verdict(&f, &s);
	CHECK(s.verdict == V_NOT_PROTECTED);
	CHECK(strstr(s.reason, "may use 1 non-zero tag (MTE_TagInclude 0x0003)") != NULL);
	/* Report mode too: nothing would be reported. */
	s.mode = MTAG_MODE_REPORT;
	f.le_mode = "report";
	s.report_on_procs = 1;
	svc_verdict(&f, &s);
	CHECK(s.verdict == V_NOT_PROTECTED && strncmp(s.reason, "too few tags", 12) == 0);
}

/* Issue 32: under report mode, a secure exec (set-user-ID, set-group-ID,
 * file capabilities) drops report mode: which processes, and why. */
static void test_verdict_report_secure_exec(void)
{
	struct svc_state s;
	struct svc_facts f;

	base(&s, &f);
	s.mode = MTAG_MODE_REPORT;
	f.le_mode = "report";
	s.procs = 3;
	s.report_on_procs = 2;
	/* The kernel of issue 32: report mode and the exec default dropped,
	 * the helper runs without tag checking. */
	f.secure_procs = 1;
	f.secure_report_off = 1;
	f.secure_desc = "77 (postdrop, /usr/sbin/postdrop: set-group-ID) runs none without report mode";
	svc_verdict(&f, &s);
	CHECK(s.verdict == V_REPORT_ONLY && s.as_asked);
	CHECK_STR(s.reason, "faults are logged, not stopped; 1 process runs without tag checking after a secure exec (the kernel drops report mode and the exec default for set-user-ID, set-group-ID and file-capability programs): 77 (postdrop, /usr/sbin/postdrop: set-group-ID) runs none without report mode");
	/* A kernel that keeps the exec default: the helper checks in sync
	 * without report mode, and its first fault stops it. */
	f.secure_checking = 1;
	f.secure_desc = "77 (postdrop, /usr/sbin/postdrop: set-group-ID) runs sync without report mode";
	svc_verdict(&f, &s);
	CHECK(s.verdict == V_NOT_PROTECTED && !s.as_asked);
	CHECK_STR(s.reason, "report mode is off after a secure exec in 1 process, which stops at the first fault: 77 (postdrop, /usr/sbin/postdrop: set-group-ID) runs sync without report mode; the kernel drops report mode for set-user-ID, set-group-ID and file-capability programs (mtag-policy.conf(5), REPORT MODE)");
	/* Another process without report mode, not a secure exec: said as
	 * before. */
	f.secure_checking = 0;
	s.report_on_procs = 1;
	svc_verdict(&f, &s);
	CHECK_STR(s.reason, "report mode is not on in 1 of 3 processes: they stop at a fault");
}

void run_verdict_tests(void)
{
	RUN(test_verdict_tag_mask);
	RUN(test_verdict_report_secure_exec);
	RUN(test_verdict_protected);
	RUN(test_verdict_no_mte_first);
	RUN(test_verdict_policy);
	RUN(test_verdict_not_running);
	RUN(test_verdict_restart_needed);
	RUN(test_verdict_processes);
	RUN(test_verdict_heap_and_report);
	RUN(test_verdict_debian_builds);
}
