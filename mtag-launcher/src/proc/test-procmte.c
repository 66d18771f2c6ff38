/* test-procmte.c -- mte_read_proc() against fake /proc trees. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procmte.h"
#include "unit.h"

static void test_proc(void)
{
	char dir[600], path[700];
	struct proc_mte m;

	snprintf(dir, sizeof(dir), "%s/proc", tmpdir());
	snprintf(path, sizeof(path), "%s/42/status", dir);
	write_file(path, "Name:\tnginx\nUmask:\t0022\nMTE_TCF:\tsync,async\nMTE_TagInclude:\t0xfffe\n");
	snprintf(path, sizeof(path), "%s/42/smaps", dir);
	write_file(path,
		   "aaaa-bbbb rw-p 00000000 00:00 0 [heap]\nSize: 4 kB\nVmFlags: rd wr mr mw me ac mt\n"
		   "cccc-dddd r-xp 00000000 08:01 1 /usr/sbin/nginx\nVmFlags: rd ex mr mw me\n"
		   "eeee-ffff rw-p 00000000 00:00 0\nVmFlags: rd wr mt mr mw me ac\n"
		   "1111-2222 rw-p 00000000 00:00 0\nVmFlags: rd wr mtx\n");
	CHECK(mte_read_proc(dir, 42, &m) == 0);
	CHECK_STR(m.comm, "nginx");
	CHECK(m.maps == 4 && m.mt_maps == 2);
	CHECK(m.has_tcf_line);
	CHECK_STR(m.tcf, "sync,async");
	CHECK(m.has_mask_line);
	CHECK_STR(m.tag_include, "0xfffe");

	snprintf(path, sizeof(path), "%s/43/status", dir);
	write_file(path, "Name:\tstock\n");
	snprintf(path, sizeof(path), "%s/43/smaps", dir);
	write_file(path, "");
	CHECK(mte_read_proc(dir, 43, &m) == 0);
	CHECK(!m.has_tcf_line && m.maps == 0);
	CHECK(mte_read_proc(dir, 44, &m) < 0);
}

/* Report mode: the process's lines and its threads' checking state. */
static void test_proc_report(void)
{
	char dir[600], path[700];
	struct proc_mte m;

	snprintf(dir, sizeof(dir), "%s/proc", tmpdir());
	snprintf(path, sizeof(path), "%s/50/status", dir);
	write_file(path, "Name:\tnginx\nMTE_TCF:\tsync\nMTE_Report:\ton\n"
		   "MTE_ReportReenable:\t300000000\nMTE_ReportChecking:\tactive\n");
	snprintf(path, sizeof(path), "%s/50/smaps", dir);
	write_file(path, "");
	for (int tid = 50; tid <= 52; tid++) {
		snprintf(path, sizeof(path), "%s/50/task/%d/status", dir, tid);
		write_file(path, tid == 51 ? "Name:\tw\nMTE_Report:\ton\nMTE_ReportChecking:\tsuspended\n"
					   : "Name:\tw\nMTE_Report:\ton\nMTE_ReportChecking:\tactive\n");
	}
	CHECK(mte_read_proc(dir, 50, &m) == 0);
	CHECK(m.has_report_line && m.report_on);
	CHECK(m.report_reenable_ns == 300000000ull);
	CHECK(m.threads == 3 && m.threads_suspended == 1 && m.suspended[0] == 51);

	/* Off, and a kernel without the lines. */
	snprintf(path, sizeof(path), "%s/60/status", dir);
	write_file(path, "Name:\tx\nMTE_TCF:\tnone\nMTE_Report:\toff\nMTE_ReportReenable:\t0\n");
	snprintf(path, sizeof(path), "%s/60/smaps", dir);
	write_file(path, "");
	snprintf(path, sizeof(path), "%s/60/task/60/status", dir);
	write_file(path, "Name:\tx\n");
	CHECK(mte_read_proc(dir, 60, &m) == 0);
	CHECK(m.has_report_line && !m.report_on && m.report_reenable_ns == 0);
	CHECK(m.threads == 1 && m.threads_suspended == 0);
	CHECK(mte_read_proc(dir, 42, &m) == 0);
	CHECK(!m.has_report_line && !m.report_on && m.threads == 0);
}

