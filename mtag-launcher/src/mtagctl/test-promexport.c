/* test-promexport.c -- the metrics of "mtagctl status --prometheus"
 * (mtagctl-prom.c) from status rows and mtag-faultd's state file: the
 * counters come from the file, whatever the journal holds.  With
 * $MTAG_PROM_SAMPLE set, the text is also written there (the suite runs
 * promtool check metrics on it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cause.h"
#include "mtagctl-prom.h"
#include "prom.h"
#include "unit.h"

#define BOOT_A "0123456789abcdef0123456789abcdef"

static const char STATE[] =
	"mtag-faultd-state 1\n"
	"boot " BOOT_A "\n"
	"cursor s=1;i=2;b=" BOOT_A ";m=1;t=2;x=3\n"
	"lines 100234\n"
	"unparsed 2\n"
	"unit nginx.service overflow=3 use-after-free=1 suppressed=99990\n"
	"unit user@1000.service wild-pointer=1 suppressed=9500\n"
	"unit - unknown=2 suppressed=7\n";

static void row(struct svc_state *r, const char *unit, int line, const char *running,
		enum verdict v)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->unit, sizeof(r->unit), "%s", unit);
	r->has_policy = true;
	r->mode = MTAG_MODE_SYNC;
	snprintf(r->source, sizeof(r->source), "/etc/mtag/policy.conf:%d", line);
	snprintf(r->running, sizeof(r->running), "%s", running);
	r->verdict = v;
	r->as_asked = v == V_PROTECTED;
}

static void rows_init(struct svc_state *rows)
{
	row(&rows[0], "nginx.service", 3, "sync", V_PROTECTED);
	/* The journal's count (what the export used to show): not used. */
	rows[0].by_cause[MTE_CAUSE_OVERFLOW] = 1;
	row(&rows[1], "redis-server.service", 4, "none", V_NOT_PROTECTED);
	rows[1].libc_ignores_execdef = true;
	/* libc6 is Debian's build (issue 36): redis lost its protection. */
	strcpy(rows[1].lost, "libc6");
	strcpy(rows[1].lost_version, "2.36-9+deb12u15");
}

/* The text for state file content TEXT (NULL: no file). */
static char *export(const char *text)
{
	struct ctl c = { .proc = "/proc" };
	struct prom_host h = { .hw_mte = true, .kernel_execdef = true, .faultd_up = true };
	struct svc_state rows[2];
	struct prom p;
	char dir[1024], path[1100];
	const char *t;
	char *out;

	snprintf(dir, sizeof(dir), "%s/promexport", tmpdir());
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s/state", dir);
	unlink(path);
	if (text)
		write_file(path, text);
	c.state_dir = dir;
	h.pkgs.libc6 = (struct pkg_info){ PKG_DEBIAN, "2.36-9+deb12u15" };
	h.pkgs.jemalloc = (struct pkg_info){ PKG_MTAG, "5.3.0-1+deb12u0+mtag1" };
	rows_init(rows);
	prom_init(&p);
	prom_metrics(&p, &c, rows, 2, &h);
	t = prom_text(&p, NULL);
	out = strdup(t ? t : "");
	prom_free(&p);
	return out;
}

static void has(const char *text, const char *line, bool want)
{
	const char *p = text;
	size_t l = strlen(line);
	bool found = false;

	for (; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[l] == '\n')
			found = true;
	if (found != want) {
		fprintf(stderr, "  %s: %s\n", want ? "missing" : "unexpected", line);
		CHECK(0);
	}
}

static void test_counters_from_state(void)
{
	char *t = export(STATE);
	const char *sample = getenv("MTAG_PROM_SAMPLE");

	has(t, "mtag_faults_total{unit=\"nginx.service\",cause=\"overflow\"} 3", true);
	has(t, "mtag_faults_total{unit=\"nginx.service\",cause=\"use-after-free\"} 1", true);
	has(t, "mtag_faults_total{unit=\"redis-server.service\",cause=\"overflow\"} 0", true);
	has(t, "mtag_faults_total{unit=\"user@1000.service\",cause=\"wild-pointer\"} 1", true);
	has(t, "mtag_faults_total{cause=\"unknown\"} 2", true);
	has(t, "mtag_faults_suppressed_total{unit=\"nginx.service\"} 99990", true);
	has(t, "mtag_faults_suppressed_total{unit=\"redis-server.service\"} 0", true);
	has(t, "mtag_faults_suppressed_total{unit=\"user@1000.service\"} 9500", true);
	has(t, "mtag_faults_suppressed_total 7", true);
	has(t, "mtag_faultd_kernel_lines_total 100234", true);
	has(t, "mtag_faultd_unparsed_lines_total 2", true);
	has(t, "mtag_faultd_state_ok 1", true);
	has(t, "mtag_faultd_up 1", true);
	has(t, "mtag_kernel_exec_default_supported 1", true);
	has(t, "mtag_libc_ignores_exec_default{unit=\"redis-server.service\"} 1", true);
	has(t, "mtag_libc_ignores_exec_default{unit=\"nginx.service\"} 0", true);
	has(t, "mtag_package_is_mtag_build{package=\"libc6\",version=\"2.36-9+deb12u15\"} 0", true);
	has(t, "mtag_package_is_mtag_build{package=\"libjemalloc2\",version=\"5.3.0-1+deb12u0+mtag1\"} 1", true);
	CHECK(strstr(t, "mtag_package_is_mtag_build{package=\"kernel\"") == NULL); /* unknown */
	has(t, "mtag_lost_protection{unit=\"redis-server.service\",reason=\"libc6\",version=\"2.36-9+deb12u15\"} 1", true);
	CHECK(strstr(t, "mtag_lost_protection{unit=\"nginx.service\"") == NULL);
	has(t, "# TYPE mtag_faults_total counter", true);
	has(t, "# TYPE mtag_faults_suppressed_total counter", true);
	CHECK(strstr(t, "mtag_build_info{version=\"") != NULL);
	if (sample) {
		FILE *f = fopen(sample, "w");

		CHECK(f && fputs(t, f) >= 0 && fclose(f) == 0);
	}
	free(t);
}

static void test_no_state_file(void)
{
	char *t = export(NULL);

	has(t, "mtag_faults_total{unit=\"nginx.service\",cause=\"overflow\"} 0", true);
	has(t, "mtag_faults_suppressed_total{unit=\"nginx.service\"} 0", true);
	has(t, "mtag_faultd_state_ok 1", true);
	free(t);
}

static void test_bad_state_file(void)
{
	char *t = export("mtag-faultd-state 1\nunit nginx.service overflow=-1\n");

	has(t, "mtag_faultd_state_ok 0", true);
	CHECK(strstr(t, "mtag_faults_total") == NULL);
	CHECK(strstr(t, "mtag_faults_suppressed_total") == NULL);
	free(t);
}

void run_promexport_tests(void)
{
	RUN(test_counters_from_state);
	RUN(test_no_state_file);
	RUN(test_bad_state_file);
}
