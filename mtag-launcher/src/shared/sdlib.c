/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sdlib.c -- dlopen() libsystemd on first use. */
#include "sdlib.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <syslog.h>
#include <systemd/sd-journal.h>
#include <systemd/sd-login.h>


#define LIBSYSTEMD "libsystemd.so.0"

/* The pointer types must match the headers' prototypes (checked without
 * referring to the symbols: _Generic does not evaluate its operand). */
_Static_assert(_Generic(&sd_pid_get_unit, int (*)(pid_t, char **): 1, default: 0),
	       "sd_pid_get_unit prototype");
_Static_assert(_Generic(&sd_journal_sendv, int (*)(const struct iovec *, int): 1, default: 0),
	       "sd_journal_sendv prototype");

static void warn_stderr(int priority, const char *text)
{
	(void)priority;
	fprintf(stderr, "%s\n", text);
}

static void (*sdlib_warn)(int priority, const char *text) = warn_stderr;

void sdlib_set_warn(void (*warn)(int priority, const char *text))
{
	sdlib_warn = warn ? warn : warn_stderr;
}

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
		char why[512];

		/* On stderr (log_msg() would ask this for the journal), under
		 * the name of the program that asked. */
		snprintf(why, sizeof(why), "cannot load %s: %s", LIBSYSTEMD, dlerror());
		sdlib_warn(LOG_WARNING, why);
		return NULL;
	}
	lib.pid_get_unit = (int (*)(pid_t, char **))dlsym(h, "sd_pid_get_unit");
	lib.journal_sendv = (int (*)(const struct iovec *, int))dlsym(h, "sd_journal_sendv");
	ok = lib.pid_get_unit && lib.journal_sendv;
	if (!ok)
		sdlib_warn(LOG_WARNING, LIBSYSTEMD " lacks sd_pid_get_unit or sd_journal_sendv");
	return ok ? &lib : NULL;
}
