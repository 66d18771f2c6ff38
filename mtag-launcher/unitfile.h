/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unitfile.h -- just enough of systemd's unit loading for the generator:
 * the search path, a unit's fragment and drop-ins, its effective
 * ExecStart, and how to wrap one ExecStart in mtag-launcher. */
#ifndef MTAG_UNITFILE_H
#define MTAG_UNITFILE_H

#include <stdbool.h>
#include <stddef.h>

struct strv {
	char **v;
	size_t n, cap;
};
void strv_push(struct strv *s, char *owned);
void strv_free(struct strv *s);

/* The system unit search path, highest priority first: $SYSTEMD_UNIT_PATH
 * when set (a trailing ':' appends the defaults), else systemd's defaults,
 * each prefixed by ROOT.  Generator output directories are left out. */
void unit_paths(struct strv *dirs, const char *root);

/* Every *.service file name (templates included) under DIRS, sorted,
 * without duplicates. */
void unit_list_services(const struct strv *dirs, struct strv *names);

enum unit_state { UNIT_NOT_FOUND, UNIT_FOUND, UNIT_MASKED };

/* Find the fragment for NAME (for an instance, its template as fallback).
 * *PATH gets the file read, *REAL the unit's own name when NAME is an
 * alias (symlink to another unit name), else NAME. */
enum unit_state unit_find(const struct strv *dirs, const char *name, char **path, char **real);

/* The effective ExecStart= values of unit REAL loaded from FRAGMENT with
 * its drop-ins (also those of ALIAS, which may be NULL), in order.  Drop-in
 * files named SKIP are ignored.  Returns 0, or -1 with *ERR set. */
int unit_exec_start(const struct strv *dirs, const char *fragment, const char *real,
		    const char *alias, const char *skip, struct strv *out, char **err);

/* The same for any [Service] KEY whose empty assignment resets the list
 * (NoExecPaths=, ...). */
int unit_service_values(const struct strv *dirs, const char *fragment, const char *real,
			const char *alias, const char *skip, const char *key, struct strv *out,
			char **err);

/* ExecStart= value running VALUE through LAUNCHER with its options ARGS
 * ("--unit=%n ...", already escaped for a unit file).  Keeps systemd's
 * prefixes (-, :, +, !, !!) in front and turns "@" into --argv0.  NULL
 * if VALUE cannot be parsed. */
char *unit_wrap_exec(const char *value, const char *launcher, const char *args);

/* Does VALUE already run LAUNCHER? */
bool unit_exec_runs(const char *value, const char *launcher);

#endif
