/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mte-uapi.h -- the one copy, for the sources, of the MTE user ABI the
 * programs use beyond what the installed kernel headers have: the mtag
 * kernel's prctl numbers and bits (patches/linux/) and HWCAP2_MTE.  The
 * tests keep their own copies on purpose: they check this ABI. */
#ifndef MTAG_MTE_UAPI_H
#define MTAG_MTE_UAPI_H

/* arch/arm64/include/uapi/asm/hwcap.h */
#ifndef HWCAP2_MTE
#define HWCAP2_MTE (1UL << 18)
#endif

/* patches/linux/0004-arm64-mte-report-only-mode.patch */
#ifndef PR_SET_MTE_REPORT
#define PR_SET_MTE_REPORT 0x4d545201
#define PR_GET_MTE_REPORT 0x4d545202
#define PR_MTE_REPORT_ON (1UL << 0)
#define PR_MTE_REPORT_SUSPENDED (1UL << 1)
#endif

/* patches/linux/0006: the exec default */
#ifndef PR_SET_MTE_EXEC_DEFAULT
#define PR_SET_MTE_EXEC_DEFAULT 0x4d545203
#define PR_GET_MTE_EXEC_DEFAULT 0x4d545204
#define PR_MTE_EXEC_TCF_SYNC (1UL << 1)
#define PR_MTE_EXEC_TCF_ASYNC (1UL << 2)
#define PR_MTE_EXEC_TCF_MASK (PR_MTE_EXEC_TCF_SYNC | PR_MTE_EXEC_TCF_ASYNC)
#define PR_MTE_EXEC_TAG_SHIFT 3
#define PR_MTE_EXEC_TAG_MASK (0xffffUL << PR_MTE_EXEC_TAG_SHIFT)
#define PR_MTE_EXEC_HEAP (1UL << 19)
#endif

/* patches/linux/0008-arm64-mte-timed-upgrade-to-sync.patch */
#ifndef PR_SET_MTE_UPGRADE
#define PR_SET_MTE_UPGRADE 0x4d545205
#define PR_GET_MTE_UPGRADE 0x4d545206
#endif

#endif
