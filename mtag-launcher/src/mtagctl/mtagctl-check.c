/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-check.c -- "check" and "apply-cpu-preferred" (admin.c). */
#include "admin.h"
#include "mtagctl.h"

int verb_check(const struct ctl *c)
{
	struct conf_opts co = { .root = c->root, .single = c->config };

	return admin_check(&co) ? EXIT_FAILURE : EXIT_SUCCESS;
}

int verb_apply_cpu_preferred(const struct ctl *c)
{
	struct conf_opts co = { .root = c->root, .single = c->config };
	int r = admin_apply_cpu_preferred(&co, c->strict);

	return r == 0 ? EXIT_SUCCESS : r == EXIT_CONFIG ? EXIT_CONFIG : EXIT_INVALIDARGUMENT;
}
