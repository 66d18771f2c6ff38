/* SPDX-License-Identifier: GPL-2.0-or-later */
/* upgrade.h -- the upgraded start after an async fault (mtag-policy.conf(5),
 * UPGRADE AFTER AN ASYNC FAULT): the state files under /run/mtag that
 * mtag-faultd, "mtag-launcher --upgrade-prepare" and the launcher share,
 * and the kernel's timed upgrade (patches/linux/0008).
 *
 *   DIR/upgrade/UNIT.fault   (dir 0700, root) written by mtag-faultd from
 *                            a kernel async fault line of UNIT: the fault
 *   DIR/upgrade/UNIT.used    written by --upgrade-prepare when it grants
 *                            the upgrade: the per-boot limit (/run is a
 *                            tmpfs, so "per boot")
 *   DIR/upgrade-grant/UNIT   (dir 0711, root: nobody lists it) written by
 *                            --upgrade-prepare (ExecStartPre=+, root) for
 *                            one start, named by its $INVOCATION_ID, mode
 *                            0400 owned by the service's user ($USER; root
 *                            without): read by the launcher, which runs as
 *                            that user, and by no other user (it tells of
 *                            a memory-safety fault of the service)
 *
 * Each file is "key=value" lines, written to a temporary file and renamed.
 */
#ifndef MTAG_UPGRADE_H
#define MTAG_UPGRADE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mte-uapi.h"

#define UPGRADE_BASE_DIR "/run/mtag"
/* A sync fault counts as one of the window up to this long after its end
 * (the window starts at the exec, a little after the grant). */
#define UPGRADE_SLACK_USEC (30ULL * 1000000ULL)

#define MSGID_UPGRADED "d3d846a8a0754fd988029222defb736a"
#define MSGID_UPGRADE_REFUSED "da583d5851e34a7f8dba65a06fe1d8bf"

/* What a record, a grant or a used marker holds (absent: 0 / ""). */
struct upgrade_rec {
	uint64_t fault_usec;      /* CLOCK_REALTIME of the async fault's line */
	char fault_cursor[512];   /* journal cursor of the kernel's entry */
	char fault_comm[64];      /* COMM[TID] of the faulting thread */
	char invocation[40];      /* grant, used: the start's $INVOCATION_ID */
	uint64_t window_ns;       /* grant: the upgrade= of the policy */
	uint64_t granted_usec;    /* grant, used: CLOCK_REALTIME of the grant */
};

/* "DIR/upgrade" and "DIR/upgrade-grant" (DIR NULL: UPGRADE_BASE_DIR). */
char *upgrade_path(const char *dir, const char *sub, const char *unit, const char *suffix);

/* Make DIR/SUB with MODE if missing (and DIR itself, 0755), then check that
 * it is a directory owned by root (or by this process's user when it is
 * not root: the tests) and writable by nobody else.  0 or -errno, *WHY set
 * to a static reason. */
int upgrade_dir_ensure(const char *dir, const char *sub, unsigned mode, const char **why);

/* Write R to PATH (mode MODE) atomically (write_file_replace(): a
 * temporary file in its directory, then rename()).  0 or -errno. */
int upgrade_write(const char *path, const struct upgrade_rec *r, unsigned mode);

/* Read PATH into *R.  1, 0 when there is no such file, -errno. */
int upgrade_read(const char *path, struct upgrade_rec *r);

/* Parse the "key=value" text BUF into *R (unknown keys ignored). */
void upgrade_parse(const char *buf, struct upgrade_rec *r);

/* CLOCK_BOOTTIME and CLOCK_REALTIME now, in ns and usec. */
uint64_t upgrade_boottime_ns(void);
uint64_t upgrade_realtime_usec(void);

/* The kernel's timed upgrade for this thread (inherited by the exec'd
 * service): sync until CLOCK_BOOTTIME UNTIL_NS.  0 or -errno (-EINVAL: a
 * kernel without patch 0008, or no MTE). */
int upgrade_set_kernel(uint64_t until_ns);

/* PR_GET_MTE_UPGRADE: the ms left (>= 0), or -errno (-EINVAL: a kernel
 * without patch 0008, or no MTE). */
long upgrade_get_kernel(void);

/* Why upgrade_set_kernel() failed with SET_ERR (-errno), given what
 * upgrade_get_kernel() returned right after (GET_RET).  Linux answers an
 * unknown prctl with EINVAL, and so does patch 0008 for a deadline past
 * KTIME_MAX or not ahead: only the GET tells them apart. */
enum upgrade_kerr {
	UPGRADE_KERR_ABSENT,  /* no timed upgrade in this kernel (or no MTE) */
	UPGRADE_KERR_REFUSED, /* the kernel has it and refused the deadline */
	UPGRADE_KERR_OTHER,   /* another error (a system call filter: EPERM,
			       * ENOSYS) */
};
enum upgrade_kerr upgrade_kernel_classify(int set_err, long get_ret);

/* Whether the /dev/kmsg records in BUF (N bytes: one record as a read of
 * /dev/kmsg gives it, or several, one a line) hold a kernel line (facility
 * 0) of an async tag-check fault that killed a process (not report mode)
 * of system unit UNIT, by systemd's rules on its cgroup (cgunit.h), as
 * mtag-faultd records it, logged at most UPGRADE_KMSG_RECENT_USEC before
 * NOW_USEC (CLOCK_MONOTONIC, the records' clock). */
#define UPGRADE_KMSG_RECENT_USEC (60ULL * 1000000ULL)
bool upgrade_kmsg_async_fault(const char *buf, size_t n, const char *unit, uint64_t now_usec);

/* "--upgrade-prepare": run by ExecStartPre=+ as root before each start of
 * UNIT.  Consumes DIR/upgrade/UNIT.fault, and unless the per-boot limit is
 * reached, writes the grant for INVOCATION, readable by $USER only.  Always returns 0 (a problem
 * is logged: it never stops the service). */
int upgrade_prepare(const char *dir, const char *unit, const char *invocation);

/* The launcher's side: the grant for UNIT and INVOCATION, if there is one
 * (1 and *R), 0 if none (or another start's), -errno. */
int upgrade_grant_for(const char *dir, const char *unit, const char *invocation,
		      struct upgrade_rec *r);

#endif
