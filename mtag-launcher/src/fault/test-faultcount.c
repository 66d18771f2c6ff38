/* test-faultcount.c -- mtag-faultd's state file (faultcount.h): counts,
 * save and load, the boot, and hostile content. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "faultcount.h"
#include "unit.h"

#define BOOT_A "0123456789abcdef0123456789abcdef"
#define CURSOR "s=9f1e;i=2a;b=" BOOT_A ";m=1f;t=5e3;x=77"

static void test_counts(void)
{
	struct faultcount c;
	const struct faultcount_unit *u;

	faultcount_init(&c);
	faultcount_reset(&c, BOOT_A);
	faultcount_add_fault(&c, "nginx.service", "overflow");
	faultcount_add_fault(&c, "nginx.service", "overflow");
	faultcount_add_fault(&c, "nginx.service", "use-after-free");
	faultcount_add_fault(&c, "nginx.service", "no-such-cause");
	faultcount_add_suppressed(&c, "nginx.service", 99990);
	faultcount_add_suppressed(&c, NULL, 12);
	faultcount_add_fault(&c, "not a unit", "overflow");
	u = faultcount_find(&c, "nginx.service");
	CHECK(u != NULL);
	if (!u)
		goto out;
	CHECK(u->by_cause[MTE_CAUSE_OVERFLOW] == 2);
	CHECK(u->by_cause[MTE_CAUSE_USE_AFTER_FREE] == 1);
	CHECK(u->by_cause[MTE_CAUSE_UNKNOWN] == 1);
	CHECK(u->suppressed == 99990);
	CHECK(faultcount_unit_faults(u) == 4);
	u = faultcount_find(&c, "");
	CHECK(u && u->suppressed == 12 && u->by_cause[MTE_CAUSE_OVERFLOW] == 1);
	CHECK(c.n == 2);
	/* Saturating. */
	faultcount_add_suppressed(&c, "nginx.service", UINT64_MAX);
	faultcount_add_suppressed(&c, "nginx.service", 5);
	CHECK(faultcount_find(&c, "nginx.service")->suppressed == (uint64_t)INT64_MAX);
out:
	faultcount_free(&c);
}

static void test_save_load(void)
{
	struct faultcount c, d;
	char path[1024];
	const char *why;
	size_t line;
	struct stat st;

	snprintf(path, sizeof(path), "%s/state", tmpdir());
	faultcount_init(&c);
	faultcount_reset(&c, BOOT_A);
	faultcount_set_cursor(&c, CURSOR);
	c.lines = 1234;
	c.unparsed = 1;
	faultcount_add_fault(&c, "nginx.service", "overflow");
	faultcount_add_fault(&c, "user@1000.service", "wild-pointer");
	faultcount_add_suppressed(&c, "user@1000.service", 9500);
	faultcount_add_suppressed(&c, NULL, 3);
	CHECK(faultcount_save(path, &c, true) == 0);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
	CHECK(faultcount_load(path, &d, &line, &why) == 1);
	CHECK_STR(d.boot, BOOT_A);
	CHECK(d.cursor && strcmp(d.cursor, CURSOR) == 0);
	CHECK(d.lines == 1234 && d.unparsed == 1 && d.n == 3);
	CHECK(faultcount_find(&d, "nginx.service") &&
	      faultcount_find(&d, "nginx.service")->by_cause[MTE_CAUSE_OVERFLOW] == 1);
	CHECK(faultcount_find(&d, "user@1000.service") &&
	      faultcount_find(&d, "user@1000.service")->suppressed == 9500 &&
	      faultcount_find(&d, "user@1000.service")->by_cause[MTE_CAUSE_WILD] == 1);
	CHECK(faultcount_find(&d, NULL) && faultcount_find(&d, NULL)->suppressed == 3);
	/* The same text again: a round trip. */
	{
		char *a = faultcount_format(&c, NULL), *b = faultcount_format(&d, NULL);

		CHECK_STR(a, b);
		free(a);
		free(b);
	}
	/* A new boot: reset, cursor gone. */
	faultcount_reset(&d, "fedcba9876543210fedcba9876543210");
	CHECK(d.n == 0 && d.lines == 0 && !d.cursor);
	faultcount_free(&c);
	faultcount_free(&d);
	unlink(path);
	CHECK(faultcount_load(path, &d, &line, &why) == 0);
	faultcount_free(&d);
}