/* The timed upgrade (patch 0008): "sync until NS" while it lasts, "none"
 * after it; MTE_TCF keeps the mode asked for. */
static void test_proc_upgrade(void)
{
	char dir[600], path[700];
	struct proc_mte m;

	snprintf(dir, sizeof(dir), "%s/proc", tmpdir());
	snprintf(path, sizeof(path), "%s/70/status", dir);
	write_file(path, "Name:\tmemcached\nMTE_TCF:\tasync\nMTE_ExecDefault:\tasync heap\n"
		   "MTE_Upgrade:\tsync until 4012000000\n");
	snprintf(path, sizeof(path), "%s/70/smaps", dir);
	write_file(path, "");
	CHECK(mte_read_proc(dir, 70, &m) == 0);
	CHECK_STR(m.tcf, "async");
	CHECK(m.upgrade_until_ns == 4012000000ull);
	snprintf(path, sizeof(path), "%s/71/status", dir);
	write_file(path, "Name:\tmemcached\nMTE_TCF:\tasync\nMTE_Upgrade:\tnone\n");
	snprintf(path, sizeof(path), "%s/71/smaps", dir);
	write_file(path, "");
	CHECK(mte_read_proc(dir, 71, &m) == 0);
	CHECK(m.upgrade_until_ns == 0);
}

/* One thread's lines, and the kernel's words in the launcher's. */
static void test_thread(void)
{
	char dir[600], path[700];
	struct thread_mte t;

	snprintf(dir, sizeof(dir), "%s/proc", tmpdir());
	snprintf(path, sizeof(path), "%s/70/task/71/status", dir);
	write_file(path, "Name:\tw\nMTE_TCF:\tsync,async\nMTE_Report:\ton\n"
		   "MTE_ReportChecking:\tsuspended\n");
	CHECK(proc_thread_mte(dir, 70, 71, &t) == 0);
	CHECK(t.has_tcf && t.has_report && t.report_on && t.suspended);
	CHECK_STR(t.tcf, "sync,async");
	CHECK(proc_thread_mte(dir, 70, 72, &t) < 0);

	CHECK_STR(tcf_mode_word("none", false), "off");
	CHECK_STR(tcf_mode_word("sync", false), "sync");
	CHECK_STR(tcf_mode_word("async", false), "async");
	CHECK_STR(tcf_mode_word("sync,async", false), "asymm");
	CHECK_STR(tcf_mode_word("async,sync", false), "asymm");
	CHECK_STR(tcf_mode_word("sync", true), "report");
	CHECK(tcf_mode_word("bogus", true) == NULL);
}

static void write_bin(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "we");

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(fwrite(data, 1, len, f) == len);
	fclose(f);
}

/* One process PID with status line TCF, exec default EXECDEF (NULL: no
 * line), environment ENV (NUL-separated, LEN bytes; NULL: unreadable) and
 * AT_SECURE SECURE. */
static void fake_proc(const char *dir, int pid, const char *tcf, const char *execdef,
		      const char *env, size_t len, int secure)
{
	char path[700], status[256];
	unsigned long auxv[] = { 6, 4096, 23, (unsigned long)secure, 0, 0 };

	snprintf(status, sizeof(status), "Name:\tp%d\nMTE_TCF:\t%s\n%s%s%s", pid, tcf,
		 execdef ? "MTE_ExecDefault:\t" : "", execdef ? execdef : "", execdef ? "\n" : "");
	snprintf(path, sizeof(path), "%s/%d/status", dir, pid);
	write_file(path, status);
	snprintf(path, sizeof(path), "%s/%d/smaps", dir, pid);
	write_file(path, "");
	snprintf(path, sizeof(path), "%s/%d/auxv", dir, pid);
	write_bin(path, auxv, sizeof(auxv));
	if (env) {
		snprintf(path, sizeof(path), "%s/%d/environ", dir, pid);
		write_bin(path, env, len);
	}
}

