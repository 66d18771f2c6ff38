/* unit.c -- the shared part of the unit-test harnesses (unit.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

int unit_failed;
const char *unit_current;
int unit_current_failed;

static char tmp[256];

const char *tmpdir(void)
{
	return tmp;
}

void mkdirs(const char *path)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	mkdir(buf, 0755);
}

void write_file(const char *path, const char *text)
{
	char dir[1024];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	mkdirs(dir);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
	chmod(path, 0644);
}

int unit_run_all(const char *name, void (*const *runs)(void))
{
	char cmd[300];

	snprintf(tmp, sizeof(tmp), "/tmp/%s.XXXXXX", name);
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 2;
	}
	chmod(tmp, 0755);
	for (size_t i = 0; runs[i]; i++)
		runs[i]();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmp);
	return unit_failed ? 1 : 0;
}
