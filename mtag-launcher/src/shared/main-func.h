/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main-func.h -- each program's main() as one line, as systemd's
 * src/shared/main-func.h has it: the program is a run() that returns an
 * exit status of exitcodes.h (or -errno, which exits EXIT_FAILURE), and
 * main() only passes it on.  Nothing else goes in main(). */
#ifndef MTAG_MAIN_FUNC_H
#define MTAG_MAIN_FUNC_H

#include <stdio.h>
#include <stdlib.h>

#include "exitcodes.h"
#include "log.h"

/* int IMPL(int argc, char **argv): an exit status, or -errno. */
#define DEFINE_MAIN_FUNCTION(impl)                       \
	int main(int argc, char **argv)                  \
	{                                                \
		int r_ = impl(argc, argv);               \
									 \
		return r_ < 0 ? EXIT_FAILURE : r_;       \
	}

/* A systemd generator (systemd.generator(7)), as systemd's
 * DEFINE_MAIN_GENERATOR_FUNCTION: messages to the kernel log when run by
 * systemd, one or three output directories, and
 * int IMPL(const char *normal, const char *early, const char *late)
 * (EARLY and LATE NULL when only one is given): 0 or -errno, which exits
 * EXIT_FAILURE as systemd's generators do. */
#define DEFINE_MAIN_GENERATOR_FUNCTION(prog, impl)                                   \
	int main(int argc, char **argv)                                              \
	{                                                                            \
		log_setup_generator(prog);                                           \
		if (argc != 2 && argc != 4) {                                        \
			fprintf(stderr, "usage: " prog " NORMAL-DIR [EARLY-DIR LATE-DIR]\n"); \
			return EXIT_FAILURE;                                         \
		}                                                                    \
		return impl(argv[1], argc > 2 ? argv[2] : NULL,                      \
			    argc > 2 ? argv[3] : NULL) < 0 ? EXIT_FAILURE : EXIT_SUCCESS; \
	}

#endif
