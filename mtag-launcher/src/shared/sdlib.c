/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sdlib.c -- dlopen() libsystemd on first use. */
#include "sdlib.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <systemd/sd-journal.h>
#include <systemd/sd-login.h>

#define LIBSYSTEMD "libsystemd.so.0"

/* The pointer types must match the headers' prototypes (checked without
 * referring to the symbols: _Generic does not evaluate its operand). */
_Static_assert(_Generic(&sd_pid_get_unit, int (*)(pid_t, char **): 1, default: 0),
	       "sd_pid_get_unit prototype");
_Static_assert(_Generic(&sd_journal_send, int (*)(const char *, ...): 1, default: 0),
	       "sd_journal_send prototype");

const struct sdlib *sdlib(void)
{
	static struct sdlib lib;
	static bool tried, ok;
	void *h;

	if (tried)
		return ok ? &lib : NULL;
	tried = true;
	h = dlopen(LIBSYSTEMD, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "mtag-launcher: warning: cannot load %s: %s\n", LIBSYSTEMD, dlerror());
		return NULL;
	}
	lib.pid_get_unit = (int (*)(pid_t, char **))dlsym(h, "sd_pid_get_unit");
	lib.journal_send = (int (*)(const char *, ...))dlsym(h, "sd_journal_send");
	ok = lib.pid_get_unit && lib.journal_send;
	if (!ok)
		fprintf(stderr, "mtag-launcher: warning: %s lacks sd_pid_get_unit or sd_journal_send\n", LIBSYSTEMD);
	return ok ? &lib : NULL;
}
