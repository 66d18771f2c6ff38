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
#include <unistd.h>

#include "util.h"

#ifndef HWCAP2_MTE
#define HWCAP2_MTE (1UL << 18)
#endif

bool mte_supported(void)
{
#if defined(__aarch64__)
	return (getauxval(AT_HWCAP2) & HWCAP2_MTE) != 0;
#else
	return false; /* AT_HWCAP2 bit 18 means something else elsewhere */
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

int mte_set_cpu_preferred(const char *cpu_dir, enum mtag_mode mode, char *errbuf, size_t errlen)
{
	const char *val = mode_name(mode);
	DIR *d;
	struct dirent *de;
	int n = 0, err = 0;

	if (mode == MTAG_MODE_OFF)
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

/* Of PROC_DIR/PID/task/TID/status: is MTE_ReportChecking "suspended", and
 * MTE_TCF into TCF ("" without the line).  False if the thread has gone. */
static bool thread_state(const char *proc_dir, pid_t pid, const char *tid, bool *susp,
			 char *tcf, size_t tcflen)
{
	char path[512], line[256];
	FILE *f;

	*susp = false;
	tcf[0] = '\0';
	snprintf(path, sizeof(path), "%s/%d/task/%s/status", proc_dir, (int)pid, tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "MTE_ReportChecking:", 19) == 0) {
			*susp = strstr(line + 19, "suspended") != NULL;
		} else if (strncmp(line, "MTE_TCF:", 8) == 0) {
			char *v = line + 8 + strspn(line + 8, " \t");

			v[strcspn(v, "\n")] = '\0';
			snprintf(tcf, tcflen, "%s", v);
		}
	}
	fclose(f);
	return true;
}

static void read_threads(const char *proc_dir, pid_t pid, struct proc_mte *m)
{
	char path[512];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%d/task", proc_dir, (int)pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (de->d_name[0] == '.' || *end || tid <= 0)
			continue;
		bool susp;
		char tcf[64];

		if (!thread_state(proc_dir, pid, de->d_name, &susp, tcf, sizeof(tcf)))
			continue;
		m->threads++;
		if (m->has_report_line && susp) {
			if (m->threads_suspended < PROC_MTE_TIDS)
				m->suspended[m->threads_suspended] = (pid_t)tid;
			m->threads_suspended++;
		}
		if (m->has_tcf_line && strcmp(tcf, m->tcf) != 0) {
			if (!m->threads_tcf_differ) {
				m->tcf_differ_tid = (pid_t)tid;
				snprintf(m->tcf_differ, sizeof(m->tcf_differ), "%s", tcf[0] ? tcf : "?");
			}
			m->threads_tcf_differ++;
		}
	}
	closedir(d);
}

int mte_read_proc(const char *proc_dir, pid_t pid, struct proc_mte *m)
{
	char path[512], line[1024];
	FILE *f;

	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "%s/%d/status", proc_dir, (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		*v++ = '\0';
		v += strspn(v, " \t");
		v[strcspn(v, "\n")] = '\0';
		if (strcmp(line, "Name") == 0)
			snprintf(m->comm, sizeof(m->comm), "%s", v);
		else if (strcmp(line, "MTE_TCF") == 0) {
			m->has_tcf_line = true;
			snprintf(m->tcf, sizeof(m->tcf), "%s", v);
		} else if (strcmp(line, "MTE_TagInclude") == 0) {
			m->has_mask_line = true;
			snprintf(m->tag_include, sizeof(m->tag_include), "%s", v);
		} else if (strcmp(line, "MTE_Report") == 0) {
			m->has_report_line = true;
			m->report_on = strcmp(v, "on") == 0;
		} else if (strcmp(line, "MTE_ReportReenable") == 0) {
			m->report_reenable_ns = strtoull(v, NULL, 10);
		}
	}
	fclose(f);
	read_threads(proc_dir, pid, m);

	snprintf(path, sizeof(path), "%s/%d/smaps", proc_dir, (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	/* Per mapping: a header line, "Key: value" lines, VmFlags last. */
	unsigned long long anon = 0;

	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Anonymous:", 10) == 0) {
			anon = strtoull(line + 10, NULL, 10);
			m->anon_kb += anon;
			continue;
		}
		if (strncmp(line, "VmFlags:", 8) != 0)
			continue;
		m->maps++;
		/* Flags are two-letter words separated by spaces. */
		for (char *t = line + 8; *t; ) {
			t += strspn(t, " \t\n");
			if (strncmp(t, "mt", 2) == 0 && (t[2] == ' ' || t[2] == '\n' || !t[2])) {
				m->mt_maps++;
				m->mt_anon_kb += anon;
				break;
			}
			t += strcspn(t, " \t\n");
		}
		anon = 0;
	}
	fclose(f);
	return 0;
}
