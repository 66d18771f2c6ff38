/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sysvinit.h -- the units systemd-sysv-generator makes from SysV init
 * scripts, found the way it finds them, so that a policy entry naming
 * such a unit (Debian's slapd.service, from /etc/init.d/slapd) reaches
 * it.  The generated unit runs "SCRIPT start"; a drop-in of ours in the
 * normal generator directory applies to it like to any other unit. */
#ifndef MTAG_SYSVINIT_H
#define MTAG_SYSVINIT_H

#include "strv.h"

/* The SysV script directories: $SYSTEMD_SYSVINIT_PATH (':'-separated)
 * when set, else /etc/init.d under ROOT.  OPEN[i] is where to read,
 * SHOWN[i] the same directory as the booted system names it. */
struct sysv_dirs {
	struct strv open, shown;
};
void sysv_paths(struct sysv_dirs *dirs, const char *root);
void sysv_dirs_free(struct sysv_dirs *dirs);

/* Is directory entry NAME of DIRFD a script systemd-sysv-generator turns
 * into a unit?  Then its unit name ("slapd.service" for "slapd" and
 * "slapd.sh"), malloc'ed; else NULL.  A hidden or backup file (".x",
 * "x~", "x.dpkg-old", ...) or anything but an executable regular file
 * is not. */
char *sysv_unit_name(int dirfd, const char *name);

/* The script UNIT would be made from: the first directory of DIRS that
 * has one (malloc'ed path, as the booted system names it), or NULL. */
char *sysv_script(const struct sysv_dirs *dirs, const char *unit);

/* The ExecStart= value of the unit made from SCRIPT ("SCRIPT start"). */
char *sysv_exec_start(const char *script);

/* Append the unit names of every script in DIRS to NAMES. */
void sysv_list(const struct sysv_dirs *dirs, struct strv *names);

#endif
