/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-bugcols.c -- the rows and columns of "mtagctl bugs" (see
 * mtagctl-bugs.h): one list of columns makes the table (libsmartcols,
 * as mtagctl-columns.c does for status) and the JSON objects. */
#include "mtagctl-bugs.h"

#include <errno.h>
#include <stdint.h>
#include <inttypes.h>
#include <libsmartcols.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "util.h"

/* --- rows --------------------------------------------------------------- */

static void set(char *dst, size_t len, const char *s)
{
	if (!dst[0] && s && *s)
		snprintf(dst, len, "%s", s);
}

/* A bug is in few units, has few stacks: a list, each string once. */
static void list_add(char ***v, size_t *n, size_t *cap, const char *str)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i], str) == 0)
			return;
	grow_array((void **)v, cap, *n + 1, sizeof(**v));
	(*v)[(*n)++] = xstrdup(str);
}

void bug_set_add(struct bug_set *s, const struct bug_fault *f)
{
	const char *mid = f->machine_id ? f->machine_id : "";
	void **slot = strmap_slot(&s->index, f->signature);
	struct bug_row *r;
	size_t i;

	if (!*slot) {
		grow_array((void **)&s->rows, &s->cap, s->n + 1, sizeof(*s->rows));
		r = &s->rows[s->n++];
		memset(r, 0, sizeof(*r));
		snprintf(r->signature, sizeof(r->signature), "%s", f->signature);
		snprintf(r->cause, sizeof(r->cause), "%s", f->coarse ? "async" : bug_cause_class(f->cause));
		r->coarse = f->coarse;
		r->first_usec = UINT64_MAX;
		*slot = (void *)(uintptr_t)s->n;
	}
	r = &s->rows[(uintptr_t)*slot - 1];
	/* The signature covers the build-id, cause and offset: the first
	 * entry's object, package and version stand for all of them. */
	set(r->object, sizeof(r->object), f->object);
	set(r->offset, sizeof(r->offset), f->offset);
	set(r->build_id, sizeof(r->build_id), f->build_id);
	if (!r->package[0] && f->package && *f->package) {
		set(r->package, sizeof(r->package), f->package);
		set(r->version, sizeof(r->version), f->version);
	}
	r->count++;
	if (f->usec < r->first_usec)
		r->first_usec = f->usec;
	if (f->usec > r->last_usec)
		r->last_usec = f->usec;
	slot = strmap_slot(&r->host_index, mid);
	if (!*slot) {
		grow_array((void **)&r->hosts, &r->cap_hosts, r->n_hosts + 1, sizeof(*r->hosts));
		memset(&r->hosts[r->n_hosts], 0, sizeof(r->hosts[0]));
		snprintf(r->hosts[r->n_hosts].machine_id, sizeof(r->hosts[0].machine_id), "%s", mid);
		*slot = (void *)(uintptr_t)++r->n_hosts;
	}
	i = (uintptr_t)*slot - 1;
	if (f->hostname && *f->hostname)
		snprintf(r->hosts[i].hostname, sizeof(r->hosts[i].hostname), "%s", f->hostname);
	if (f->unit && *f->unit)
		list_add(&r->units, &r->n_units, &r->cap_units, f->unit);
}

void bug_set_add_stack(struct bug_set *s, const char *signature, const char *stack)
{
	uintptr_t i = (uintptr_t)strmap_get(&s->index, signature);
	struct bug_row *r;

	if (!i || !stack || !*stack)
		return;
	r = &s->rows[i - 1];
	list_add(&r->stacks, &r->n_stacks, &r->cap_stacks, stack);
}

static int row_cmp(const void *a, const void *b)
{
	const struct bug_row *x = a, *y = b;

	if (x->n_hosts != y->n_hosts)
		return x->n_hosts > y->n_hosts ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->last_usec != y->last_usec)
		return x->last_usec > y->last_usec ? -1 : 1;
	return strcmp(x->signature, y->signature);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int host_cmp(const void *a, const void *b)
{
	const struct bug_host *x = a, *y = b;
	int r = strcmp(x->hostname, y->hostname);

	return r ? r : strcmp(x->machine_id, y->machine_id);
}

void bug_set_sort(struct bug_set *s)
{
	struct bug_row *rows = s->rows;

	strmap_free(&s->index, NULL);
	for (size_t i = 0; i < s->n; i++) {
		strmap_free(&rows[i].host_index, NULL);
		if (rows[i].n_units)
			qsort(rows[i].units, rows[i].n_units, sizeof(*rows[i].units), str_cmp);
		if (rows[i].n_stacks)
			qsort(rows[i].stacks, rows[i].n_stacks, sizeof(*rows[i].stacks), str_cmp);
		if (rows[i].n_hosts)
			qsort(rows[i].hosts, rows[i].n_hosts, sizeof(*rows[i].hosts), host_cmp);
	}
	if (s->n)
		qsort(rows, s->n, sizeof(*rows), row_cmp);
}

