/* SPDX-License-Identifier: GPL-2.0-or-later */
/* faultfields.h -- the structured journal entry of one tag-check fault.
 *
 * mtag-faultd writes one entry per kernel fault line; mtagctl faults and
 * the Prometheus export read them.  The catalog entry
 * (units/catalog/mtag.catalog) explains MSGID_FAULT to journalctl -x.
 */
#ifndef MTAG_FAULTFIELDS_H
#define MTAG_FAULTFIELDS_H

#define MSGID_FAULT "5fda042e18d64e2e9d913704e87926cb"
/* mtag-faultd could not parse a line that looks like a fault line. */
#define MSGID_FAULT_UNPARSED "2211c3ca21794f2a82d20f36dd5fb7bb"
/* The kernel's count of fault lines its rate limit held back (one entry
 * per "suppressed" line, faultline.h mte_suppressed_parse()). */
#define MSGID_FAULT_SUPPRESSED "3fa143068ad84b069bd2a1c26d7eec31"
/* The top frames of a fault's thread, from the core systemd-coredump
 * stored for it (mtag-faultd writes one when that core's entry comes). */
#define MSGID_FAULT_FRAMES "b57edd2ae7164f9a90260005d212d684"
/* systemd-coredump's entry for a core (systemd's catalog). */
#define MSGID_COREDUMP "fc2e22bc6ee647b6b90729ab34a250b1"

/* Fields of an MSGID_FAULT entry (values are plain text):
 *   MTAG_FAULT_KIND      sync | async
 *   MTAG_FAULT_ACTION    signal | report | report-syscall
 *                        (SIGSEGV sent, or logged by report mode)
 *   MTAG_UNIT            the system unit of MTAG_CGROUP, when it has one,
 *                        by systemd's rules (cgunit.h): a fault in a unit of
 *                        a user's manager is charged to user@UID.service
 *   MTAG_USER_UNIT       the unit of the user's manager or session, when
 *                        the cgroup is under one (as _SYSTEMD_USER_UNIT)
 *   MTAG_CGROUP          the cgroup v2 path the kernel printed
 *   MTAG_PID, MTAG_TID, MTAG_COMM
 *   MTAG_ADDR            0x... tagged address (sync)
 *   MTAG_PTR_TAG         0x0-0xf (sync)
 *   MTAG_MEM_TAG         0x0-0xf or unknown (sync)
 *   MTAG_PC              0x... (sync)
 *   MTAG_PC_OBJECT       /path/of/binary+0xOFFSET, from /proc/PID/maps
 *                        when the process was still there
 *   MTAG_OBJECT          the file mapped at the pc (sync, process still
 *                        there; control bytes escaped; async: the main
 *                        executable) ...
 *   MTAG_OFFSET          ... and the pc's offset in it, 0x... (sync)
 *   MTAG_BUILD_ID        its GNU build-id, hex (libdw)
 *   MTAG_PACKAGE, MTAG_PACKAGE_VERSION   the dpkg package ("name" or
 *                        "name:arch") and version that own it
 *   MTAG_SIGNATURE       16 hex digits naming the bug across hosts
 *                        (bugid.h: build-id, cause class, offset)
 *   MTAG_SIGNATURE_KIND  coarse: an async fault's (the program's build-id
 *                        and "async": no pc); absent for a sync fault
 *   MTAG_BUG_NOTE        what of these could not be read, and why
 *   MTAG_TAGS            8 before, [fault], 8 after, as the kernel printed
 *   MTAG_CAUSE           overflow | underflow | use-after-free |
 *                        wild-pointer | unknown   (mte_cause_name())
 *   MTAG_CAUSE_CONFIDENCE none | possible | likely | certain
 *   MTAG_CAUSE_TEXT      one sentence
 *   MTAG_ALLOC_MIN_SIZE, MTAG_DISTANCE   numbers, when known
 *   MTAG_KERNEL_MESSAGE  the kernel's line
 *   MTAG_KERNEL_CURSOR   journal cursor of the kernel's entry
 *   MTAG_KERNEL_USEC     its __REALTIME_TIMESTAMP
 * The upgraded start (mtag-policy.conf(5), upgrade=), for a unit whose
 * policy is async with upgrade=:
 *   MTAG_UPGRADE_NEXT    async fault: yes (the next start runs in sync),
 *                        limit (the one of this boot was used), error
 *   MTAG_UPGRADE_NSEC    async fault: the window, ns
 *   MTAG_UPGRADED_FROM   sync fault during an upgraded start: the kernel
 *                        cursor (MTAG_KERNEL_CURSOR) of the async fault
 *   MTAG_UPGRADED_FROM_USEC   its time
 *   MTAG_UPGRADE_INVOCATION   the upgraded start's $INVOCATION_ID
 *
 * Fields of an MSGID_FAULT_FRAMES entry (one per core of a sync fault
 * that killed its process and has a signature):
 *   MTAG_SIGNATURE       the fault's (its MSGID_FAULT entry's)
 *   MTAG_FRAMES          the pc and up to 3 callers, innermost first, as
 *                        BUILD_ID+0xOFFSET ("?" for a part not known)
 *   MTAG_STACK_SIGNATURE bugid.h bug_stack_signature(): the signature
 *                        and the callers, when one has a build-id
 *   MTAG_UNIT, MTAG_PID, MTAG_TID, MTAG_COMM   the fault's
 *   MTAG_KERNEL_CURSOR   the fault's kernel entry, as in its MSGID_FAULT
 *   MTAG_BUG_NOTE        why there are no frames
 *
 * Fields of an MSGID_FAULT_SUPPRESSED entry:
 *   MTAG_SUPPRESSED      N: fault lines the kernel did not print
 *   MTAG_UNIT, MTAG_USER_UNIT, MTAG_CGROUP   as above, from the cgroup path
 *                        (a user's delegated cgroups are charged to the root
 *                        of the delegation, user@UID.service)
 *   MTAG_CGROUP_ID       the cgroup's id, when the kernel gave only that (the
 *                        cgroup is gone or its budget was evicted): no unit
 *   MTAG_KERNEL_MESSAGE, MTAG_KERNEL_CURSOR, MTAG_KERNEL_USEC   as above
 */

/* The launcher's entry of an upgraded start (upgrade.h MSGID_UPGRADED). */
#define MSGID_UPGRADED_START "d3d846a8a0754fd988029222defb736a"

#endif
