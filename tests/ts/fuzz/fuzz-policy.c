/* fuzz-policy.c -- libFuzzer target: the policy parser, lookups on what it
 * parsed, GLIBC_TUNABLES merging, ExecStart= wrapping and splitting, and
 * unit-file parsing (systemd's config_parse) on the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "systemd-time.h"
#include "policy.h"
#include "tunables.h"
#include "execstart.h"
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

		if (e && (!e->pattern || e->line == 0 || (unsigned)e->mode > MTAG_MODE_REPORT ||
			  e->reenable_ns == 0))
			abort();
		(void)policy_names_unit(&p, units[i]);
	}
	for (size_t i = 0; i < p.n_entries; i++) {
		(void)policy_lookup(&p, p.entries[i].pattern);
		if (p.entries[i].mode == MTAG_MODE_ASYNC && !p.entries[i].heap)
			abort(); /* must have been rejected */
		if (p.entries[i].mode != MTAG_MODE_REPORT &&
		    p.entries[i].reenable_ns != DURATION_INFINITY)
			abort(); /* reenable= only in report mode */
	}
	for (size_t i = 0; i < p.n_diags; i++)
		if (!p.diags[i].msg || !p.diags[i].file)
			abort();
	policy_free(&p);

	/* The same bytes as a GLIBC_TUNABLES value, an ExecStart= value and a
	 * time span. */
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	free(tunables_merge(s, 3));
	free(unit_wrap_exec(s, "/usr/sbin/mtag-launcher", "%n"));
	{
		/* ... as a unit file (config_parse's line joining), and as an
		 * ExecStart= value split into its commands. */
		static const char *const keys[] = { "ExecStart", "NoExecPaths" };
		struct unit_file_keys k;
		struct strv l = { 0 }, cmds;
		char *err = NULL;

		if (unit_text_parse("fuzz.service", (const char *)data, size, keys, 2, &k, &err) < 0 && !err)
			abort();
		free(err);
		unit_file_keys_apply(&k, 0, &l, NULL);
		for (size_t i = 0; i < l.n; i++)
			if (strchr(l.v[i], '\n') || !l.v[i][0] || l.v[i][0] == ' ')
				abort(); /* one stripped, non-empty line each */
		strv_free(&l);
		unit_file_keys_free(&k);
		unit_exec_split(s, &cmds);
		for (size_t i = 0; i < cmds.n; i++)
			if (!cmds.v[i][0] || strcmp(cmds.v[i], ";") == 0)
				abort();
		strv_free(&cmds);
	}
	(void)unit_exec_runs(s, "/usr/sbin/mtag-launcher");
	{
		/* ... and as a reenable= value: what parses prints back to
		 * the same number of nanoseconds. */
		uint64_t ns, back;
		const char *why;
		char buf[128];

		if (duration_parse(s, &ns, &why) == 0) {
			duration_format(ns, buf, sizeof(buf));
			for (char *c = buf; *c; c++)
				if (*c == ' ')
					memmove(c, c + 1, strlen(c));
			if (ns != 0 && (duration_parse(buf, &back, &why) != 0 || back != ns))
				abort();
		} else if (!why) {
			abort();
		}
	}
	free(s);
	return 0;
}
