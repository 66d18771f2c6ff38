/* SPDX-License-Identifier: GPL-2.0 */
/* mte-init.h -- what the kernel suite's /init files share. */
#ifndef MTE_INIT_H
#define MTE_INIT_H

#include <stddef.h>

#ifndef HWCAP2_MTE
#define HWCAP2_MTE (1UL << 18)
#endif
#ifndef PROT_MTE
#define PROT_MTE 0x20
#endif
#ifndef SEGV_MTEAERR
#define SEGV_MTEAERR 8
#endif
#ifndef SEGV_MTESERR
#define SEGV_MTESERR 9
#endif
#ifndef SA_EXPOSE_TAGBITS
#define SA_EXPOSE_TAGBITS 0x00000800
#endif
#ifndef PR_SET_TAGGED_ADDR_CTRL
#define PR_SET_TAGGED_ADDR_CTRL 55
#define PR_TAGGED_ADDR_ENABLE (1UL << 0)
#endif
#ifndef PR_MTE_TCF_SYNC
#define PR_MTE_TCF_SYNC (1UL << 1)
#define PR_MTE_TCF_ASYNC (1UL << 2)
#define PR_MTE_TAG_SHIFT 3
#endif
/* patches/linux/0004 (report-only mode) */
#ifndef PR_SET_MTE_REPORT
#define PR_SET_MTE_REPORT 0x4d545201
#define PR_GET_MTE_REPORT 0x4d545202
#define PR_MTE_REPORT_ON (1UL << 0)
#define PR_MTE_REPORT_SUSPENDED (1UL << 1)
#endif
/* patches/linux/0006 (exec default) */
#ifndef PR_SET_MTE_EXEC_DEFAULT
#define PR_SET_MTE_EXEC_DEFAULT 0x4d545203
#define PR_GET_MTE_EXEC_DEFAULT 0x4d545204
#define PR_MTE_EXEC_TCF_SYNC (1UL << 1)
#define PR_MTE_EXEC_TCF_ASYNC (1UL << 2)
#define PR_MTE_EXEC_TCF_MASK (PR_MTE_EXEC_TCF_SYNC | PR_MTE_EXEC_TCF_ASYNC)
#define PR_MTE_EXEC_TAG_SHIFT 3
#define PR_MTE_EXEC_HEAP (1UL << 19)
#endif
/* patches/linux/0008 (timed upgrade) */
#ifndef PR_SET_MTE_UPGRADE
#define PR_SET_MTE_UPGRADE 0x4d545205
#define PR_GET_MTE_UPGRADE 0x4d545206
#endif

extern int failures;

/* PASS / FAIL line; fmt (may be NULL) says why it failed. */
void result(int ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Run FN in a child process (a case that traps or changes its own
 * tag-check state cannot harm the next); its failures, or its death, count
 * under NAME. */
void run_case(const char *name, void (*fn)(void));
int line_match(const char *pat, const char *s);
unsigned long tag_ptr(void *p, unsigned int tag);
void set_mem_tag(unsigned long p);
int set_ctrl(unsigned long tcf, unsigned long incl);
void *map_mte(void);
int status_field(const char *path, const char *key, char *val, size_t len);
int kmsg_open(void);
int kmsg_find(int fd, const char *needle, char *found, size_t len);
int expect_nomte(void);

/* mte-report.c */
void test_report_mode(void);
void test_report_mode_nomte(void);
int report_exec_main(int argc, char **argv);

/* mte-execdef.c */
void test_exec_default(void);
void test_exec_default_nomte(void);
int execdef_exec_main(int argc, char **argv);

/* mte-upgrade.c */
void test_upgrade(void);
void test_upgrade_nomte(void);
int upgrade_exec_main(int argc, char **argv);

/* mte-kselftest.c: the kernel's tools/testing/selftests/arm64/mte */
void test_kselftests(void);

/* mte-faultline.c */
void test_fault_line(void);

/* mte-ratelimit.c */
void test_rate_limit(void);
void test_dmesg_restrict(void);

#endif
