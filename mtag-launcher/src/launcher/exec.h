/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exec.h -- replace this process with the service's command. */
#ifndef MTAG_EXEC_H
#define MTAG_EXEC_H

#include "exitcodes.h"

/* Exec ARGV[0] (searched in PATH when it has no '/') with ARGV; ARGV0, if
 * not NULL, is what the program sees as its argv[0].  Returns only on
 * failure, with the exit status to use, after logging why. */
int exec_command(char **argv, const char *argv0);

#endif
