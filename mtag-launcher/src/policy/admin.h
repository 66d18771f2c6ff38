/* SPDX-License-Identifier: GPL-2.0-or-later */
/* admin.h -- admin actions shared by mtag-launcher and mtagctl. */
#ifndef MTAG_ADMIN_H
#define MTAG_ADMIN_H

#include <stdbool.h>

#include "conffiles.h"
#include "exitcodes.h"

/* Validate the policy files: every diagnostic as FILE:LINE: reason on
 * stderr, a summary on stdout.  Returns 0, or 1 if there are errors. */
int admin_check(const struct conf_opts *co);

/* Write the policy's cpu-preferred mode to every CPU's mte_tcf_preferred
 * (nothing without such an entry), logging what was done.  Returns 0, 1
 * if writing failed, or EXIT_CONFIG with STRICT and policy errors. */
int admin_apply_cpu_preferred(const struct conf_opts *co, bool strict);

#endif