void bug_set_free(struct bug_set *s)
{
	strmap_free(&s->index, NULL);
	for (size_t i = 0; i < s->n; i++) {
		strmap_free(&s->rows[i].host_index, NULL);
		for (size_t k = 0; k < s->rows[i].n_units; k++)
			free(s->rows[i].units[k]);
		free(s->rows[i].units);
		for (size_t k = 0; k < s->rows[i].n_stacks; k++)
			free(s->rows[i].stacks[k]);
		free(s->rows[i].stacks);
		free(s->rows[i].hosts);
	}
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

/* --- columns -------------------------------------------------------------- */

/* As mtagctl faults prints a time (and --since takes it back). */
static void time_text(uint64_t usec, char *buf, size_t len)
{
	time_t t = (time_t)(usec / 1000000);
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, len, "%a %Y-%m-%d %H:%M:%S %Z", &tm))
		snprintf(buf, len, "@%" PRIu64, usec / 1000000);
}

static void sig_text(const struct bug_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->signature);
}

static void sig_json(struct json *w, const struct bug_row *r)
{
	json_string(w, r->signature);
}

static void hosts_text(const struct bug_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%zu", r->n_hosts);
}

static void hosts_json(struct json *w, const struct bug_row *r)
{
	json_uint(w, r->n_hosts);
}

static void count_text(const struct bug_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64, r->count);
}

static void count_json(struct json *w, const struct bug_row *r)
{
	json_uint(w, r->count);
}

static void cause_text(const struct bug_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->cause);
}

static void cause_json(struct json *w, const struct bug_row *r)
{
	json_string(w, r->cause);
}

static void units_text(const struct bug_row *r, char *buf, size_t len)
{
	size_t l = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < r->n_units && l + 1 < len; i++)
		l += (size_t)snprintf(buf + l, len - l, "%s%s", i ? "," : "", r->units[i]);
	if (!r->n_units)
		snprintf(buf, len, "-");
}

static void strings_json(struct json *w, char *const *v, size_t n)
{
	json_begin_array(w);
	for (size_t i = 0; i < n; i++)
		json_string(w, v[i]);
	json_end_array(w);
}

static void units_json(struct json *w, const struct bug_row *r)
{
	strings_json(w, r->units, r->n_units);
}

static void stacks_text(const struct bug_row *r, char *buf, size_t len)
{
	if (r->n_stacks)
		snprintf(buf, len, "%zu", r->n_stacks);
	else
		snprintf(buf, len, "-");
}

static void stacks_json(struct json *w, const struct bug_row *r)
{
	strings_json(w, r->stacks, r->n_stacks);
}

static void first_text(const struct bug_row *r, char *buf, size_t len)
{
	time_text(r->first_usec, buf, len);
}

static void first_json(struct json *w, const struct bug_row *r)
{
	json_uint(w, r->first_usec);
}

static void last_text(const struct bug_row *r, char *buf, size_t len)
{
	time_text(r->last_usec, buf, len);
}

static void last_json(struct json *w, const struct bug_row *r)
{
	json_uint(w, r->last_usec);
}

static void package_text(const struct bug_row *r, char *buf, size_t len)
{
	if (r->package[0])
		snprintf(buf, len, "%s %s", r->package, r->version[0] ? r->version : "?");
	else
		snprintf(buf, len, "-");
}

static void package_json(struct json *w, const struct bug_row *r)
{
	json_string(w, r->package[0] ? r->package : NULL);
}

static void version_json(struct json *w, const struct bug_row *r)
{
	json_string(w, r->package[0] && r->version[0] ? r->version : NULL);
}

static void object_text(const struct bug_row *r, char *buf, size_t len)
{
	if (r->coarse)
		snprintf(buf, len, "%s (no pc: coarse)", r->object[0] ? r->object : "?");
	else
		snprintf(buf, len, "%s+%s", r->object[0] ? r->object : "?", r->offset[0] ? r->offset : "?");
}

static void object_json(struct json *w, const struct bug_row *r)
{
	json_string(w, r->object[0] ? r->object : NULL);
}

static void offset_json(struct json *w, const struct bug_row *r)
{
	json_string(w, r->offset[0] && !r->coarse ? r->offset : NULL);
}

static void coarse_json(struct json *w, const struct bug_row *r)
{
	json_bool(w, r->coarse);
}

static void build_id_json(struct json *w, const struct bug_row *r)
{
	json_string(w, r->build_id[0] ? r->build_id : NULL);
}

static void hostnames_text(const struct bug_row *r, char *buf, size_t len)
{
	size_t l = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < r->n_hosts && l + 1 < len; i++)
		l += (size_t)snprintf(buf + l, len - l, "%s%s", i ? "," : "",
				      r->hosts[i].hostname[0] ? r->hosts[i].hostname : "?");
}

