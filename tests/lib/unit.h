/* unit.h -- the minimal unit-test harness of tests/launcher and
 * tests/mtagctl: one PASS:/FAIL:/SKIP: line per test (tests/lib/unit.c). */
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

/* Helpers (tests/lib/unit.c). */
const char *tmpdir(void);
void write_file(const char *path, const char *text);
void mkdirs(const char *path);

/* Make a temporary directory (tmpdir()) named after NAME, call each of
 * the NULL-terminated RUNS, remove it; the exit status for main(). */
int unit_run_all(const char *name, void (*const *runs)(void));

#endif
