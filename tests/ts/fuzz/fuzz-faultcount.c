/* fuzz-faultcount.c -- libFuzzer target: mtag-faultd's state file
 * (faultcount.h), which mtagctl reads with no trust in it.  Whatever
 * parses prints back to a text that parses to the same counts. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "faultcount.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct faultcount c, d;
	const char *why;
	size_t line, len;
	char *text, *again;
	int r;

	/* An exact-size copy: ASan sees any read past SIZE. */
	text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	r = faultcount_parse(text, size, &c, &line, &why);
	free(text);
	if (r != 0 && r != -EBADMSG)
		abort();
	if (r < 0) {
		if (!why || line == 0 || c.n || c.cursor)
			abort();
		faultcount_free(&c);
		return 0;
	}
	if (c.n > FAULTCOUNT_MAX_UNITS)
		abort();
	again = faultcount_format(&c, &len);
	if (faultcount_parse(again, len, &d, &line, &why) != 0 || d.n != c.n || d.lines != c.lines ||
	    d.unparsed != c.unparsed || strcmp(d.boot, c.boot) != 0 ||
	    (c.cursor ? !d.cursor || strcmp(c.cursor, d.cursor) != 0 : d.cursor != NULL))
		abort();
	for (size_t i = 0; i < c.n; i++)
		if (memcmp(&c.units[i], &d.units[i], sizeof(c.units[i])) != 0)
			abort();
	free(again);
	faultcount_free(&c);
	faultcount_free(&d);
	return 0;
}
