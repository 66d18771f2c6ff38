/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mte.c -- HWCAP2_MTE, the per-CPU preferred mode, and /proc/PID. */
#include "mte.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "mte-uapi.h"
#include "util.h"

bool mte_supported(void)
{
#if defined(__aarch64__)
	return (getauxval(AT_HWCAP2) & HWCAP2_MTE) != 0;
#else
	return false; /* AT_HWCAP2 bit 18 means something else elsewhere */
#endif
}

long mte_prctl(int option, unsigned long arg2, unsigned long arg3)
{
#if defined(__aarch64__)
	long r = prctl(option, arg2, arg3, 0, 0);

	return r < 0 ? -errno : r;
#else
	(void)option;
	(void)arg2;
	(void)arg3;
	return -EINVAL; /* the prctl numbers are the mtag arm64 kernel's */
#endif
}

static bool is_cpu_dir(const char *name)
{
	if (strncmp(name, "cpu", 3) != 0 || !name[3])
		return false;
	for (const char *c = name + 3; *c; c++)
		if (*c < '0' || *c > '9')
			return false;
	return true;
}

unsigned mte_cpu_preferred(const char *cpu_dir, struct cpu_pref_count *c)
{
	DIR *d = opendir(cpu_dir);
	struct dirent *de;
	unsigned n = 0;

	memset(c, 0, sizeof(*c));
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char path[512], val[32] = "";
		FILE *f;

		if (!is_cpu_dir(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s/mte_tcf_preferred", cpu_dir, de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(val, sizeof(val), f))
			val[strcspn(val, "\n")] = '\0';
		fclose(f);
		n++;
		if (strcmp(val, "sync") == 0)
			c->sync++;
		else if (strcmp(val, "async") == 0)
			c->async++;
		else if (strcmp(val, "asymm") == 0)
			c->asymm++;
		else
			c->other++;
	}
	closedir(d);
	return n;
}

int mte_set_cpu_preferred(const char *cpu_dir, const char *val, char *errbuf, size_t errlen)
{
	DIR *d;
	struct dirent *de;
	int n = 0, err = 0;

	if (strcmp(val, "sync") != 0 && strcmp(val, "async") != 0 && strcmp(val, "asymm") != 0)
		return -EINVAL;
	d = opendir(cpu_dir);
	if (!d) {
		snprintf(errbuf, errlen, "%s", cpu_dir);
		return -errno;
	}
	while ((de = readdir(d))) {
		char path[512];
		int fd;
		ssize_t w;

		if (!is_cpu_dir(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s/mte_tcf_preferred", cpu_dir, de->d_name);
		fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT)
				continue;
			err = -errno;
		} else {
			w = write(fd, val, strlen(val));
			if (w < 0)
				err = -errno;
			else
				n++;
			close(fd);
		}
		if (err) {
			snprintf(errbuf, errlen, "%s", path);
			break;
		}
	}
	closedir(d);
	if (err)
		return err;
	if (n == 0) {
		snprintf(errbuf, errlen, "%s/cpu*/mte_tcf_preferred", cpu_dir);
		return -ENOENT;
	}
	return n;
}