#define ENV(s) s, sizeof(s) - 1

/* Where the mode came from: a tunable in the environment, the kernel's
 * exec default (no tunable, or AT_SECURE), or a libc that ignores it. */
static void test_origin(void)
{
	char dir[600];
	struct proc_mte m;

	snprintf(dir, sizeof(dir), "%s/proc-origin", tmpdir());
	fake_proc(dir, 60, "sync", "sync heap",
		  ENV("PATH=/bin\0GLIBC_TUNABLES=glibc.malloc.check=1:glibc.mem.tagging=3\0"), 0);
	CHECK(mte_read_proc(dir, 60, &m) == 0);
	CHECK(m.has_execdef_line && m.env_tunable == 1 && !m.secure);
	CHECK_STR(m.execdef, "sync heap");
	CHECK(proc_mode_origin(&m) == MODE_ORIGIN_ENV);
	CHECK_STR(mode_origin_name(proc_mode_origin(&m)), "environment");

	/* pg_ctlcluster cleaned the environment: the kernel's default. */
	fake_proc(dir, 61, "sync", "sync heap", ENV("PGDATA=/var/lib/pg\0LANG=C\0"), 0);
	CHECK(mte_read_proc(dir, 61, &m) == 0);
	CHECK(m.env_tunable == 0);
	CHECK(proc_mode_origin(&m) == MODE_ORIGIN_KERNEL);
	CHECK(!proc_ignores_execdef(&m));

	/* _MTAG_ENABLE counts; a look-alike tunable does not. */
	fake_proc(dir, 62, "sync", "sync heap", ENV("_MTAG_ENABLE=3\0"), 0);
	CHECK(mte_read_proc(dir, 62, &m) == 0 && m.env_tunable == 1);
	fake_proc(dir, 63, "sync", "sync heap", ENV("GLIBC_TUNABLES=glibc.mem.taggingx=3\0"), 0);
	CHECK(mte_read_proc(dir, 63, &m) == 0 && m.env_tunable == 0);

	/* AT_SECURE (squid's worker): the tunable is ignored, so the kernel. */
	fake_proc(dir, 64, "sync", "sync heap", ENV("_MTAG_ENABLE=3\0"), 1);
	CHECK(mte_read_proc(dir, 64, &m) == 0 && m.secure);
	CHECK(proc_mode_origin(&m) == MODE_ORIGIN_KERNEL);

	/* A stock libc: the default says sync, nothing reached it, it runs
	 * unchecked. */
	fake_proc(dir, 65, "none", "sync heap", ENV("LANG=C\0"), 0);
	CHECK(mte_read_proc(dir, 65, &m) == 0);
	CHECK(proc_mode_origin(&m) == MODE_ORIGIN_NONE);
	CHECK(proc_ignores_execdef(&m));
	/* ... but not when a tunable (=0) turned it off on purpose, nor
	 * without a default, nor on a kernel without the line. */
	fake_proc(dir, 66, "none", "sync heap", ENV("GLIBC_TUNABLES=glibc.mem.tagging=0\0"), 0);
	CHECK(mte_read_proc(dir, 66, &m) == 0 && !proc_ignores_execdef(&m));
	fake_proc(dir, 67, "none", "none", ENV("LANG=C\0"), 0);
	CHECK(mte_read_proc(dir, 67, &m) == 0 && !proc_ignores_execdef(&m));
	fake_proc(dir, 68, "none", NULL, ENV("LANG=C\0"), 0);
	CHECK(mte_read_proc(dir, 68, &m) == 0 && !m.has_execdef_line && !proc_ignores_execdef(&m));
	/* Unreadable environment: unknown, never a guess. */
	fake_proc(dir, 69, "sync", "sync heap", NULL, 0, 0);
	CHECK(mte_read_proc(dir, 69, &m) == 0 && m.env_tunable == -1);
	CHECK(proc_mode_origin(&m) == MODE_ORIGIN_UNKNOWN);
	/* ... but a process that runs unchecked under a default that asks
	 * for a mode did not apply it, whatever its environment holds: what
	 * mtag-prometheus.service sees, which cannot open another user's
	 * environ (no CAP_DAC_READ_SEARCH), for postgres on Debian's libc6. */
	fake_proc(dir, 70, "none", "sync heap", NULL, 0, 0);
	CHECK(mte_read_proc(dir, 70, &m) == 0 && m.env_tunable == -1);
	CHECK(proc_ignores_execdef(&m));
}

