/* SPDX-License-Identifier: GPL-2.0-or-later */
/* admin.c -- "check" and "apply-cpu-preferred" (mtagctl; the latter also
 * as mtag-launcher --apply-cpu-preferred, which mtag-cpu-preferred.service
 * runs). */
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "admin.h"
#include "applied.h"
#include "log.h"
#include "mte.h"
#include "policy.h"

int admin_check(const struct conf_opts *co)
{
	struct policy p;
	unsigned files;
	size_t errors, warnings;

	policy_init(&p);
	files = conf_load(&p, co);
	for (size_t i = 0; i < p.n_diags; i++) {
		const struct diag *d = &p.diags[i];
		const char *w = d->level == DIAG_WARNING ? "warning: " : "";

		if (d->line)
			fprintf(stderr, "%s:%u: %s%s\n", d->file, d->line, w, d->msg);
		else
			fprintf(stderr, "%s: %s%s\n", d->file, w, d->msg);
	}
	errors = policy_error_count(&p);
	warnings = p.n_diags - errors;
	printf("%u file%s read, %zu entr%s, %zu error%s, %zu warning%s\n",
	       files, files == 1 ? "" : "s", p.n_entries, p.n_entries == 1 ? "y" : "ies",
	       errors, errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
	policy_free(&p);
	return errors ? EXIT_FAILURE : EXIT_SUCCESS;
}

int admin_apply_cpu_preferred(const struct conf_opts *co, bool strict)
{
	struct policy p;
	char errbuf[512] = "";
	int r, rc = EXIT_SUCCESS;

	policy_init(&p);
	conf_load(&p, co);
	for (size_t i = 0; i < p.n_diags; i++)
		log_diag(&p.diags[i]);
	if (strict && policy_error_count(&p)) {
		log_msg(LOG_ERR, MSGID_CONFIG, "the policy has errors and --strict was given");
		policy_free(&p);
		return EXIT_CONFIG;
	}
	if (!p.has_cpu_preferred) {
		log_msg(LOG_INFO, NULL, "no cpu-preferred entry in the policy: leaving the kernel's preferred mode alone");
		policy_free(&p);
		return EXIT_SUCCESS;
	}
	r = mte_set_cpu_preferred(SYSFS_CPU_DIR, mode_name(p.cpu_preferred), errbuf, sizeof(errbuf));
	if (r < 0) {
		log_msg(LOG_ERR, NULL, "%s:%u: cannot set the preferred mode %s: %s: %s",
			p.cpu_preferred_file, p.cpu_preferred_line, mode_name(p.cpu_preferred),
			errbuf, strerror(-r));
		rc = EXIT_FAILURE;
	} else {
		log_msg(LOG_INFO, NULL, "set mte_tcf_preferred to %s on %d CPU%s (from %s:%u)",
			mode_name(p.cpu_preferred), r, r == 1 ? "" : "s",
			p.cpu_preferred_file, p.cpu_preferred_line);
	}
	policy_free(&p);
	return rc;
}
