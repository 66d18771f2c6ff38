/* ctl-main.c -- runs every unit test of the ctl library; built with ASan
 * and UBSan.  Run from the top of the tree (or set MTAG_CTL_TEST_DATA). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "faultline.h"
#include "unit.h"

const char *data_path(const char *name)
{
	static char path[1024];
	const char *dir = getenv("MTAG_CTL_TEST_DATA");

	snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : "tests/ts/mtagctl/data", name);
	return path;
}

char *read_data(const char *name, size_t *len)
{
	const char *path = data_path(name);
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		exit(2);
	}
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = 2 * cap + 8192;
			buf = realloc(buf, cap);
			if (!buf)
				exit(2);
		}
		size_t r = fread(buf + n, 1, 4096, f);

		n += r;
		if (r < 4096)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

int parse_kmsg(const char *name, struct mte_fault *f)
{
	char path[256];
	size_t len;
	char *line, *copy;
	int r;

	snprintf(path, sizeof(path), "kmsg/%s.txt", name);
	line = read_data(path, &len);
	copy = malloc(len ? len : 1);
	if (!copy)
		exit(2);
	memcpy(copy, line, len);
	r = mte_fault_parse(copy, len, f);
	free(copy);
	free(line);
	return r;
}

int main(void)
{
	static void (*const runs[])(void) = {
		run_faultline_tests, run_cause_tests, run_corefile_tests, run_procmaps_tests,
		run_smaps_tests,     run_procmte_tests, run_cgroupfs_tests, run_json_tests,
		run_prom_tests,      run_trust_tests,   run_coreload_tests, run_escape_tests,
		run_jemallocid_tests, run_verdict_tests, run_columns_tests, run_pager_tests,
		run_faultcount_tests, run_promexport_tests, run_bugid_tests, run_packages_tests, run_coreframes_tests,
		NULL,
	};

	return unit_run_all("mtag-ctl-unit", runs);
}
