/* unit.h -- the minimal unit-test harness of the unit tests beside the
 * libraries (mtag-launcher/src/FOLDER/test-*.c), run by suites "launcher"
 * and "mtagctl": one PASS:/FAIL:/SKIP: line per test (unit.c).  Also the
 * entry points of each test file, which the runners call: launcher-main.c
 * (build/asan/unit-tests) and ctl-main.c (build/asan/ctl-unit-tests). */
#ifndef MTAG_TEST_UNIT_H
#define MTAG_TEST_UNIT_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

extern int unit_failed;
extern const char *unit_current;
extern int unit_current_failed;

#define CHECK(cond)                                                           \
	do {                                                                  \
		if (!(cond)) {                                                \
			printf("FAIL: %s: %s:%d: %s\n", unit_current, __FILE__,   \
			       __LINE__, #cond);                              \
			unit_current_failed = 1;                              \
			return;                                               \
		}                                                             \
	} while (0)

#define CHECK_STR(a, b)                                                       \
	do {                                                                  \
		const char *a_ = (a), *b_ = (b);                              \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                      \
			printf("FAIL: %s: %s:%d: \"%s\" != \"%s\"\n",         \
			       unit_current, __FILE__, __LINE__,              \
			       a_ ? a_ : "(null)", b_ ? b_ : "(null)");        \
			unit_current_failed = 1;                              \
			return;                                               \
		}                                                             \
	} while (0)

/* Skip the current test (counted as neither passed nor failed). */
#define SKIP_TEST(why)                                                        \
	do {                                                                  \
		printf("SKIP: %s: %s\n", unit_current, why);                  \
		unit_current_failed = -1;                                     \
		return;                                                       \
	} while (0)

#define RUN(fn)                                                               \
	do {                                                                  \
		unit_current = #fn;                                           \
		unit_current_failed = 0;                                      \
		fn();                                                         \
		if (unit_current_failed > 0)                                  \
			unit_failed++;                                        \
		else if (unit_current_failed == 0)                            \
			                                                         \
			printf("PASS: %s\n", #fn);                            \
	} while (0)

/* Helpers (unit.c). */
const char *tmpdir(void);
void write_file(const char *path, const char *text);
void mkdirs(const char *path);

/* Make a temporary directory (tmpdir()) named after NAME, call each of
 * the NULL-terminated RUNS, remove it; the exit status for main(). */
int unit_run_all(const char *name, void (*const *runs)(void));

/* The launcher's unit tests (launcher-main.c): the policy, the unit files,
 * the upgrade and the launcher without its main(). */
void run_policy_tests(void);
void run_tunables_tests(void);
void run_conffiles_tests(void);
void run_unitfile_tests(void);
void run_mte_tests(void);
void run_duration_tests(void);
void run_execdef_tests(void);
void run_upgrade_tests(void);

/* The ctl library's unit tests (ctl-main.c): the fault readers, the shared
 * base, mtagctl's verdicts and columns. */
void run_faultline_tests(void);
void run_cause_tests(void);
void run_corefile_tests(void);
void run_procmaps_tests(void);
void run_smaps_tests(void);
void run_procmte_tests(void);
void run_cgroupfs_tests(void);
void run_json_tests(void);
void run_prom_tests(void);
void run_trust_tests(void);
void run_coreload_tests(void);
void run_escape_tests(void);
void run_jemallocid_tests(void);
void run_verdict_tests(void);
void run_columns_tests(void);
void run_pager_tests(void);
void run_faultcount_tests(void);
void run_promexport_tests(void);
void run_bugid_tests(void);
void run_coreframes_tests(void);
void run_packages_tests(void);

/* tests/ts/mtagctl/data/NAME ($MTAG_CTL_TEST_DATA/NAME), whole, malloc'ed
 * and NUL-terminated; exits on failure.  *LEN may be NULL (ctl-main.c). */
char *read_data(const char *name, size_t *len);
/* The path of data file NAME (static buffer). */
const char *data_path(const char *name);

/* mte_fault_parse() of the recorded line data/kmsg/NAME.txt (its newline
 * included), given as a copy of exactly its length, with no NUL after it,
 * so that ASan catches a read past the end. */
struct mte_fault;
int parse_kmsg(const char *name, struct mte_fault *f);

#endif
