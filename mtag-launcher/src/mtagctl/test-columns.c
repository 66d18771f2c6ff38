/* test-columns.c -- the columns of "mtagctl status" (mtagctl-columns.h):
 * the table through libsmartcols (widths, right alignment, the legend,
 * control bytes escaped, colours) and the JSON from the same list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cause.h"
#include "json.h"
#include "mtagctl-columns.h"
#include "unit.h"

/* Two services: nginx protected; a hostile unit name without policy. */
static void rows2(struct svc_state r[2])
{
	memset(r, 0, 2 * sizeof(*r));
	strcpy(r[0].unit, "nginx.service");
	strcpy(r[0].active, "active");
	r[0].has_policy = r[0].named = r[0].heap = true;
	r[0].mode = MTAG_MODE_SYNC;
	strcpy(r[0].source, "p.conf:3");
	r[0].procs = 1;
	r[0].threads = 2;
	strcpy(r[0].running, "sync");
	r[0].malloc_kb = r[0].mt_malloc_kb = 100;
	r[0].verdict = V_PROTECTED;
	strcpy(r[0].reason, "sync in 1 process, 2 threads");
	r[0].as_asked = true;
	strcpy(r[1].unit, "redis\x1b[2J.service");
	strcpy(r[1].active, "active");
	strcpy(r[1].running, "none");
	r[1].faults = 12;
	r[1].by_cause[MTE_CAUSE_OVERFLOW] = 12;
	r[1].verdict = V_NOT_PROTECTED;
	strcpy(r[1].reason, "no policy entry");
}

/* status_table_print() of ROWS, in a static buffer (nothing to free when
 * a CHECK returns early); "" (never what a test wants) if it fails. */
static const char *table(const struct ctl *c, const struct svc_state *rows, size_t n)
{
	static char out[8192];
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r;

	if (!f)
		abort();
	r = status_table_print(c, f, rows, n);
	fclose(f);
	snprintf(out, sizeof(out), "%s", r < 0 ? "" : buf);
	free(buf);
	return out;
}

static void test_table(void)
{
	struct svc_state r[2];
	struct ctl c = { .all = false };
	const char *out;

	rows2(r);
	out = table(&c, r, 2);
	CHECK_STR(out,
		  "UNIT                  POLICY           RUNNING  HEAP  FAULTS  VERDICT\n"
		  "nginx.service         sync (p.conf:3)  sync     100%       0  protected: sync in 1 process, 2 threads\n"
		  "redis\\x1b[2J.service  -                none        -      12  not protected: no policy entry\n"
		  "\n"
		  "2 services listed: 1 protected, 0 report only, 1 not protected. (--all: every loaded service)\n");
}

static void test_table_no_legend(void)
{
	struct svc_state r[2];
	struct ctl c = { .no_legend = true, .all = true };
	const char *out;

	rows2(r);
	out = table(&c, r, 1);
	/* The headers' widths stay, as before libsmartcols. */
	CHECK_STR(out, "nginx.service  sync (p.conf:3)  sync     100%       0  protected: sync in 1 process, 2 threads\n");
}

/* With colour: a bold header, the verdict cell in its colour. */
static void test_table_color(void)
{
	struct svc_state r[2];
	struct ctl c = { .color = true, .all = true };
	const char *out;

	rows2(r);
	out = table(&c, r, 2);
	CHECK(strstr(out, ANSI_BOLD "UNIT") != NULL);
	CHECK(strstr(out, ANSI_GREEN "protected: sync in 1 process, 2 threads" ANSI_RESET) != NULL);
	CHECK(strstr(out, ANSI_RED "not protected: no policy entry" ANSI_RESET) != NULL);
	/* The unit name's escape stays escaped, colour or not. */
	CHECK(strstr(out, "redis\\x1b[2J.service") != NULL);
	CHECK(strchr(out, '\a') == NULL);
}

/* No services: the header and the count (libsmartcols prints nothing
 * for a table without lines). */
static void test_table_empty(void)
{
	struct ctl c = { .all = true };
	const char *out = table(&c, NULL, 0);

	CHECK_STR(out, "UNIT  POLICY  RUNNING  HEAP  FAULTS  VERDICT\n"
		  "\n0 services listed: 0 protected, 0 report only, 0 not protected.\n");
	c.no_legend = true;
	out = table(&c, NULL, 0);
	CHECK_STR(out, "");
}

/* The JSON object: every column's key, in the list's order, typed. */
static void test_json_row(void)
{
	struct svc_state r[2];
	struct json w;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	rows2(r);
	json_init(&w, f, false);
	json_begin_array(&w);
	status_json_row(&w, &r[0]);
	strcpy(r[1].lost, "libc6");
	strcpy(r[1].lost_version, "2.36-9+deb12u15");
	status_json_row(&w, &r[1]);
	json_end_array(&w);
	CHECK(json_finish(&w) == 0);
	fclose(f);
	CHECK_STR(buf,
		  "[{\"unit\":\"nginx.service\",\"active\":\"active\","
		  "\"policy\":{\"mode\":\"sync\",\"heap\":true,\"source\":\"p.conf:3\",\"names_unit\":true},"
		  "\"running\":{\"mode\":\"sync\",\"processes\":1,\"threads\":2,\"report_on_processes\":0,"
		  "\"threads_suspended\":0,\"mode_origin\":{\"environment\":0,\"kernel\":0}},"
		  "\"heap\":{\"anonymous_kb\":0,\"tagged_kb\":0,\"malloc_kb\":100,\"malloc_tagged_kb\":100},"
		  "\"faults\":{\"total\":0,\"unknown\":0,\"overflow\":0,\"underflow\":0,\"use-after-free\":0,\"wild-pointer\":0},"
		  "\"verdict\":\"protected\",\"upgrades\":0,\"upgraded_until_usec\":null,"
		  "\"reason\":\"sync in 1 process, 2 threads\",\"as_asked\":true,\"lost_by\":null,\"lost_by_version\":null},"
		  "{\"unit\":\"redis\\u001b[2J.service\",\"active\":\"active\",\"policy\":null,"
		  "\"running\":{\"mode\":\"none\",\"processes\":0,\"threads\":0,\"report_on_processes\":0,"
		  "\"threads_suspended\":0,\"mode_origin\":{\"environment\":0,\"kernel\":0}},"
		  "\"heap\":{\"anonymous_kb\":0,\"tagged_kb\":0,\"malloc_kb\":0,\"malloc_tagged_kb\":0},"
		  "\"faults\":{\"total\":12,\"unknown\":0,\"overflow\":12,\"underflow\":0,\"use-after-free\":0,\"wild-pointer\":0},"
		  "\"verdict\":\"not protected\",\"upgrades\":0,\"upgraded_until_usec\":null,"
		  "\"reason\":\"no policy entry\",\"as_asked\":false,\"lost_by\":\"libc6\",\"lost_by_version\":\"2.36-9+deb12u15\"}]\n");
	free(buf);
}

void run_columns_tests(void)
{
	RUN(test_table);
	RUN(test_table_no_legend);
	RUN(test_table_color);
	RUN(test_table_empty);
	RUN(test_json_row);
}