static void host_list_json(struct json *w, const struct bug_row *r)
{
	json_begin_array(w);
	for (size_t i = 0; i < r->n_hosts; i++) {
		json_begin_object(w);
		json_kv_string(w, "hostname", r->hosts[i].hostname[0] ? r->hosts[i].hostname : NULL);
		json_kv_string(w, "machine_id", r->hosts[i].machine_id[0] ? r->hosts[i].machine_id : NULL);
		json_end_object(w);
	}
	json_end_array(w);
}

struct bug_column {
	const char *header;   /* the table's header; NULL: in the JSON only */
	int flags;            /* SCOLS_FL_* */
	const char *key;      /* the JSON key */
	void (*text)(const struct bug_row *r, char *buf, size_t len);
	void (*json)(struct json *w, const struct bug_row *r);
};

static const struct bug_column columns[] = {
	{ "SIGNATURE", 0, "signature", sig_text, sig_json },
	{ "HOSTS", SCOLS_FL_RIGHT, "hosts", hosts_text, hosts_json },
	{ "FAULTS", SCOLS_FL_RIGHT, "faults", count_text, count_json },
	{ "CAUSE", 0, "cause", cause_text, cause_json },
	{ "STACKS", SCOLS_FL_RIGHT, "stack_signatures", stacks_text, stacks_json },
	{ "UNITS", 0, "units", units_text, units_json },
	{ "FIRST", 0, "first_usec", first_text, first_json },
	{ "LAST", 0, "last_usec", last_text, last_json },
	{ "PACKAGE", 0, "package", package_text, package_json },
	{ NULL, 0, "version", NULL, version_json },
	{ "OBJECT", 0, "object", object_text, object_json },
	{ NULL, 0, "offset", NULL, offset_json },
	{ NULL, 0, "build_id", NULL, build_id_json },
	{ NULL, 0, "coarse", NULL, coarse_json },
	{ "HOSTNAMES", 0, "host_list", hostnames_text, host_list_json },
};
#define N_COLUMNS (sizeof(columns) / sizeof(columns[0]))
#define CELL_MAX 4096

void bug_json_print(const struct ctl *c, FILE *out, const struct bug_row *rows, size_t n)
{
	struct json w;

	json_init(&w, out, c->json_pretty);
	json_begin_array(&w);
	for (size_t i = 0; i < n; i++) {
		json_begin_object(&w);
		for (size_t k = 0; k < N_COLUMNS; k++) {
			json_key(&w, columns[k].key);
			columns[k].json(&w, &rows[i]);
		}
		json_end_object(&w);
	}
	json_end_array(&w);
	json_finish(&w);
}

int bug_table_print(const struct ctl *c, FILE *out, const struct bug_row *rows, size_t n)
{
	struct libscols_table *tb = scols_new_table();
	char *cell = xmalloc(CELL_MAX);
	int r = 0;

	if (!tb) {
		free(cell);
		return -ENOMEM;
	}
	scols_table_set_stream(tb, out);
	scols_table_set_column_separator(tb, "  ");
	scols_table_enable_colors(tb, c->color);
	scols_table_enable_noheadings(tb, c->no_legend);
	for (size_t k = 0; k < N_COLUMNS && !r; k++) {
		struct libscols_column *cl;

		if (!columns[k].header)
			continue;
		cl = scols_table_new_column(tb, columns[k].header, 0, columns[k].flags);
		if (!cl)
			r = -ENOMEM;
		else if (c->color && scols_cell_set_color(scols_column_get_header(cl), ANSI_BOLD) < 0)
			r = -ENOMEM;
	}
	for (size_t i = 0; i < n && !r; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		size_t col = 0;

		if (!ln) {
			r = -ENOMEM;
			break;
		}
		for (size_t k = 0; k < N_COLUMNS && !r; k++) {
			if (!columns[k].header)
				continue;
			columns[k].text(&rows[i], cell, CELL_MAX);
			if (scols_line_set_data(ln, col++, cell) < 0)
				r = -ENOMEM;
		}
	}
	if (!r && n == 0 && !c->no_legend) {
		/* libsmartcols prints nothing for a table without lines. */
		fputs(ctl_color(c, ANSI_BOLD), out);
		for (size_t k = 0, col = 0; k < N_COLUMNS; k++)
			if (columns[k].header)
				fprintf(out, "%s%s", col++ ? "  " : "", columns[k].header);
		fprintf(out, "%s\n", ctl_color(c, ANSI_RESET));
	} else if (!r && n && scols_print_table(tb) < 0) {
		r = -EIO;
	}
	scols_unref_table(tb);
	free(cell);
	return r;
}
