/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exec.c -- the final execvp. */
#include "exec.h"

#include <errno.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "log.h"

int exec_command(char **argv, const char *argv0)
{
	const char *file = argv[0];
	int err;

	if (argv0)
		argv[0] = (char *)argv0;
	execvp(file, argv);
	err = errno;
	argv[0] = (char *)file;
	log_msg(LOG_ERR, NULL, "cannot run '%s': %s", file, strerror(err));
	return err == ENOENT ? EXIT_ENOENT : EXIT_CANNOT_INVOKE;
}
