/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exitcodes.h -- the exit statuses of mtag's programs, in one place (see
 * their man pages and docs/CONVENTIONS.md). */
#ifndef MTAG_EXITCODES_H
#define MTAG_EXITCODES_H

/* mtag-launcher: 0 and the service's own status once it runs; before it,
 * as env(1) and sysexits.h. */
#define EXIT_CONFIG 78          /* EX_CONFIG: the policy refuses to run it */
#define EXIT_USAGE 125          /* our own failure, as env(1) */
#define EXIT_CANNOT_INVOKE 126  /* found but could not be run, as env(1) */
#define EXIT_ENOENT 127         /* not found, as env(1) */

/* mtagctl (and EXIT_CONFIG: apply-cpu-preferred --strict). */
#define CTL_EXIT_OK 0
#define CTL_EXIT_NOTICE 1       /* status: a service is not as its policy asks;
				 * check: the policy has errors; faults: none */
#define CTL_EXIT_FAIL 2         /* usage, or a failure to read the system */

#endif
