/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unitfile.h -- just enough of systemd's unit loading for the generator:
 * the search path, a unit's fragment and drop-ins, its effective
 * ExecStart, and how to wrap one ExecStart in mtag-launcher. */
#ifndef MTAG_UNITFILE_H
#define MTAG_UNITFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "strv.h"

/* The system unit search path, highest priority first: $SYSTEMD_UNIT_PATH
 * when set (a trailing ':' appends the defaults), else systemd's defaults,
 * each prefixed by ROOT.  Generator output directories are left out. */
void unit_paths(struct strv *dirs, const char *root);

/* The assignments of some [Service] keys in one unit file, in order. */
struct unit_assign {
	unsigned key; /* index into the KEYS asked for */
	char *value;  /* NULL: an empty assignment (resets the list) */
};
struct unit_file_keys {
	struct unit_assign *v;
	size_t n, cap;
};

/* Parse TEXT (LEN bytes, from file NAME) exactly as systemd's
 * config_parse joins and splits lines, collecting the [Service]
 * assignments of KEYS.  Returns 0, or -1 with *ERR ("NAME:LINE: ...") on
 * an invalid section header, where systemd stops reading the file (what
 * came before it stays in OUT). */
int unit_text_parse(const char *name, const char *text, size_t len, const char *const *keys,
		    size_t nkeys, struct unit_file_keys *out, char **err);
/* The same for file PATH: 1 (nothing read, *ERR says why) when PATH does
 * not exist or is not a regular file (a drop-in masked by /dev/null), -1
 * with *ERR when it cannot be read. */
int unit_file_parse(const char *path, const char *const *keys, size_t nkeys,
		    struct unit_file_keys *out, char **err);
void unit_file_keys_free(struct unit_file_keys *k);
/* Apply K's assignments of KEY to LIST (an empty one clears it and sets
 * *RESET).  Returns how many there were. */
size_t unit_file_keys_apply(const struct unit_file_keys *k, unsigned key, struct strv *list,
			    bool *reset);

struct unitmap;
struct unit_load;
struct strmap;

/* What the generator reads of a unit: fragment, then drop-ins. */
struct unit_values {
	struct strv exec_start;    /* the effective ExecStart= values */
	struct strv no_exec_paths; /* the effective NoExecPaths= */
	struct strv late_reset;    /* drop-ins sorting after SKIP that reset ExecStart= */
	struct strv late_add;      /* ... that add an ExecStart= without a reset */
};

/* Read unit U (found in M): its fragment, then its drop-ins without those
 * named SKIP.  Each file is parsed once per CACHE (free it with
 * unit_values_cache_free).  Returns 0, or -1 with *ERR when the fragment
 * cannot be read or has an invalid section header (systemd does not
 * load it). */
int unit_read_values(struct unitmap *m, struct strmap *cache, const struct unit_load *u,
		     const char *skip, struct unit_values *v, char **err);
void unit_values_free(struct unit_values *v);
void unit_values_cache_free(struct strmap *cache);

#endif
