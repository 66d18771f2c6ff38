/* SPDX-License-Identifier: GPL-2.0-or-later */
/* execstart.h -- ExecStart= values: split as systemd's config_parse_exec
 * does, quoted as it unquotes them, wrapped in mtag-launcher. */
#ifndef MTAG_EXECSTART_H
#define MTAG_EXECSTART_H

#include <stdbool.h>

#include "strv.h"

/* Split an ExecStart= VALUE into its commands at each lone unquoted ';'
 * word, as systemd's config_parse_exec does. */
void unit_exec_split(const char *value, struct strv *cmds);

/* ExecStart= value running VALUE through LAUNCHER with its options ARGS
 * ("--unit=%n ...", already escaped for a unit file).  Keeps systemd's
 * prefixes (-, :, +, !, !!) in front and turns "@" into --argv0.  NULL
 * if VALUE cannot be parsed. */
char *unit_wrap_exec(const char *value, const char *launcher, const char *args);

/* S as one word of an ExecStart= line that systemd hands the program
 * unchanged (quoted, escaped, specifiers and variables doubled). */
char *unit_exec_word(const char *s);

/* The words one command of an ExecStart= value (its prefixes -, @, :, +,
 * ! skipped) hands the program, as systemd gives them: quotes and
 * backslash escapes undone, "%%" and "$$" halved, "%n" the unit name UNIT;
 * other specifiers and variables are left as they are.  Into WORDS
 * (emptied first); false for an unterminated quote. */
bool unit_exec_words(const char *cmd, const char *unit, struct strv *words);

/* Does VALUE already run LAUNCHER? */
bool unit_exec_runs(const char *value, const char *launcher);

#endif
