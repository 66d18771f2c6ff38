/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-state.h -- what "status" reads about one service
 * (mtagctl-state.c): the policy, /proc, the cgroup, systemd, the journal. */
#ifndef MTAG_MTAGCTL_STATE_H
#define MTAG_MTAGCTL_STATE_H

#include <sys/types.h>

#include "mtagctl.h"
#include "mtagctl-verdict.h"
#include "policy.h"

/* The state of a service unit (loaded or not), or of the unit PID runs
 * in (PID != 0; UNIT may then be NULL). */
struct unit_info;
void svc_state_get(const struct ctl *c, const struct policy *p, const struct unit_info *u,
		   pid_t pid, struct svc_state *s);

#endif
