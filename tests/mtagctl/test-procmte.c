/* test-procmte.c -- mte_read_proc() against fake /proc trees. */
#include <stdlib.h>
#include <string.h>

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

void run_procmte_tests(void)
{
	RUN(test_proc);
	RUN(test_proc_report);
	RUN(test_thread);
}
