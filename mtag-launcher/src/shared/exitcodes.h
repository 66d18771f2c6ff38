/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exitcodes.h -- the one set of exit statuses of mtag's four programs
 * (mtag-launcher, mtag-generator, mtagctl, mtag-faultd); their man pages
 * say which each one uses, docs/CONVENTIONS.md why.
 *
 * The values are systemd's (src/basic/exit-status.h), not sysexits.h's
 * alone: the programs are systemd services, a generator and a tool run
 * next to systemctl, so "systemctl status" names their statuses
 * (2 INVALIDARGUMENT, 78 CONFIG); systemd's set already holds BSD's
 * sysexits 64-78, so the launcher's EX_CONFIG stays; and sysexits alone
 * has no small "no" for a question's answer and would move the usage
 * errors mtagctl(8) and mtag-faultd(8) document as 2 to EX_USAGE (64).
 *
 * One family of exceptions, kept on purpose: mtag-launcher wraps a
 * command, as env(1), chroot(8), nice(1) and timeout(1) do, and
 * answers as they do (coreutils' EXIT_CANCELED, EXIT_CANNOT_INVOKE,
 * EXIT_ENOENT) so that a service's own 1 or 2 is never taken for the
 * wrapper's: its usage error is 125, not 2.
 *
 * EXIT_SUCCESS (0) and EXIT_FAILURE (1) are stdlib.h's. */
#ifndef MTAG_EXITCODES_H
#define MTAG_EXITCODES_H

#include <stdlib.h>

enum {
	/* LSB, systemd: bad usage.  mtag-faultd; mtagctl, which also
	 * exits with it when it cannot read the system (as grep(1) exits
	 * 2 for "trouble": its 1 means "no"). */
	EXIT_INVALIDARGUMENT = 2,
	/* BSD EX_CONFIG, systemd's "CONFIG": the policy forbids the start
	 * (mtag-launcher) or has errors (apply-cpu-preferred --strict). */
	EXIT_CONFIG = 78,
	/* mtag-launcher before the command runs, as env(1): its own
	 * failure (bad options, an internal error); the command found but
	 * not runnable; the command not found. */
	EXIT_CANCELED = 125,
	EXIT_CANNOT_INVOKE = 126,
	EXIT_ENOENT = 127,
};

/* How each program uses them:
 *   mtag-launcher   the command's own status once it runs; before it,
 *                   EXIT_CONFIG, EXIT_CANCELED, EXIT_CANNOT_INVOKE,
 *                   EXIT_ENOENT.
 *   mtag-generator  EXIT_SUCCESS, or EXIT_FAILURE for any failure (usage
 *                   too), as systemd's generators.
 *   mtagctl         a question answered: EXIT_SUCCESS yes, EXIT_FAILURE
 *                   no (status: not as asked; check: errors; faults:
 *                   none), as systemctl is-enabled and grep(1);
 *                   EXIT_INVALIDARGUMENT usage or the system unreadable;
 *                   EXIT_CONFIG apply-cpu-preferred --strict.
 *   mtag-faultd     EXIT_SUCCESS, EXIT_FAILURE (state or journal),
 *                   EXIT_INVALIDARGUMENT (usage). */

#endif
