/* test-prom.c -- Prometheus text format and the atomic file write. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "prom.h"
#include "unit.h"

static void test_names(void)
{
	CHECK(prom_valid_metric_name("mtag_service_mte"));
	CHECK(prom_valid_metric_name("job:rate5m"));
	CHECK(prom_valid_metric_name("_x1"));
	CHECK(!prom_valid_metric_name("1x"));
	CHECK(!prom_valid_metric_name("a-b"));
	CHECK(!prom_valid_metric_name(""));
	CHECK(!prom_valid_metric_name(NULL));
	CHECK(!prom_valid_metric_name("a b"));
	CHECK(prom_valid_label_name("unit"));
	CHECK(prom_valid_label_name("_u9"));
	CHECK(!prom_valid_label_name("__name__"));
	CHECK(!prom_valid_label_name("a:b"));
	CHECK(!prom_valid_label_name("9"));
}

static void test_text(void)
{
	struct prom p;
	const char *t;

	CHECK(prom_init(&p) == 0);
	CHECK(prom_family(&p, "mtag_service_mte", "gauge",
			  "1 if the service runs with MTE.\nA \\ second line.") == 0);
	CHECK(prom_sample(&p, "mtag_service_mte",
			  (const char *const[]){ "unit", "nginx.service", "mode", "sync", NULL }, 1) == 0);
	CHECK(prom_sample(&p, "mtag_service_mte",
			  (const char *const[]){ "unit", "we\"ird\\un\nit", NULL }, 0) == 0);
	CHECK(prom_family(&p, "mtag_faults_total", "counter", NULL) == 0);
	CHECK(prom_sample_u64(&p, "mtag_faults_total", NULL, UINT64_MAX) == 0);
	CHECK(prom_family(&p, "mtag_x", "summary", "x") == 0);
	CHECK(prom_sample(&p, "mtag_x_sum", NULL, 0.5) == 0);
	CHECK(prom_sample(&p, "mtag_x_count", (const char *const[]){ NULL }, NAN) == 0);
	CHECK(prom_sample(&p, "mtag_x", NULL, INFINITY) == 0);
	CHECK(prom_sample(&p, "mtag_x", NULL, -INFINITY) == 0);
	CHECK(prom_sample(&p, "mtag_x", NULL, 1e300) == 0);
	t = prom_text(&p, NULL);
	CHECK_STR(t, "# HELP mtag_service_mte 1 if the service runs with MTE.\\nA \\\\ second line.\n"
		     "# TYPE mtag_service_mte gauge\n"
		     "mtag_service_mte{unit=\"nginx.service\",mode=\"sync\"} 1\n"
		     "mtag_service_mte{unit=\"we\\\"ird\\\\un\\nit\"} 0\n"
		     "# TYPE mtag_faults_total counter\n"
		     "mtag_faults_total 18446744073709551615\n"
		     "# HELP mtag_x x\n# TYPE mtag_x summary\n"
		     "mtag_x_sum 0.5\nmtag_x_count NaN\nmtag_x +Inf\nmtag_x -Inf\n"
		     "mtag_x 1.0000000000000001e+300\n");
	prom_free(&p);
}

static void test_errors(void)
{
	struct prom p;

	CHECK(prom_init(&p) == 0);
	CHECK(prom_sample(&p, "undeclared", NULL, 1) == -EINVAL);
	CHECK(prom_family(&p, "ok", "gauge", "h") == -EINVAL); /* sticky */
	CHECK(prom_text(&p, NULL) == NULL);
	CHECK(prom_output(&p, stdout) == -EINVAL);
	prom_free(&p);
	CHECK(prom_init(&p) == 0);
	CHECK(prom_family(&p, "a", "gauge", NULL) == 0);
	CHECK(prom_sample(&p, "a", (const char *const[]){ "__x", "1", NULL }, 1) == -EINVAL);
	prom_free(&p);
	CHECK(prom_init(&p) == 0);
	CHECK(prom_family(&p, "a", "gauge", NULL) == 0);
	CHECK(prom_sample(&p, "a", (const char *const[]){ "u", "1", "u", "2", NULL }, 1) == -EINVAL);
	prom_free(&p);
	CHECK(prom_init(&p) == 0);
	CHECK(prom_family(&p, "a", "gauge", NULL) == 0);
	CHECK(prom_family(&p, "b", "gauge", NULL) == 0);
	CHECK(prom_sample(&p, "a", NULL, 1) == -EINVAL); /* a's samples must follow a's TYPE */
	prom_free(&p);
	CHECK(prom_init(&p) == 0);
	CHECK(prom_family(&p, "a", "gauge", NULL) == 0);
	CHECK(prom_family(&p, "a", "gauge", NULL) == -EINVAL); /* twice */
	prom_free(&p);
	CHECK(prom_init(&p) == 0);
	CHECK(prom_family(&p, "a", "meter", NULL) == -EINVAL);
	prom_free(&p);
	CHECK(prom_init(&p) == 0);
	CHECK(prom_family(&p, "a-b", "gauge", NULL) == -EINVAL);
	prom_free(&p);
	CHECK(prom_init(&p) == 0);
	CHECK(prom_family(&p, "a", "gauge", NULL) == 0);
	CHECK(prom_sample(&p, "a_total", NULL, 1) == -EINVAL); /* not the family's */
	prom_free(&p);
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.' || (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."));
	if (d)
		closedir(d);
	return n;
}

static void test_commit(void)
{
	char dir[512], path[600];
	struct prom p;
	struct stat st;
	size_t len;
	char *back;

	snprintf(dir, sizeof(dir), "%s/textfile", tmpdir());
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s/mtag.prom", dir);
	write_file(path, "old\n");
	CHECK(prom_init(&p) == 0);
	CHECK(prom_family(&p, "m", "gauge", "h") == 0);
	CHECK(prom_sample(&p, "m", NULL, 2) == 0);
	CHECK(prom_commit(&p, path) == 0);
	prom_free(&p);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
	{
		FILE *f = fopen(path, "r");
		char buf[256] = "";

		CHECK(f);
		len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[len] = '\0';
		back = buf;
		CHECK_STR(back, "# HELP m h\n# TYPE m gauge\nm 2\n");
	}
	CHECK(count_entries(dir) == 1); /* no temporary file left */
	/* A directory that is not there: an error, nothing written. */
	snprintf(path, sizeof(path), "%s/nonexistent/mtag.prom", dir);
	CHECK(write_file_atomic(path, "x", 1, 0644) == -ENOENT);
	CHECK(write_file_atomic(dir, "x", 1, 0644) != 0); /* a directory: rename fails */
	CHECK(count_entries(dir) == 1);
	snprintf(path, sizeof(path), "%s/", dir);
	CHECK(write_file_atomic(path, "x", 1, 0644) == -EISDIR);
	/* A relative path (the current directory). */
	CHECK(prom_init(&p) == 0);
	CHECK(prom_output(&p, stdout) == 0); /* empty */
	prom_free(&p);
}

void run_prom_tests(void)
{
	RUN(test_names);
	RUN(test_text);
	RUN(test_errors);
	RUN(test_commit);
}
