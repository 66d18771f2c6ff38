/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-columns.c -- the columns of "mtagctl status" (see
 * mtagctl-columns.h).  A column with a header is in the table; every
 * column is in the JSON, in this order.  The table is libsmartcols's, as
 * in lsblk and findmnt: widths, right alignment, escaping of control
 * bytes, colours; the JSON is ours (json.c), because its values are typed
 * and nested (libsmartcols writes flat strings). */
#include "mtagctl-columns.h"

#include <errno.h>
#include <libsmartcols.h>
#include <stdio.h>
#include <string.h>

#include "cause.h"
#include "mtagctl-verdict.h"
#include "policy.h"

#define CELL_MAX 2600 /* the longest cell: "VERDICT: REASON" */

struct column {
	const char *header;   /* the table's header; NULL: in the JSON only */
	int flags;            /* SCOLS_FL_* */
	const char *key;      /* the JSON key */
	/* The table cell (only for a column with a header). */
	void (*text)(const struct svc_state *s, char *buf, size_t len);
	/* The JSON value after the key. */
	void (*json)(struct json *w, const struct svc_state *s);
	/* The cell's colour, or NULL. */
	const char *(*color)(const struct ctl *c, const struct svc_state *s);
};

void status_policy_text(const struct svc_state *s, char *buf, size_t len)
{
	if (!s->has_policy)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s%s (%s)", mode_name(s->mode), s->heap ? "" : " heap=off", s->source);
}

const char *status_verdict_color(const struct ctl *c, enum verdict v)
{
	switch (v) {
	case V_PROTECTED:
		return ctl_color(c, ANSI_GREEN);
	case V_REPORT_ONLY:
		return ctl_color(c, ANSI_YELLOW);
	case V_INACTIVE:
		return ctl_color(c, ANSI_GREY);
	case V_NOT_PROTECTED:
		break;
	}
	return ctl_color(c, ANSI_RED);
}

/* unit */
static void unit_text(const struct svc_state *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s", s->unit);
}

static void unit_json(struct json *w, const struct svc_state *s)
{
	json_string(w, s->unit);
}

/* active (JSON only) */
static void active_json(struct json *w, const struct svc_state *s)
{
	json_string(w, s->active);
}

/* policy */
static void policy_json(struct json *w, const struct svc_state *s)
{
	if (!s->has_policy) {
		json_null(w);
		return;
	}
	json_begin_object(w);
	json_kv_string(w, "mode", mode_name(s->mode));
	json_kv_bool(w, "heap", s->heap);
	json_kv_string(w, "source", s->source);
	json_kv_bool(w, "names_unit", s->named);
	json_end_object(w);
}

/* running */
static void running_text(const struct svc_state *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s", s->running);
}

static void running_json(struct json *w, const struct svc_state *s)
{
	json_begin_object(w);
	json_kv_string(w, "mode", s->running);
	json_kv_uint(w, "processes", s->procs);
	json_kv_uint(w, "threads", s->threads);
	json_kv_uint(w, "report_on_processes", s->report_on_procs);
	json_kv_uint(w, "threads_suspended", s->threads_suspended);
	json_key(w, "mode_origin");
	json_begin_object(w);
	json_kv_uint(w, "environment", s->origin_env);
	json_kv_uint(w, "kernel", s->origin_kernel);
	json_end_object(w);
	json_end_object(w);
}

/* heap: the share of malloc-able memory that is tagged */
static void heap_text(const struct svc_state *s, char *buf, size_t len)
{
	if (!s->procs || !s->malloc_kb)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%llu%%", s->mt_malloc_kb * 100 / s->malloc_kb);
}

static void heap_json(struct json *w, const struct svc_state *s)
{
	json_begin_object(w);
	json_kv_uint(w, "anonymous_kb", s->anon_kb);
	json_kv_uint(w, "tagged_kb", s->mt_anon_kb);
	json_kv_uint(w, "malloc_kb", s->malloc_kb);
	json_kv_uint(w, "malloc_tagged_kb", s->mt_malloc_kb);
	json_end_object(w);
}

/* faults of this boot */
static void faults_text(const struct svc_state *s, char *buf, size_t len)
{
	snprintf(buf, len, "%u", s->faults);
}

static void faults_json(struct json *w, const struct svc_state *s)
{
	json_begin_object(w);
	json_kv_uint(w, "total", s->faults);
	for (int k = 0; k < 5; k++)
		json_kv_uint(w, mte_cause_name((enum mte_cause)k), s->by_cause[k]);
	json_end_object(w);
}

/* verdict: in the table with its reason, in the JSON on its own */
static void verdict_text(const struct svc_state *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s: %s", verdict_name(s->verdict), s->reason);
}

static void verdict_json(struct json *w, const struct svc_state *s)
{
	json_string(w, verdict_name(s->verdict));
}

static const char *verdict_cell_color(const struct ctl *c, const struct svc_state *s)
{
	return status_verdict_color(c, s->verdict);
}

/* JSON only: upgraded starts this boot, the running upgrade's end, the
 * reason and whether the service runs as its policy asks. */
static void upgrades_json(struct json *w, const struct svc_state *s)
{
	json_uint(w, s->upgrades);
}

