/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.c -- a tiny streaming JSON writer (see json.h). */
#include "escape.h"
#include "json.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at S (N > 0 bytes) or, negated, of
 * its maximal invalid subpart (Unicode's "U+FFFD substitution of maximal
 * subparts"). */
void json_fputs_escaped(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	putc('"', f);
	while (i < n) {
		unsigned char c = s[i];
		int l;

		switch (c) {
		case '"':
			fputs("\\\"", f);
			i++;
			continue;
		case '\\':
			fputs("\\\\", f);
			i++;
			continue;
		case '\b':
			fputs("\\b", f);
			i++;
			continue;
		case '\f':
			fputs("\\f", f);
			i++;
			continue;
		case '\n':
			fputs("\\n", f);
			i++;
			continue;
		case '\r':
			fputs("\\r", f);
			i++;
			continue;
		case '\t':
			fputs("\\t", f);
			i++;
			continue;
		default:
			break;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			i++;
			continue;
		}
		l = utf8_seq(s + i, n - i);
		if (l == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0) {
			/* C1 controls: valid JSON raw, but some terminals
			 * obey them. */
			fprintf(f, "\\u%04x", s[i + 1]);
			i += 2;
		} else if (l < 0) {
			fputs("\\ufffd", f);
			i += (size_t)-l;
		} else {
			fwrite(s + i, 1, (size_t)l, f);
			i += (size_t)l;
		}
	}
	putc('"', f);
}

void json_init(struct json *j, FILE *f, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
}

static void newline(struct json *j)
{
	if (!j->pretty)
		return;
	putc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Before a value: 0, or -1 when one is not allowed here. */
static int before_value(struct json *j)
{
	if (j->err)
		return -1;
	if (j->depth == 0) {
		if (j->done) {
			j->err = -EINVAL;
			return -1;
		}
		return 0;
	}
	if (j->in_object[j->depth - 1]) {
		if (!j->want_value) {
			j->err = -EINVAL;
			return -1;
		}
		j->want_value = false;
		return 0;
	}
	if (j->count[j->depth - 1]++)
		putc(',', j->f);
	newline(j);
	return 0;
}

static void after_value(struct json *j)
{
	if (j->depth == 0)
		j->done = true;
}

static void begin(struct json *j, bool object)
{
	if (before_value(j) < 0)
		return;
	if (j->depth == JSON_MAX_DEPTH) {
		j->err = -EINVAL;
		return;
	}
	putc(object ? '{' : '[', j->f);
	j->in_object[j->depth] = object;
	j->count[j->depth] = 0;
	j->depth++;
}

static void end(struct json *j, bool object)
{
	if (j->err)
		return;
	if (j->depth == 0 || j->in_object[j->depth - 1] != object || j->want_value) {
		j->err = -EINVAL;
		return;
	}
	j->depth--;
	if (j->count[j->depth])
		newline(j);
	putc(object ? '}' : ']', j->f);
	after_value(j);
}

void json_begin_object(struct json *j)
{
	begin(j, true);
}

void json_end_object(struct json *j)
{
	end(j, true);
}

void json_begin_array(struct json *j)
{
	begin(j, false);
}

void json_end_array(struct json *j)
{
	end(j, false);
}

void json_key(struct json *j, const char *key)
{
	if (j->err)
		return;
	if (j->depth == 0 || !j->in_object[j->depth - 1] || j->want_value || !key) {
		j->err = -EINVAL;
		return;
	}
	if (j->count[j->depth - 1]++)
		putc(',', j->f);
	newline(j);
	json_fputs_escaped(j->f, key, strlen(key));
	fputs(j->pretty ? ": " : ":", j->f);
	j->want_value = true;
}

void json_string_len(struct json *j, const char *s, size_t n)
{
	if (before_value(j) < 0)
		return;
	json_fputs_escaped(j->f, s, n);
	after_value(j);
}

void json_string(struct json *j, const char *s)
{
	if (!s)
		json_null(j);
	else
		json_string_len(j, s, strlen(s));
}

void json_int(struct json *j, int64_t v)
{
	if (before_value(j) < 0)
		return;
	fprintf(j->f, "%" PRId64, v);
	after_value(j);
}

void json_uint(struct json *j, uint64_t v)
{
	if (before_value(j) < 0)
		return;
	fprintf(j->f, "%" PRIu64, v);
	after_value(j);
}

void json_bool(struct json *j, bool v)
{
	if (before_value(j) < 0)
		return;
	fputs(v ? "true" : "false", j->f);
	after_value(j);
}

void json_null(struct json *j)
{
	if (before_value(j) < 0)
		return;
	fputs("null", j->f);
	after_value(j);
}

void json_kv_string(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

void json_kv_int(struct json *j, const char *key, int64_t v)
{
	json_key(j, key);
	json_int(j, v);
}

void json_kv_uint(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_uint(j, v);
}

void json_kv_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}

void json_kv_null(struct json *j, const char *key)
{
	json_key(j, key);
	json_null(j);
}

int json_finish(struct json *j)
{
	if (!j->err && (j->depth != 0 || !j->done))
		j->err = -EINVAL;
	if (!j->err) {
		putc('\n', j->f);
		j->done = false; /* ready for the next document */
	}
	if (fflush(j->f) != 0 || ferror(j->f))
		return j->err ? j->err : -EIO;
	return j->err;
}
