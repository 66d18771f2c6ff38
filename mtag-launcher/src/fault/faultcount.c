/* SPDX-License-Identifier: GPL-2.0-or-later */
/* faultcount.c -- mtag-faultd's state file: cursor and counts (see
 * faultcount.h). */
#include "faultcount.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgunit.h"
#include "fileio.h"
#include "span.h"
#include "util.h"

#define MAGIC "mtag-faultd-state 1"
#define COUNT_MAX ((uint64_t)INT64_MAX)
#define CURSOR_MAX 4096
#define LINE_MAX_LEN 8192

void faultcount_init(struct faultcount *c)
{
	memset(c, 0, sizeof(*c));
}

void faultcount_free(struct faultcount *c)
{
	free(c->cursor);
	free(c->units);
	faultcount_init(c);
}

void faultcount_reset(struct faultcount *c, const char *boot)
{
	faultcount_free(c);
	snprintf(c->boot, sizeof(c->boot), "%s", boot ? boot : "");
}

void faultcount_set_cursor(struct faultcount *c, const char *cursor)
{
	free(c->cursor);
	c->cursor = cursor ? xstrdup(cursor) : NULL;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > COUNT_MAX - (b > COUNT_MAX ? COUNT_MAX : b) ? COUNT_MAX : a + b;
}

const struct faultcount_unit *faultcount_find(const struct faultcount *c, const char *unit)
{
	if (!unit || !*unit)
		unit = FAULTCOUNT_NO_UNIT;
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->units[i].unit, unit) == 0)
			return &c->units[i];
	return NULL;
}

uint64_t faultcount_unit_faults(const struct faultcount_unit *u)
{
	uint64_t t = 0;

	for (int k = 0; k < FAULTCOUNT_NCAUSES; k++)
		t = sat_add(t, u->by_cause[k]);
	return t;
}

static bool unit_ok(const char *unit)
{
	return strcmp(unit, FAULTCOUNT_NO_UNIT) == 0 ||
	       (strlen(unit) < sizeof(((struct faultcount_unit *)0)->unit) &&
		unit_name_valid_n(unit, strlen(unit)));
}

/* The row of UNIT, added if new (NULL when the file's limit is hit). */
static struct faultcount_unit *row(struct faultcount *c, const char *unit)
{
	struct faultcount_unit *u;

	if (!unit || !*unit || !unit_ok(unit))
		unit = FAULTCOUNT_NO_UNIT;
	u = (struct faultcount_unit *)faultcount_find(c, unit);
	if (u)
		return u;
	/* The last row is kept for "-". */
	if (c->n >= FAULTCOUNT_MAX_UNITS ||
	    (c->n == FAULTCOUNT_MAX_UNITS - 1 && strcmp(unit, FAULTCOUNT_NO_UNIT) != 0))
		return NULL;
	grow_array((void **)&c->units, &c->cap, c->n + 1, sizeof(*c->units));
	u = &c->units[c->n++];
	memset(u, 0, sizeof(*u));
	snprintf(u->unit, sizeof(u->unit), "%s", unit);
	return u;
}

/* Past the limit a fault is counted all the same, without a unit. */
static struct faultcount_unit *row_or_none(struct faultcount *c, const char *unit)
{
	struct faultcount_unit *u = row(c, unit);

	return u ? u : row(c, FAULTCOUNT_NO_UNIT);
}

static int cause_index(const char *cause, size_t len)
{
	for (int k = 0; k < FAULTCOUNT_NCAUSES; k++) {
		const char *n = mte_cause_name((enum mte_cause)k);

		if (strlen(n) == len && memcmp(n, cause, len) == 0)
			return k;
	}
	return -1;
}

void faultcount_add_fault(struct faultcount *c, const char *unit, const char *cause)
{
	struct faultcount_unit *u = row_or_none(c, unit);
	int k = cause ? cause_index(cause, strlen(cause)) : -1;

	if (k < 0)
		k = MTE_CAUSE_UNKNOWN;
	u->by_cause[k] = sat_add(u->by_cause[k], 1);
}

void faultcount_add_suppressed(struct faultcount *c, const char *unit, uint64_t n)
{
	struct faultcount_unit *u = row_or_none(c, unit);

	u->suppressed = sat_add(u->suppressed, n);
}

char *faultcount_format(const struct faultcount *c, size_t *len)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	if (!f)
		abort();
	fprintf(f, MAGIC "\n# mtag-faultd(8): the counts up to the cursor, this boot; written atomically\n");
	if (c->boot[0])
		fprintf(f, "boot %s\n", c->boot);
	if (c->cursor)
		fprintf(f, "cursor %s\n", c->cursor);
	fprintf(f, "lines %" PRIu64 "\nunparsed %" PRIu64 "\n", c->lines, c->unparsed);
	for (size_t i = 0; i < c->n; i++) {
		const struct faultcount_unit *u = &c->units[i];

		fprintf(f, "unit %s", u->unit);
		for (int k = 0; k < FAULTCOUNT_NCAUSES; k++)
			if (u->by_cause[k])
				fprintf(f, " %s=%" PRIu64, mte_cause_name((enum mte_cause)k), u->by_cause[k]);
		if (u->suppressed)
			fprintf(f, " suppressed=%" PRIu64, u->suppressed);
		fputc('\n', f);
	}
	if (fclose(f) != 0)
		abort();
	if (len)
		*len = sz;
	return buf;
}