static void upgraded_until_json(struct json *w, const struct svc_state *s)
{
	if (s->upgraded_procs)
		json_uint(w, s->upgrade_until_usec);
	else
		json_null(w);
}

static void reason_json(struct json *w, const struct svc_state *s)
{
	json_string(w, s->reason);
}

static void as_asked_json(struct json *w, const struct svc_state *s)
{
	json_bool(w, s->as_asked);
}

/* JSON only: the package whose Debian build took the protection away
 * ("libc6", "libjemalloc2", "kernel"; null: none) and its version. */
static void lost_json(struct json *w, const struct svc_state *s)
{
	if (s->lost[0])
		json_string(w, s->lost);
	else
		json_null(w);
}

static void lost_version_json(struct json *w, const struct svc_state *s)
{
	if (s->lost[0])
		json_string(w, s->lost_version);
	else
		json_null(w);
}

static const struct column columns[] = {
	{ "UNIT", 0, "unit", unit_text, unit_json, NULL },
	{ NULL, 0, "active", NULL, active_json, NULL },
	{ "POLICY", 0, "policy", status_policy_text, policy_json, NULL },
	{ "RUNNING", 0, "running", running_text, running_json, NULL },
	{ "HEAP", SCOLS_FL_RIGHT, "heap", heap_text, heap_json, NULL },
	{ "FAULTS", SCOLS_FL_RIGHT, "faults", faults_text, faults_json, NULL },
	{ "VERDICT", 0, "verdict", verdict_text, verdict_json, verdict_cell_color },
	{ NULL, 0, "upgrades", NULL, upgrades_json, NULL },
	{ NULL, 0, "upgraded_until_usec", NULL, upgraded_until_json, NULL },
	{ NULL, 0, "reason", NULL, reason_json, NULL },
	{ NULL, 0, "as_asked", NULL, as_asked_json, NULL },
	{ NULL, 0, "lost_by", NULL, lost_json, NULL },
	{ NULL, 0, "lost_by_version", NULL, lost_version_json, NULL },
};
#define N_COLUMNS (sizeof(columns) / sizeof(columns[0]))

void status_json_row(struct json *w, const struct svc_state *s)
{
	json_begin_object(w);
	for (size_t i = 0; i < N_COLUMNS; i++) {
		json_key(w, columns[i].key);
		columns[i].json(w, s);
	}
	json_end_object(w);
}

/* The table's lines; the columns are made by the caller. */
static int add_lines(const struct ctl *c, struct libscols_table *tb,
		     const struct svc_state *rows, size_t n)
{
	static char cell[CELL_MAX];

	for (size_t i = 0; i < n; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		size_t k = 0;

		if (!ln)
			return -ENOMEM;
		for (size_t j = 0; j < N_COLUMNS; j++) {
			const struct column *col = &columns[j];

			if (!col->header)
				continue;
			col->text(&rows[i], cell, sizeof(cell));
			if (scols_line_set_data(ln, k, cell) < 0)
				return -ENOMEM;
			if (col->color && c->color &&
			    scols_cell_set_color(scols_line_get_cell(ln, k), col->color(c, &rows[i])) < 0)
				return -ENOMEM;
			k++;
		}
	}
	return 0;
}

int status_table_print(const struct ctl *c, FILE *out, const struct svc_state *rows, size_t n)
{
	struct libscols_table *tb = scols_new_table();
	unsigned prot = 0, rep = 0, not = 0;
	int r = 0;

	if (!tb)
		return -ENOMEM;
	scols_table_set_stream(tb, out);
	scols_table_set_column_separator(tb, "  ");
	scols_table_enable_colors(tb, c->color);
	scols_table_enable_noheadings(tb, c->no_legend);
	for (size_t j = 0; j < N_COLUMNS && !r; j++) {
		struct libscols_column *cl;

		if (!columns[j].header)
			continue;
		cl = scols_table_new_column(tb, columns[j].header, 0, columns[j].flags);
		if (!cl)
			r = -ENOMEM;
		else if (c->color && scols_cell_set_color(scols_column_get_header(cl), ANSI_BOLD) < 0)
			r = -ENOMEM;
	}
	if (!r)
		r = add_lines(c, tb, rows, n);
	if (!r && n == 0 && !c->no_legend) {
		/* libsmartcols prints nothing for a table without lines;
		 * the header says what the empty list is of. */
		fputs(ctl_color(c, ANSI_BOLD), out);
		for (size_t j = 0, k = 0; j < N_COLUMNS; j++)
			if (columns[j].header)
				fprintf(out, "%s%s", k++ ? "  " : "", columns[j].header);
		fprintf(out, "%s\n", ctl_color(c, ANSI_RESET));
	} else if (!r && scols_print_table(tb) < 0) {
		r = -EIO;
	}
	scols_unref_table(tb);
	if (r || c->no_legend)
		return r;
	for (size_t i = 0; i < n; i++) {
		prot += rows[i].verdict == V_PROTECTED;
		rep += rows[i].verdict == V_REPORT_ONLY;
		not += rows[i].verdict == V_NOT_PROTECTED;
	}
	fprintf(out, "\n%zu service%s listed: %u protected, %u report only, %u not protected.%s\n",
		n, n == 1 ? "" : "s", prot, rep, not,
		c->all ? "" : " (--all: every loaded service)");
	return 0;
}
