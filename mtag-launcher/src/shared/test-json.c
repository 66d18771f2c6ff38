/* test-json.c -- the JSON writer: structure, escaping, misuse. */
#include <errno.h>
#include <stdlib.h>

#include "json.h"
#include "unit.h"

/* Run FN on a memory stream; the text written, malloc'ed. */
static char *capture(void (*fn)(struct json *), bool pretty, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	json_init(&j, f, pretty);
	fn(&j);
	*rc = json_finish(&j);
	fclose(f);
	return buf;
}

static void doc(struct json *j)
{
	json_begin_object(j);
	json_kv_string(j, "unit", "nginx.service");
	json_kv_int(j, "n", -3);
	json_kv_uint(j, "big", UINT64_MAX);
	json_kv_bool(j, "mte", true);
	json_kv_null(j, "core");
	json_kv_string(j, "none", NULL);
	json_key(j, "pids");
	json_begin_array(j);
	json_int(j, 1);
	json_begin_object(j);
	json_end_object(j);
	json_begin_array(j);
	json_end_array(j);
	json_bool(j, false);
	json_end_array(j);
	json_end_object(j);
}

static void test_compact(void)
{
	int rc;
	char *s = capture(doc, false, &rc);

	CHECK(rc == 0);
	CHECK_STR(s, "{\"unit\":\"nginx.service\",\"n\":-3,\"big\":18446744073709551615,\"mte\":true,"
		     "\"core\":null,\"none\":null,\"pids\":[1,{},[],false]}\n");
	free(s);
}

static void test_pretty(void)
{
	int rc;
	char *s = capture(doc, true, &rc);

	CHECK(rc == 0);
	CHECK_STR(s, "{\n  \"unit\": \"nginx.service\",\n  \"n\": -3,\n  \"big\": 18446744073709551615,\n"
		     "  \"mte\": true,\n  \"core\": null,\n  \"none\": null,\n  \"pids\": [\n    1,\n    {},\n"
		     "    [],\n    false\n  ]\n}\n");
	free(s);
}

static char *esc(const char *s, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	json_fputs_escaped(f, s, n);
	fclose(f);
	return buf;
}

#define CHECK_ESC(in, want)                                                   \
	do {                                                                  \
		char *e_ = esc(in, sizeof(in) - 1);                           \
		int ok_ = strcmp(e_, want) == 0;                              \
		if (!ok_)                                                     \
			printf("# got %s\n", e_);                             \
		free(e_);                                                     \
		CHECK(ok_);                                                   \
	} while (0)

static void test_escaping(void)
{
	CHECK_ESC("a\"b\\c/d", "\"a\\\"b\\\\c/d\"");
	CHECK_ESC("\b\f\n\r\t\x01\x1f\x7f", "\"\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f\"");
	CHECK_ESC("nul\0x", "\"nul\\u0000x\"");
	/* C1 controls (U+0080-U+009F) too: some terminals obey them. */
	CHECK_ESC("\xc2\x9b" "2J \xc2\xa0", "\"\\u009b2J \xc2\xa0\"");
	/* Valid UTF-8 passes: é, €, 😀. */
	CHECK_ESC("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
	/* Invalid: lone continuation, overlong, surrogate, > U+10FFFF,
	 * truncated sequence, 0xff. */
	CHECK_ESC("\x80", "\"\\ufffd\"");
	CHECK_ESC("\xc0\xaf", "\"\\ufffd\\ufffd\"");
	CHECK_ESC("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"");
	CHECK_ESC("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
	CHECK_ESC("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	CHECK_ESC("a\xe2\x82", "\"a\\ufffd\"");
	CHECK_ESC("\xe2\x82x", "\"\\ufffdx\"");
	CHECK_ESC("\xff", "\"\\ufffd\"");
	CHECK_ESC("", "\"\"");
}

static void bad_value_for_key(struct json *j)
{
	json_begin_object(j);
	json_int(j, 1);
	json_end_object(j);
}

static void bad_unbalanced(struct json *j)
{
	json_begin_array(j);
}

static void bad_mismatch(struct json *j)
{
	json_begin_array(j);
	json_end_object(j);
}

static void bad_two_docs(struct json *j)
{
	json_int(j, 1);
	json_int(j, 2);
}

static void bad_deep(struct json *j)
{
	for (int i = 0; i < JSON_MAX_DEPTH + 1; i++)
		json_begin_array(j);
}

static void bad_key_in_array(struct json *j)
{
	json_begin_array(j);
	json_key(j, "x");
	json_end_array(j);
}

static void bad_nothing(struct json *j)
{
}

static void scalar(struct json *j)
{
	json_string(j, "x");
}

static void test_misuse(void)
{
	void (*const bad[])(struct json *) = {
		bad_value_for_key, bad_unbalanced, bad_mismatch, bad_two_docs,
		bad_deep, bad_key_in_array, bad_nothing,
	};
	int rc;
	char *s;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		s = capture(bad[i], false, &rc);
		free(s);
		CHECK(rc == -EINVAL);
	}
	s = capture(scalar, true, &rc);
	CHECK(rc == 0);
	CHECK_STR(s, "\"x\"\n");
	free(s);
}

static void test_json_lines(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	json_init(&j, f, false);
	for (int i = 0; i < 3; i++) {
		json_begin_object(&j);
		json_kv_int(&j, "i", i);
		json_end_object(&j);
		CHECK(json_finish(&j) == 0);
	}
	fclose(f);
	CHECK_STR(buf, "{\"i\":0}\n{\"i\":1}\n{\"i\":2}\n");
	free(buf);
}

void run_json_tests(void)
{
	RUN(test_compact);
	RUN(test_pretty);
	RUN(test_escaping);
	RUN(test_misuse);
	RUN(test_json_lines);
}
