/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-bugs.h -- "mtagctl bugs": the faults grouped by their bug
 * signature (bugid.h), one line per bug, the bug on most hosts first.
 * The rows are made from journal entries (mtagctl-bugs.c, the verb) and
 * printed from one column list (mtagctl-bugcols.c, no journal: unit
 * tested): the table through libsmartcols, the JSON objects (as
 * mtagctl-columns.c does for status). */
#ifndef MTAG_MTAGCTL_BUGS_H
#define MTAG_MTAGCTL_BUGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <stdbool.h>
#include <systemd/sd-journal.h>

#include "bugid.h"
#include "mtagctl.h"

struct bug_host {
	char machine_id[33];      /* _MACHINE_ID ("" none) */
	char hostname[256];       /* its _HOSTNAME, the latest seen */
};

#include "strmap.h"

struct bug_row {
	char signature[BUG_SIGNATURE_LEN + 1];
	char cause[32];           /* bug_cause_class() of MTAG_CAUSE, "async" */
	bool coarse;              /* an async fault's signature: the program,
	                             not the instruction (bugid.h) */
	char object[1024];        /* MTAG_OBJECT (escaped by mtag-faultd) */
	char offset[24];          /* MTAG_OFFSET */
	char build_id[2 * BUG_BUILD_ID_MAX + 1];
	char package[256], version[128];
	uint64_t count, first_usec, last_usec;
	struct bug_host *hosts;
	size_t n_hosts, cap_hosts;
	struct strmap host_index; /* machine ID -> index in hosts + 1 */
	char **units;
	size_t n_units, cap_units;
	char **stacks;            /* the stack signatures of its faults' cores */
	size_t n_stacks, cap_stacks;
};

/* The rows, and an index by signature: a fleet's journals hold many
 * faults, and adding one costs the same however many bugs and hosts
 * there are. */
struct bug_set {
	struct bug_row *rows;
	size_t n, cap;
	struct strmap index;      /* signature -> index in rows + 1 */
};

/* Add one fault to S: its row by SIGNATURE, created when new.  The
 * strings are the entry's fields ("" missing). */
struct bug_fault {
	const char *signature, *cause, *object, *offset, *build_id, *package, *version;
	const char *machine_id, *hostname, *unit;
	uint64_t usec;
	bool coarse;              /* MTAG_SIGNATURE_KIND=coarse */
};
void bug_set_add(struct bug_set *s, const struct bug_fault *f);
/* A stack signature (MSGID_FAULT_FRAMES' MTAG_STACK_SIGNATURE) of a
 * fault of SIGNATURE's row, if S has that row (before bug_set_sort()). */
void bug_set_add_stack(struct bug_set *s, const char *signature, const char *stack);

/* Most hosts first, then most faults, then the latest, then by
 * signature (the index is dropped: no adding after this). */
void bug_set_sort(struct bug_set *s);
void bug_set_free(struct bug_set *s);

/* The table (header unless --no-legend; control bytes escaped by
 * libsmartcols) or, with C->json, a JSON array of objects: every column's
 * key and value.  0 or -errno. */
int bug_table_print(const struct ctl *c, FILE *out, const struct bug_row *rows, size_t n);
void bug_json_print(const struct ctl *c, FILE *out, const struct bug_row *rows, size_t n);

/* Whether the current entry of J is mtag-faultd's: trust.h's rule
 * (sd_ctl_trusted(JW_FAULTD)) and jwriter_names_faultd(), so that a
 * forged entry neither joins a bug nor shows as a fault. */
bool ctl_from_faultd(sd_journal *j);

/* The verb: the journals as "mtagctl faults" reads them (C->directory,
 * files, merge; --unit, --since, --until; -n N: the first N bugs).
 * EXIT_SUCCESS, EXIT_FAILURE when no fault has a signature. */
int verb_bugs(const struct ctl *c);

#endif
