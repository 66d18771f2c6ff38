/* SPDX-License-Identifier: GPL-2.0-or-later */
/* faultcount.h -- mtag-faultd's state file: the journal cursor of the last
 * kernel message it handled, and the counts of everything it handled up to
 * that message, this boot.  mtag-faultd writes it (write_file_replace():
 * the cursor and the counts change together or not at all), mtagctl
 * status --prometheus reads it for mtag_faults_total and
 * mtag_faults_suppressed_total: counters that only go up within a boot,
 * whatever journald vacuums.
 *
 * The text, one item a line, in this order ("#" lines are comments):
 *
 *   mtag-faultd-state 1
 *   boot 32 hex digits         the boot the counts are of (reset at another)
 *   cursor CURSOR              journal cursor (printable ASCII, no space)
 *   lines N                    kernel lines read
 *   unparsed N                 fault lines that did not parse
 *   unit UNIT KEY=N ...        per unit (a valid unit name, or "-" for
 *                              none): KEY a cause (mte_cause_name()) or
 *                              "suppressed"; keys not listed are 0
 *
 * Numbers are decimal, at most 2^63-1.  A reader trusts nothing of it: at
 * most FAULTCOUNT_MAX_BYTES are read, FAULTCOUNT_MAX_UNITS units kept, and
 * anything else is an error naming the line.
 */
#ifndef MTAG_FAULTCOUNT_H
#define MTAG_FAULTCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cause.h"

#define FAULTCOUNT_MAX_BYTES (4u << 20)
#define FAULTCOUNT_MAX_UNITS 16384
#define FAULTCOUNT_NCAUSES 5 /* enum mte_cause */
#define FAULTCOUNT_NO_UNIT "-"

struct faultcount_unit {
	char unit[256];                         /* "-": no unit */
	uint64_t by_cause[FAULTCOUNT_NCAUSES];  /* faults with a line */
	uint64_t suppressed;                    /* the kernel's "suppressed" counts */
};

struct faultcount {
	char boot[33];          /* "": none */
	char *cursor;           /* malloc'ed, NULL: none */
	uint64_t lines, unparsed;
	struct faultcount_unit *units;  /* in the order first seen */
	size_t n, cap;
};

void faultcount_init(struct faultcount *c);
void faultcount_free(struct faultcount *c);
/* Zero the counts and forget the cursor; BOOT becomes the boot. */
void faultcount_reset(struct faultcount *c, const char *boot);
void faultcount_set_cursor(struct faultcount *c, const char *cursor);

/* One fault of UNIT (NULL or "": none) with CAUSE (a mte_cause_name(); an
 * unknown word counts as "unknown"); N faults the kernel suppressed for
 * UNIT.  Counts saturate.  Past FAULTCOUNT_MAX_UNITS units a new unit is
 * counted as "-". */
void faultcount_add_fault(struct faultcount *c, const char *unit, const char *cause);
void faultcount_add_suppressed(struct faultcount *c, const char *unit, uint64_t n);

/* The unit's row, or NULL. */
const struct faultcount_unit *faultcount_find(const struct faultcount *c, const char *unit);
/* All faults of a row (every cause). */
uint64_t faultcount_unit_faults(const struct faultcount_unit *u);

/* The text of C (malloc'ed, NUL-terminated), *LEN its length. */
char *faultcount_format(const struct faultcount *c, size_t *len);
/* Parse TEXT (LEN bytes, no NUL needed) into C (initialized here: it
 * holds nothing before; faultcount_free() it after, whatever the result).  0, or
 * -EBADMSG with *LINE the 1-based line at fault and *WHY a phrase. */
int faultcount_parse(const char *text, size_t len, struct faultcount *c, size_t *line,
		     const char **why);

/* PATH: 1 and C loaded, 0 when there is no file, -errno (-EBADMSG: *LINE
 * and *WHY as faultcount_parse(); -EFBIG: larger than
 * FAULTCOUNT_MAX_BYTES). */
int faultcount_load(const char *path, struct faultcount *c, size_t *line, const char **why);
/* write_file_replace(PATH, mode 0644, DURABLE); 0 or -errno. */
int faultcount_save(const char *path, const struct faultcount *c, bool durable);

#endif
