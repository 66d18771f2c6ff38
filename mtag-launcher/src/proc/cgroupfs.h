/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroupfs.h -- processes of a cgroup, threads of a process, the cgroup
 * of a process (cgroup v2).  ROOT and PROC are parameters so that tests
 * can use a fake tree: normally "/sys/fs/cgroup" and "/proc".
 */
#ifndef MTAG_CGROUPFS_H
#define MTAG_CGROUPFS_H

#include <stddef.h>
#include <sys/types.h>

/* The PIDs in ROOT/PATH/cgroup.procs and in those of every sub-cgroup
 * (PATH like "/system.slice/nginx.service"), sorted, without duplicates.
 * *PIDS is malloc()ed (NULL when *N is 0).  0 or -errno: -ENOENT when the
 * cgroup does not exist, -EINVAL for a PATH with a ".." component.
 * Sub-cgroups that vanish while being read are skipped. */
int cgroup_pids(const char *root, const char *path, pid_t **pids, size_t *n);

/* The thread IDs of PID (PROC/PID/task), sorted.  0 or -errno. */
int proc_threads(const char *proc, pid_t pid, pid_t **tids, size_t *n);

/* The cgroup v2 path of PID: the "0::" line of PROC/PID/cgroup, into BUF.
 * 0, -ENOENT (no such process), -ENODATA (no "0::" line), -ENAMETOOLONG
 * or another -errno. */
int proc_cgroup(const char *proc, pid_t pid, char *buf, size_t len);

#endif
