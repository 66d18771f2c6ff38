/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unitmap.h -- systemd's unit name map, built the way systemd builds it
 * (unit_file_build_name_map, unit_file_find_fragment and
 * unit_file_find_dropin_paths): one readdir pass over each directory of
 * the search path gives every unit name -> its fragment or alias target
 * (earlier directories win, /dev/null and empty files mask), the
 * reverse alias map and the set of NAME.d directories; drop-in
 * directories are listed once each.  No lookup opens or stats a file per
 * directory: the cost grows with the number of directories and of units
 * asked about, not with their product. */
#ifndef MTAG_UNITMAP_H
#define MTAG_UNITMAP_H

#include "dropins.h"
#include "strmap.h"
#include "strv.h"
#include "unitname.h"

enum unit_state { UNIT_NOT_FOUND, UNIT_FOUND, UNIT_MASKED };

struct unitmap {
	struct strv dirs;      /* the search path, highest priority first */
	struct strv real_dirs; /* the same through realpath(), when needed */
	struct strmap ids;     /* name -> fragment path (absolute) or alias target name */
	struct strmap rev;     /* fragment name -> struct strv * of the names that lead to it */
	struct strmap dotd;    /* "DIR/NAME.d" directories of the search path */
	struct strmap listed;  /* drop-in directory -> struct strv * of its *.conf names */
};

/* Read DIRS (copied) once each. */
void unitmap_build(struct unitmap *m, const struct strv *dirs);
void unitmap_free(struct unitmap *m);

/* Every unit name of the map that ends in SUFFIX (".service"), sorted. */
void unitmap_list(const struct unitmap *m, const char *suffix, struct strv *names);

struct unit_load {
	char *fragment;       /* the file systemd reads; NULL for a SysV unit */
	char *sysv;           /* a unit systemd-sysv-generator makes: its script */
	char *id;             /* the unit's own name (the fragment's, with the instance) */
	struct strv aliases;  /* its other names, sorted */
};

/* Find NAME's fragment and names as systemd does when it loads NAME (for
 * an instance, its template as fallback).  UNIT_MASKED for a fragment
 * that is /dev/null (or any device), empty, or a dangling link. */
enum unit_state unitmap_load(struct unitmap *m, const char *name, struct unit_load *u);
void unit_load_free(struct unit_load *u);

/* U's drop-ins (*.conf of ID.d, the template's, the prefixes' such as
 * foo-.service.d, the aliases', then service.d), in systemd's order: by
 * file name, a name in an earlier directory masking the same name in a
 * later one.  Files named SKIP are left out. */
void unitmap_dropins(struct unitmap *m, const struct unit_load *u, const char *skip,
		     struct dropins *out);

#endif