/* MTE_TagInclude: the non-zero tags it allows (issue 32). */
static void test_tag_include(void)
{
	CHECK(tag_include_nonzero("0xfffe") == 15);
	CHECK(tag_include_nonzero("0xffff") == 15);
	CHECK(tag_include_nonzero("0x0000") == 0);
	CHECK(tag_include_nonzero("0x0001") == 0); /* tag 0 only */
	CHECK(tag_include_nonzero("0x0003") == 1);
	CHECK(tag_include_nonzero("0x0006") == 2);
	CHECK(tag_include_nonzero("0x10000") == -1);
	CHECK(tag_include_nonzero("fffe") == -1);
	CHECK(tag_include_nonzero("0x") == -1);
	CHECK(tag_include_nonzero("0xzz") == -1);
	CHECK(tag_include_nonzero(NULL) == -1);
}

/* The exe of a recorded process: set-user-ID, set-group-ID (with group
 * execute), file capabilities; the path. */
static void test_exe_privilege(void)
{
	char dir[512], bin[600], link[600], path[256], why[64];
	const char *t = tmpdir();

	snprintf(dir, sizeof(dir), "%s/exe-proc/77", t);
	mkdirs(dir);
	snprintf(bin, sizeof(bin), "%s/exe-proc/postdrop", t);
	write_file(bin, "#!/bin/true\n");
	snprintf(link, sizeof(link), "%s/exe", dir);
	unlink(link);
	CHECK(symlink(bin, link) == 0);
	snprintf(dir, sizeof(dir), "%s/exe-proc", t);
	CHECK(chmod(bin, 0755) == 0);
	CHECK(proc_exe_privilege(dir, 77, path, sizeof(path)) == 0);
	CHECK_STR(path, bin);
	CHECK(chmod(bin, 02755) == 0);
	CHECK(proc_exe_privilege(dir, 77, NULL, 0) == PROC_EXE_SETGID);
	CHECK(chmod(bin, 02745) == 0); /* mandatory locking, not a privilege */
	CHECK(proc_exe_privilege(dir, 77, NULL, 0) == 0);
	CHECK(chmod(bin, 04755) == 0);
	CHECK(proc_exe_privilege(dir, 77, NULL, 0) == PROC_EXE_SETUID);
	CHECK(chmod(bin, 06755) == 0);
	CHECK(proc_exe_privilege(dir, 77, NULL, 0) == (PROC_EXE_SETUID | PROC_EXE_SETGID));
	CHECK_STR(proc_exe_privilege_str(PROC_EXE_SETUID | PROC_EXE_SETGID | PROC_EXE_FCAPS, why, sizeof(why)),
		  "set-user-ID, set-group-ID, file capabilities");
	CHECK_STR(proc_exe_privilege_str(PROC_EXE_FCAPS, why, sizeof(why)), "file capabilities");
	/* Gone: nothing. */
	CHECK(proc_exe_privilege(dir, 78, path, sizeof(path)) == 0 && path[0] == '\0');
	CHECK(chmod(bin, 0755) == 0);
	{
		char cmd[800];

		snprintf(cmd, sizeof(cmd), "setcap cap_net_bind_service+ep '%s' 2>/dev/null", bin);
		if (system(cmd) != 0)
			SKIP_TEST("file capabilities: setcap failed here");
		CHECK(proc_exe_privilege(dir, 77, NULL, 0) == PROC_EXE_FCAPS);
	}
}

void run_procmte_tests(void)
{
	RUN(test_tag_include);
	RUN(test_exe_privilege);
	RUN(test_origin);
	RUN(test_proc);
	RUN(test_proc_report);
	RUN(test_proc_upgrade);
	RUN(test_thread);
}