/* A decimal count, the whole of S. */
static bool count_of(struct span s, uint64_t *v)
{
	return span_dec(&s, v, COUNT_MAX) && s.n == 0;
}

/* Next space-separated word of S (none: n == 0). */
static struct span word(struct span *s)
{
	struct span w = { s->p, 0 };

	while (w.n < s->n && s->p[w.n] != ' ')
		w.n++;
	s->p += w.n;
	s->n -= w.n;
	if (s->n && s->p[0] == ' ') {
		s->p++;
		s->n--;
	}
	return w;
}

static bool span_is(struct span s, const char *lit)
{
	return s.n == strlen(lit) && memcmp(s.p, lit, s.n) == 0;
}

/* "unit UNIT KEY=N ..." after "unit ". */
static const char *parse_unit(struct span s, struct faultcount *c)
{
	struct span w = word(&s);
	struct faultcount_unit *u;
	char name[256];

	if (w.n == 0 || w.n >= sizeof(name) || memchr(w.p, '\0', w.n))
		return "a unit name is missing or too long";
	memcpy(name, w.p, w.n);
	name[w.n] = '\0';
	if (!unit_ok(name))
		return "not a valid unit name";
	if (faultcount_find(c, name))
		return "a unit listed twice";
	u = row(c, name);
	if (!u)
		return "too many units";
	while (s.n) {
		const char *eq;
		uint64_t v;
		int k;

		w = word(&s);
		eq = memchr(w.p, '=', w.n);
		if (!eq)
			return "KEY=N expected";
		if (!count_of((struct span){ eq + 1, w.n - (size_t)(eq + 1 - w.p) }, &v))
			return "not a count";
		w.n = (size_t)(eq - w.p);
		if (span_is(w, "suppressed")) {
			u->suppressed = v;
		} else if ((k = cause_index(w.p, w.n)) >= 0) {
			u->by_cause[k] = v;
		} else {
			return "unknown key";
		}
	}
	return NULL;
}

static const char *parse_line(struct span s, struct faultcount *c, unsigned *seen)
{
	struct span key;

	if (s.n == 0 || s.p[0] == '#')
		return NULL;
	if (memchr(s.p, '\0', s.n))
		return "a NUL byte";
	key = word(&s);
	if (span_is(key, "boot")) {
		if (*seen & 1)
			return "boot given twice";
		*seen |= 1;
		if (s.n != 32)
			return "not a boot ID (32 hex digits)";
		for (size_t i = 0; i < 32; i++)
			if (!strchr("0123456789abcdef", s.p[i]) || !s.p[i])
				return "not a boot ID (32 hex digits)";
		memcpy(c->boot, s.p, 32);
		c->boot[32] = '\0';
		return NULL;
	}
	if (span_is(key, "cursor")) {
		if (*seen & 2)
			return "cursor given twice";
		*seen |= 2;
		if (s.n == 0 || s.n >= CURSOR_MAX)
			return "an empty or too long cursor";
		for (size_t i = 0; i < s.n; i++)
			if (s.p[i] <= ' ' || s.p[i] > '~')
				return "a cursor with a space or a control byte";
		c->cursor = xstrndup(s.p, s.n);
		return NULL;
	}
	if (span_is(key, "lines"))
		return count_of(s, &c->lines) ? NULL : "not a count";
	if (span_is(key, "unparsed"))
		return count_of(s, &c->unparsed) ? NULL : "not a count";
	if (span_is(key, "unit"))
		return parse_unit(s, c);
	return "unknown item";
}

int faultcount_parse(const char *text, size_t len, struct faultcount *c, size_t *line,
		     const char **why)
{
	struct span all = { text, len };
	unsigned seen = 0;
	size_t ln = 0;

	faultcount_init(c);
	*line = 0;
	*why = NULL;
	while (all.n) {
		const char *nl = memchr(all.p, '\n', all.n);
		struct span l = { all.p, nl ? (size_t)(nl - all.p) : all.n };

		ln++;
		all.p += l.n + (nl ? 1 : 0);
		all.n -= l.n + (nl ? 1 : 0);
		if (l.n > LINE_MAX_LEN)
			*why = "a line too long";
		else if (ln == 1 && !span_is(l, MAGIC))
			*why = "not an mtag-faultd state file (first line \"" MAGIC "\")";
		else if (ln > 1)
			*why = parse_line(l, c, &seen);
		if (*why) {
			*line = ln;
			faultcount_reset(c, NULL);
			return -EBADMSG;
		}
	}
	if (ln == 0) {
		*line = 1;
		*why = "empty";
		return -EBADMSG;
	}
	return 0;
}

int faultcount_load(const char *path, struct faultcount *c, size_t *line, const char **why)
{
	struct stat st;
	char *buf;
	size_t len;
	int fd, r;

	*line = 0;
	*why = NULL;
	faultcount_init(c);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		r = fstat(fd, &st) < 0 ? -errno : -EINVAL;
		close(fd);
		return r;
	}
	r = read_fd_all(fd, FAULTCOUNT_MAX_BYTES, &buf, &len);
	close(fd);
	if (r < 0)
		return r;
	r = faultcount_parse(buf, len, c, line, why);
	free(buf);
	return r < 0 ? r : 1;
}

int faultcount_save(const char *path, const struct faultcount *c, bool durable)
{
	size_t len;
	char *text = faultcount_format(c, &len);
	int r = write_file_replace(path, text, len, 0644, durable);

	free(text);
	return r;
}