/* Text that must be refused, and the line named. */
static void bad(const char *text, size_t want_line)
{
	struct faultcount c;
	const char *why = NULL;
	size_t line = 0;
	int r;

	faultcount_init(&c);
	r = faultcount_parse(text, strlen(text), &c, &line, &why);
	if (r != -EBADMSG || line != want_line || !why) {
		fprintf(stderr, "  accepted or wrong line (%d, line %zu, want %zu): %s\n", r, line, want_line, text);
		CHECK(0);
	}
	CHECK(c.n == 0 && !c.cursor);
	faultcount_free(&c);
}

static void test_hostile(void)
{
	const char *h = "mtag-faultd-state 1\n";
	char *big;
	struct faultcount c;
	const char *why;
	size_t line, n;
	char path[1024];

	bad("", 1);
	bad("mtag-faultd-state 2\n", 1);
	bad("lines 1\n", 1);
	bad("mtag-faultd-state 1\nlines -1\n", 2);
	bad("mtag-faultd-state 1\nlines 9223372036854775808\n", 2);
	bad("mtag-faultd-state 1\nlines 1x\n", 2);
	bad("mtag-faultd-state 1\nboot 0123\n", 2);
	bad("mtag-faultd-state 1\nboot 0123456789ABCDEF0123456789abcdef\n", 2);
	bad("mtag-faultd-state 1\nboot " BOOT_A "\nboot " BOOT_A "\n", 3);
	bad("mtag-faultd-state 1\ncursor a b\n", 2);
	bad("mtag-faultd-state 1\ncursor a\x1b[2J\n", 2);
	bad("mtag-faultd-state 1\n# fine\nunit nginx.service overflow=1 overflow\n", 3);
	bad("mtag-faultd-state 1\nunit nginx.service bogus=1\n", 2);
	bad("mtag-faultd-state 1\nunit ../../etc/passwd overflow=1\n", 2);
	bad("mtag-faultd-state 1\nunit nginx.service overflow=1\nunit nginx.service\n", 3);
	bad("mtag-faultd-state 1\nunit a\"b.service overflow=1\n", 2);
	bad("mtag-faultd-state 1\nwhat 1\n", 2);
	/* A NUL in a line. */
	{
		static const char t[] = "mtag-faultd-state 1\nlines 1\0\n";
		struct faultcount d;

		faultcount_init(&d);
		CHECK(faultcount_parse(t, sizeof(t) - 1, &d, &line, &why) == -EBADMSG && line == 2);
		faultcount_free(&d);
	}
	/* Too many units; a line too long. */
	n = strlen(h) + (FAULTCOUNT_MAX_UNITS + 1) * 40 + 10000;
	big = malloc(n);
	CHECK(big != NULL);
	if (!big)
		return;
	strcpy(big, h);
	for (int i = 0; i <= FAULTCOUNT_MAX_UNITS; i++)
		sprintf(big + strlen(big), "unit u%d.service overflow=1\n", i);
	faultcount_init(&c);
	CHECK(faultcount_parse(big, strlen(big), &c, &line, &why) == -EBADMSG &&
	      line == FAULTCOUNT_MAX_UNITS + 1);
	faultcount_free(&c);
	strcpy(big, h);
	strcat(big, "cursor ");
	memset(big + strlen(big), 'x', 9000);
	big[strlen(h) + 7 + 9000] = '\0';
	CHECK(faultcount_parse(big, strlen(big), &c, &line, &why) == -EBADMSG && line == 2);
	faultcount_free(&c);
	free(big);
	/* Not a regular file: refused at once (a FIFO would block). */
	snprintf(path, sizeof(path), "%s/fifo", tmpdir());
	CHECK(mkfifo(path, 0600) == 0);
	CHECK(faultcount_load(path, &c, &line, &why) == -EINVAL);
	faultcount_free(&c);
	unlink(path);
	/* Larger than the bound. */
	snprintf(path, sizeof(path), "%s/big", tmpdir());
	{
		FILE *f = fopen(path, "w");

		CHECK(f != NULL);
		if (f) {
			fputs(h, f);
			for (size_t i = 0; i < FAULTCOUNT_MAX_BYTES / 10 + 1; i++)
				fputs("# padding\n", f);
			fclose(f);
		}
	}
	CHECK(faultcount_load(path, &c, &line, &why) == -EFBIG);
	faultcount_free(&c);
	unlink(path);
}

void run_faultcount_tests(void)
{
	RUN(test_counts);
	RUN(test_save_load);
	RUN(test_hostile);
}
