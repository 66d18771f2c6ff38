/* fuzz-policy.c -- libFuzzer target: the policy parser, lookups on what it
 * parsed, GLIBC_TUNABLES merging and ExecStart= wrapping on the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "tunables.h"
#include "unitfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const units[] = {
		"nginx.service", "getty@tty1.service", "a-b-c.service", "x.service", "",
	};
	struct policy p;
	char *s;

	policy_init(&p);
	policy_parse(&p, "fuzz.conf", (const char *)data, size);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		const struct policy_entry *e = policy_lookup(&p, units[i]);

		if (e && (!e->pattern || e->line == 0 || (unsigned)e->mode > MTAG_MODE_ASYMM))
			abort();
		(void)policy_names_unit(&p, units[i]);
	}
	for (size_t i = 0; i < p.n_entries; i++) {
		(void)policy_lookup(&p, p.entries[i].pattern);
		if (p.entries[i].mode == MTAG_MODE_ASYNC && !p.entries[i].heap)
			abort(); /* must have been rejected */
	}
	for (size_t i = 0; i < p.n_diags; i++)
		if (!p.diags[i].msg || !p.diags[i].file)
			abort();
	policy_free(&p);

	/* The same bytes as a GLIBC_TUNABLES value and an ExecStart= value. */
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	free(tunables_merge(s, 3));
	free(unit_wrap_exec(s, "/usr/sbin/mtag-launcher", "%n"));
	(void)unit_exec_runs(s, "/usr/sbin/mtag-launcher");
	free(s);
	return 0;
}
