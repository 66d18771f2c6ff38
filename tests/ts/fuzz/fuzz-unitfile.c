/* fuzz-unitfile.c -- libFuzzer target: the unit-file reader alone
 * (unit_text_parse: systemd's config_parse line joining, sections,
 * comments) and applying its ExecStart= assignments.
 *
 * Checked: an error always has a message naming the file; every value
 * kept is one stripped, non-empty line. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unitfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = { "ExecStart", "NoExecPaths", "Type" };
	struct unit_file_keys k;
	char *err = NULL;
	int r;

	r = unit_text_parse("fuzz.service", (const char *)data, size, keys, 3, &k, &err);
	if (r < 0 && (!err || strncmp(err, "fuzz.service:", 13) != 0))
		abort();
	free(err);
	for (unsigned key = 0; key < 3; key++) {
		struct strv l = { 0 };
		bool reset = false;

		unit_file_keys_apply(&k, key, &l, &reset);
		for (size_t i = 0; i < l.n; i++)
			if (strchr(l.v[i], '\n') || !l.v[i][0] || l.v[i][0] == ' ')
				abort();
		strv_free(&l);
	}
	unit_file_keys_free(&k);
	return 0;
}
