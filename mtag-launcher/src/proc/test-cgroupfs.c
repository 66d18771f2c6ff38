/* test-cgroupfs.c -- cgroup members, threads and cgroups on fake trees. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "cgroupfs.h"
#include "unit.h"

static void test_cgroup_pids(void)
{
	char root[512], p[1024];
	pid_t *pids;
	size_t n;

	snprintf(root, sizeof(root), "%s/cg", tmpdir());
	snprintf(p, sizeof(p), "%s/system.slice/nginx.service/cgroup.procs", root);
	write_file(p, "1999\n2001\n");
	snprintf(p, sizeof(p), "%s/system.slice/nginx.service/payload/cgroup.procs", root);
	write_file(p, "3000\n1999\n");
	snprintf(p, sizeof(p), "%s/system.slice/nginx.service/payload/deeper/cgroup.procs", root);
	write_file(p, "5\n");
	snprintf(p, sizeof(p), "%s/system.slice/nginx.service/empty", root);
	mkdirs(p); /* no cgroup.procs: vanished, skipped */
	snprintf(p, sizeof(p), "%s/system.slice/idle.service/cgroup.procs", root);
	write_file(p, "");
	snprintf(p, sizeof(p), "%s/system.slice/bad.service/cgroup.procs", root);
	write_file(p, "12\nabc\n");

	CHECK(cgroup_pids(root, "/system.slice/nginx.service", &pids, &n) == 0);
	CHECK(n == 4);
	CHECK(pids[0] == 5 && pids[1] == 1999 && pids[2] == 2001 && pids[3] == 3000);
	free(pids);
	CHECK(cgroup_pids(root, "system.slice/nginx.service/payload/", &pids, &n) == 0);
	CHECK(n == 3 && pids[0] == 5);
	free(pids);
	CHECK(cgroup_pids(root, "/system.slice/idle.service", &pids, &n) == 0);
	CHECK(n == 0 && pids == NULL);
	CHECK(cgroup_pids(root, "/system.slice/missing.service", &pids, &n) == -ENOENT);
	CHECK(cgroup_pids(root, "/system.slice/nginx.service/empty", &pids, &n) == -ENOENT);
	CHECK(cgroup_pids(root, "/system.slice/bad.service", &pids, &n) == -EINVAL);
	CHECK(cgroup_pids(root, "/system.slice/../../etc", &pids, &n) == -EINVAL);
	/* The whole tree. */
	CHECK(cgroup_pids(root, "/", &pids, &n) == -ENOENT); /* no cgroup.procs at the top */
	snprintf(p, sizeof(p), "%s/cgroup.procs", root);
	write_file(p, "1\n");
	CHECK(cgroup_pids(root, "/", &pids, &n) == -EINVAL); /* bad.service is in it */
	snprintf(p, sizeof(p), "%s/system.slice/bad.service/cgroup.procs", root);
	write_file(p, "12\n");
	CHECK(cgroup_pids(root, "/", &pids, &n) == 0);
	CHECK(n == 6 && pids[0] == 1 && pids[5] == 3000);
	free(pids);
}

static void test_threads(void)
{
	char proc[512], p[1024];
	pid_t *tids;
	size_t n;

	snprintf(proc, sizeof(proc), "%s/proc", tmpdir());
	snprintf(p, sizeof(p), "%s/2001/task/2001", proc);
	mkdirs(p);
	snprintf(p, sizeof(p), "%s/2001/task/2010", proc);
	mkdirs(p);
	snprintf(p, sizeof(p), "%s/2001/task/2003", proc);
	mkdirs(p);
	CHECK(proc_threads(proc, 2001, &tids, &n) == 0);
	CHECK(n == 3 && tids[0] == 2001 && tids[1] == 2003 && tids[2] == 2010);
	free(tids);
	CHECK(proc_threads(proc, 2002, &tids, &n) == -ENOENT);
	CHECK(proc_threads("/proc", getpid(), &tids, &n) == 0);
	CHECK(n >= 1);
	free(tids);
}

static void test_proc_cgroup(void)
{
	char proc[512], p[1024], buf[256];

	snprintf(proc, sizeof(proc), "%s/proc", tmpdir());
	snprintf(p, sizeof(p), "%s/2001/cgroup", proc);
	write_file(p, "0::/system.slice/nginx.service\n");
	CHECK(proc_cgroup(proc, 2001, buf, sizeof(buf)) == 0);
	CHECK_STR(buf, "/system.slice/nginx.service");
	CHECK(proc_cgroup(proc, 2001, buf, 10) == -ENAMETOOLONG);
	snprintf(p, sizeof(p), "%s/2002/cgroup", proc);
	write_file(p, "12:pids:/system.slice/x.service\n1:name=systemd:/system.slice/x.service\n"
		      "0::/system.slice/x.service\n");
	CHECK(proc_cgroup(proc, 2002, buf, sizeof(buf)) == 0);
	CHECK_STR(buf, "/system.slice/x.service");
	snprintf(p, sizeof(p), "%s/2003/cgroup", proc);
	write_file(p, "1:name=systemd:/\n");
	CHECK(proc_cgroup(proc, 2003, buf, sizeof(buf)) == -ENODATA);
	CHECK(proc_cgroup(proc, 2004, buf, sizeof(buf)) == -ENOENT);
	CHECK(proc_cgroup("/proc", getpid(), buf, sizeof(buf)) == 0 || access("/proc/self/cgroup", R_OK) != 0);
}

void run_cgroupfs_tests(void)
{
	RUN(test_cgroup_pids);
	RUN(test_threads);
	RUN(test_proc_cgroup);
}
