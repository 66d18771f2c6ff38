/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-bugs.c -- "mtagctl bugs": mtag-faultd's fault entries grouped by
 * MTAG_SIGNATURE (bugid.h), over the journals "mtagctl faults" reads
 * (this machine's, -D DIR, --file FILE, -m), hosts told apart by
 * _MACHINE_ID.  See mtagctl-bugs.h, mtagctl(8) and docs/fleet.md. */
#include "mtagctl-bugs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <systemd/sd-journal.h>

#include "faultfields.h"
#include "log.h"
#include "mtagctl-sd.h"
#include "util.h"

bool ctl_from_faultd(sd_journal *j)
{
	struct jentry *c;
	bool ok;

	if (!sd_ctl_trusted(j, JW_FAULTD, NULL))
		return false;
	c = sd_ctl_entry(j);
	ok = jwriter_names_faultd(jentry_field, c);
	free(c);
	return ok;
}

static bool is_signature(const char *s)
{
	return strlen(s) == BUG_SIGNATURE_LEN && strspn(s, "0123456789abcdef") == BUG_SIGNATURE_LEN;
}

/* The stack signatures mtag-faultd wrote from the cores of the faults
 * (MSGID_FAULT_FRAMES), each under its fault's row. */
static void add_stacks(const struct ctl *c, struct bug_set *set)
{
	char sig[64], stack[64];
	sd_journal *j;
	uint64_t u;

	if (!set->n || fault_journal_open(c, &j) < 0)
		return;
	fault_journal_match_id(c, j, MSGID_FAULT_FRAMES);
	if (c->has_since)
		sd_journal_seek_realtime_usec(j, c->since_usec);
	while (sd_journal_next(j) > 0) {
		if (sd_journal_get_realtime_usec(j, &u) < 0 || (c->has_since && u < c->since_usec))
			continue;
		if (!ctl_from_faultd(j))
			continue;
		sd_ctl_field(j, "MTAG_SIGNATURE", sig, sizeof(sig));
		sd_ctl_field(j, "MTAG_STACK_SIGNATURE", stack, sizeof(stack));
		if (is_signature(sig) && is_signature(stack))
			bug_set_add_stack(set, sig, stack);
	}
	sd_journal_close(j);
}

int verb_bugs(const struct ctl *c)
{
	struct bug_set set = { 0 };
	size_t n, shown;
	unsigned long unsigned_faults = 0, untrusted = 0, total = 0, coarse = 0;
	sd_journal *j;
	uint64_t u;
	int e;
	struct {
		char sig[64], kind[16], cause[32], object[1024], offset[24], build_id[160], package[256],
		     version[128], machine_id[64], hostname[256], unit[256];
	} *f = xmalloc(sizeof(*f));

	e = fault_journal_open(c, &j);
	if (e < 0) {
		free(f);
		return EXIT_INVALIDARGUMENT;
	}
	fault_journal_match(c, j);
	if (c->has_since)
		sd_journal_seek_realtime_usec(j, c->since_usec);
	else
		sd_journal_seek_head(j);
	while ((e = sd_journal_next(j)) > 0) {
		struct bug_fault bf;

		if (sd_journal_get_realtime_usec(j, &u) < 0)
			continue;
		if (c->has_since && u < c->since_usec)
			continue;
		if (c->has_until && u > c->until_usec)
			break;
		if (!ctl_from_faultd(j)) {
			untrusted++;
			continue;
		}
		total++;
		sd_ctl_field(j, "MTAG_SIGNATURE", f->sig, sizeof(f->sig));
		if (!is_signature(f->sig)) {
			unsigned_faults++;
			continue;
		}
		sd_ctl_field(j, "MTAG_SIGNATURE_KIND", f->kind, sizeof(f->kind));
		sd_ctl_field(j, "MTAG_CAUSE", f->cause, sizeof(f->cause));
		sd_ctl_field(j, "MTAG_OBJECT", f->object, sizeof(f->object));
		sd_ctl_field(j, "MTAG_OFFSET", f->offset, sizeof(f->offset));
		sd_ctl_field(j, "MTAG_BUILD_ID", f->build_id, sizeof(f->build_id));
		sd_ctl_field(j, "MTAG_PACKAGE", f->package, sizeof(f->package));
		sd_ctl_field(j, "MTAG_PACKAGE_VERSION", f->version, sizeof(f->version));
		/* The host: journald's fields, never the entry's own. */
		sd_ctl_field(j, "_MACHINE_ID", f->machine_id, sizeof(f->machine_id));
		sd_ctl_field(j, "_HOSTNAME", f->hostname, sizeof(f->hostname));
		sd_ctl_field(j, "MTAG_UNIT", f->unit, sizeof(f->unit));
		bf = (struct bug_fault){
			.signature = f->sig, .cause = f->cause, .object = f->object, .offset = f->offset,
			.build_id = f->build_id, .package = f->package, .version = f->version,
			.machine_id = f->machine_id, .hostname = f->hostname, .unit = f->unit, .usec = u,
			.coarse = strcmp(f->kind, "coarse") == 0,
		};
		coarse += bf.coarse;
		bug_set_add(&set, &bf);
	}
	if (e < 0)
		log_msg(LOG_WARNING, NULL, "reading the journal: %s (the list may be short)", strerror(-e));
	sd_journal_close(j);
	add_stacks(c, &set);
	free(f);
	bug_set_sort(&set);
	n = set.n;
	/* -n N: the first N bugs. */
	shown = c->lines >= 0 && (size_t)c->lines < n ? (size_t)c->lines : n;
	pager_open(c);
	if (c->json) {
		bug_json_print(c, stdout, set.rows, shown);
	} else {
		e = bug_table_print(c, stdout, set.rows, shown);
		if (e < 0)
			log_msg(LOG_ERR, NULL, "cannot print the table: %s", strerror(-e));
		if (!c->no_legend) {
			printf("\n%zu bug%s in %lu fault%s", n, n == 1 ? "" : "s", total, total == 1 ? "" : "s");
			if (shown < n)
				printf(" (the first %zu shown)", shown);
			if (coarse)
				printf("; %lu async (no pc: one line per program build, not per bug)", coarse);
			if (unsigned_faults)
				printf("; %lu without a signature (the process was gone before mtag-faultd read its maps: mtagctl faults shows them)",
				       unsigned_faults);
			if (untrusted)
				printf("; %lu entr%s not written by mtag-faultd ignored", untrusted,
				       untrusted == 1 ? "y" : "ies");
			printf(".\n");
		}
	}
	bug_set_free(&set);
	return n ? EXIT_SUCCESS : EXIT_FAILURE;
}
