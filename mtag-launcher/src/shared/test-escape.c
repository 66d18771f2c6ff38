/* test-escape.c -- cescape(): control characters, C1, invalid UTF-8. */
#include <string.h>

#include "escape.h"
#include "unit.h"

static void test_cescape(void)
{
	char b[128];

	CHECK_STR(cescape("nginx: worker", b, sizeof(b)), "nginx: worker");
	CHECK_STR(cescape(NULL, b, sizeof(b)), "");
	/* OSC retitle with BEL, CSI clear screen. */
	CHECK_STR(cescape("\033]0;pwned\a\033[2J", b, sizeof(b)), "\\x1b]0;pwned\\a\\x1b[2J");
	CHECK_STR(cescape("a\tb\nc\rd\\e\x7f", b, sizeof(b)), "a\\tb\\nc\\rd\\\\e\\x7f");
	/* U+009B (8-bit CSI) escaped, U+00A0 and é printable. */
	CHECK_STR(cescape("\xc2\x9b" "1m", b, sizeof(b)), "\\xc2\\x9b1m");
	CHECK_STR(cescape("caf\xc3\xa9 \xc2\xa0", b, sizeof(b)), "caf\xc3\xa9 \xc2\xa0");
	/* Invalid UTF-8: lone continuation, overlong, cut sequence. */
	CHECK_STR(cescape("\x80x\xc0\xafy\xe2\x82", b, sizeof(b)), "\\x80x\\xc0\\xafy\\xe2\\x82");
	/* Cut at a whole escape, never in the middle of one. */
	CHECK_STR(cescape("ab\033cd", b, 6), "ab");
	CHECK_STR(cescape("ab\033cd", b, 7), "ab\\x1b");
	CHECK_STR(cescape("\xc3\xa9\xc3\xa9", b, 4), "\xc3\xa9");
}

void run_escape_tests(void)
{
	RUN(test_cescape);
}
