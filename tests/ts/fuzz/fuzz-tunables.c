/* fuzz-tunables.c -- libFuzzer target: GLIBC_TUNABLES merging alone
 * (tunables_merge), the value the launcher hands a service's glibc.
 *
 * Input: one byte choosing the mode value, then the old GLIBC_TUNABLES.
 * Checked: the result ends in both tagging names set to the value, and
 * holds no other tagging entry (an old "glibc.mem.tagging=0" left in front
 * would be a weaker mode for a glibc that reads the first one). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tunables.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0, l = strlen(needle);

	for (const char *p = hay; (p = strstr(p, needle)); p += l)
		if (p == hay || p[-1] == ':')
			n++;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned values[] = { 0, 1, 3, 5, 2, 4 };
	unsigned value;
	char *old, *out, tail[96];

	if (size < 1)
		return 0;
	value = values[data[0] % (sizeof(values) / sizeof(values[0]))];
	old = malloc(size);
	if (!old)
		return 0;
	memcpy(old, data + 1, size - 1);
	old[size - 1] = '\0';
	out = tunables_merge(data[0] & 0x80 ? NULL : old, value);
	if (!out)
		abort();
	snprintf(tail, sizeof(tail), TUNABLE_UPSTREAM "=%u:" TUNABLE_ORIGINAL "=%u", value, value);
	if (strlen(out) < strlen(tail) || strcmp(out + strlen(out) - strlen(tail), tail) != 0)
		abort(); /* the mode is not what the tail sets */
	if (count(out, TUNABLE_UPSTREAM "=") != 1 || count(out, TUNABLE_ORIGINAL "=") != 1)
		abort(); /* an old tagging entry survived */
	free(out);
	free(old);
	return 0;
}
