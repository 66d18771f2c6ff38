/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.h -- a tiny streaming JSON writer: objects, arrays, strings (fully
 * escaped: '"', '\\', control characters; invalid UTF-8 becomes U+FFFD),
 * integers, booleans, null; pretty (two-space indent) or compact.
 *
 *	struct json j;
 *	json_init(&j, stdout, pretty);
 *	json_begin_object(&j);
 *	json_kv_string(&j, "unit", "nginx.service");
 *	json_key(&j, "pids"); json_begin_array(&j); json_int(&j, 42); json_end_array(&j);
 *	json_end_object(&j);
 *	r = json_finish(&j);   -- newline after the document; 0 or -errno
 *
 * Misuse (a value where a key is due, unbalanced ends, nesting deeper than
 * JSON_MAX_DEPTH) writes nothing more and makes json_finish() -EINVAL.
 */
#ifndef MTAG_JSON_H
#define MTAG_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *f;
	bool pretty;
	int depth;
	bool in_object[JSON_MAX_DEPTH];
	unsigned count[JSON_MAX_DEPTH]; /* members written at each depth */
	bool want_value;                /* after json_key() */
	bool done;                      /* a top-level value is complete */
	int err;
};

void json_init(struct json *j, FILE *f, bool pretty);
void json_begin_object(struct json *j);
void json_end_object(struct json *j);
void json_begin_array(struct json *j);
void json_end_array(struct json *j);
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s);            /* NULL: null */
void json_string_len(struct json *j, const char *s, size_t n);
void json_int(struct json *j, int64_t v);
void json_uint(struct json *j, uint64_t v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* Key and value in one. */
void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_int(struct json *j, const char *key, int64_t v);
void json_kv_uint(struct json *j, const char *key, uint64_t v);
void json_kv_bool(struct json *j, const char *key, bool v);
void json_kv_null(struct json *j, const char *key);
/* Ends the document with a newline, flushes; 0, -EINVAL (misuse or not
 * complete) or -EIO.  After 0, J can write the next document (JSON
 * lines). */
int json_finish(struct json *j);

/* S (N bytes) as a JSON string with its quotes, on F. */
void json_fputs_escaped(FILE *f, const char *s, size_t n);

#endif
