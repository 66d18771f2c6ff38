/* SPDX-License-Identifier: GPL-2.0-or-later */
/* procmte.c -- what /proc says of a process's tag checking (see
 * procmte.h). */
#include "procmte.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "smaps.h"


/* "Key:\tvalue\n" of a status file: cut LINE after the key and return the
 * value, without its blanks and newline; NULL if there is no ':'. */
static char *split_status_line(char *line)
{
	char *v = strchr(line, ':');

	if (!v)
		return NULL;
	*v++ = '\0';
	v += strspn(v, " \t");
	v[strcspn(v, "\n")] = '\0';
	return v;
}

int proc_thread_mte(const char *proc_dir, pid_t pid, pid_t tid, struct thread_mte *t)
{
	char path[512], line[256];
	FILE *f;

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "%s/%d/task/%d/status", proc_dir, (int)pid, (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *v = split_status_line(line);

		if (!v)
			continue;
		if (strcmp(line, "MTE_TCF") == 0) {
			t->has_tcf = true;
			snprintf(t->tcf, sizeof(t->tcf), "%s", v);
		} else if (strcmp(line, "MTE_Report") == 0) {
			t->has_report = true;
			t->report_on = strcmp(v, "on") == 0;
		} else if (strcmp(line, "MTE_ReportChecking") == 0) {
			t->suspended = strstr(v, "suspended") != NULL;
		}
	}
	fclose(f);
	return 0;
}

const char *tcf_mode_word(const char *tcf, bool report_on)
{
	const char *mode = NULL;

	if (strcmp(tcf, "none") == 0)
		mode = "off";
	else if (strcmp(tcf, "sync") == 0)
		mode = "sync";
	else if (strcmp(tcf, "async") == 0)
		mode = "async";
	else if (strcmp(tcf, "sync,async") == 0 || strcmp(tcf, "async,sync") == 0)
		mode = "asymm";
	if (mode && report_on)
		mode = "report";
	return mode;
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
		struct thread_mte t;

		if (proc_thread_mte(proc_dir, pid, (pid_t)tid, &t) < 0)
			continue;
		m->threads++;
		if (m->has_report_line && t.suspended) {
			if (m->threads_suspended < PROC_MTE_TIDS)
				m->suspended[m->threads_suspended] = (pid_t)tid;
			m->threads_suspended++;
		}
		if (m->has_tcf_line && strcmp(t.tcf, m->tcf) != 0) {
			if (!m->threads_tcf_differ) {
				m->tcf_differ_tid = (pid_t)tid;
				snprintf(m->tcf_differ, sizeof(m->tcf_differ), "%s", t.tcf[0] ? t.tcf : "?");
			}
			m->threads_tcf_differ++;
		}
	}
	closedir(d);
}

/* Does a "NAME=VALUE" string set a memory tagging tunable? */
static bool sets_tunable(const char *e)
{
	if (strncmp(e, "_MTAG_ENABLE=", 13) == 0)
		return true;
	if (strncmp(e, "GLIBC_TUNABLES=", 15) != 0)
		return false;
	for (const char *p = e + 15; *p; p += strcspn(p, ":"), p += *p == ':') {
		if (strncmp(p, "glibc.mem.tagging=", 18) == 0 ||
		    strncmp(p, "glibc.memtag.enable=", 20) == 0)
			return true;
	}
	return false;
}

/* 1 if PROC_DIR/PID/environ sets a memory tagging tunable, 0 if not, -1
 * if it cannot be read. */
static int env_has_tunable(const char *proc_dir, pid_t pid)
{
	char path[512], *buf = NULL;
	size_t len = 0, cap = 0;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/environ", proc_dir, (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = len + 4096 + 1);

			if (!nb) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		size_t n = fread(buf + len, 1, 4096, f);

		len += n;
		if (n < 4096)
			break;
	}
	fclose(f);
	if (!buf)
		return 0;
	buf[len] = '\0';
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
		if (sets_tunable(buf + i)) {
			found = 1;
			break;
		}
	free(buf);
	return found;
}

/* AT_SECURE from PROC_DIR/PID/auxv (pairs of unsigned longs). */
static bool auxv_secure(const char *proc_dir, pid_t pid)
{
	unsigned long av[2];
	char path[512];
	bool secure = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/auxv", proc_dir, (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fread(av, sizeof(av), 1, f) == 1 && av[0] != 0)
		if (av[0] == 23) /* AT_SECURE */
			secure = av[1] != 0;
	fclose(f);
	return secure;
}

enum mode_origin proc_mode_origin(const struct proc_mte *m)
{
	bool kdef = m->has_execdef_line && strncmp(m->execdef, "none", 4) != 0;

	if (!m->has_tcf_line)
		return MODE_ORIGIN_UNKNOWN;
	if (strcmp(m->tcf, "none") == 0)
		return MODE_ORIGIN_NONE;
	if (m->env_tunable == 1 && !m->secure)
		return MODE_ORIGIN_ENV;
	if (kdef && (m->env_tunable == 0 || m->secure))
		return MODE_ORIGIN_KERNEL;
	return MODE_ORIGIN_UNKNOWN;
}

const char *mode_origin_name(enum mode_origin o)
{
	switch (o) {
	case MODE_ORIGIN_NONE:
		return "none";
	case MODE_ORIGIN_ENV:
		return "environment";
	case MODE_ORIGIN_KERNEL:
		return "kernel";
	case MODE_ORIGIN_UNKNOWN:
		break;
	}
	return "unknown";
}

bool proc_ignores_execdef(const struct proc_mte *m)
{
	return m->has_tcf_line && strcmp(m->tcf, "none") == 0 && m->has_execdef_line &&
	       strncmp(m->execdef, "none", 4) != 0 && (m->env_tunable != 1 || m->secure);
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
		char *v = split_status_line(line);

		if (!v)
			continue;
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
		} else if (strcmp(line, "MTE_ExecDefault") == 0) {
			m->has_execdef_line = true;
			snprintf(m->execdef, sizeof(m->execdef), "%s", v);
		} else if (strcmp(line, "MTE_Upgrade") == 0 &&
			   strncmp(v, "sync until ", strlen("sync until ")) == 0) {
			m->upgrade_until_ns = strtoull(v + strlen("sync until "), NULL, 10);
		}
	}
	fclose(f);
	read_threads(proc_dir, pid, m);
	m->env_tunable = env_has_tunable(proc_dir, pid);
	m->secure = auxv_secure(proc_dir, pid);

	/* The smaps part: smaps.c. */
	struct smaps_mte s;
	int r = smaps_read_pid(proc_dir, pid, &s);

	if (r < 0)
		return r;
	m->maps = s.n_mappings;
	m->mt_maps = s.n_mt_mappings;
	m->anon_kb = s.anon_kb;
	m->mt_anon_kb = s.mt_anon_kb;
	m->malloc_kb = s.malloc_kb;
	m->mt_malloc_kb = s.mt_malloc_kb;
	return 0;
}

int tag_include_nonzero(const char *mask)
{
	char *end;
	unsigned long m;
	int n = 0;

	if (!mask || strncmp(mask, "0x", 2) != 0 || !mask[2])
		return -1;
	errno = 0;
	m = strtoul(mask + 2, &end, 16);
	if (errno || *end || m > 0xffff)
		return -1;
	for (unsigned t = 1; t < 16; t++)
		n += (m >> t) & 1;
	return n;
}

unsigned proc_exe_privilege(const char *proc_dir, pid_t pid, char *path, size_t len)
{
	char exe[512];
	struct stat st;
	unsigned bits = 0;
	ssize_t n;

	snprintf(exe, sizeof(exe), "%s/%d/exe", proc_dir, (int)pid);
	if (path && len) {
		n = readlink(exe, path, len - 1);
		path[n > 0 ? (size_t)n : 0] = '\0';
	}
	/* Through the link: the file the process runs, whatever its mount
	 * namespace. */
	if (stat(exe, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (st.st_mode & S_ISUID)
		bits |= PROC_EXE_SETUID;
	/* Set-group-ID without group execute is mandatory locking, not a
	 * privilege (the kernel gives no AT_SECURE for it). */
	if ((st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP))
		bits |= PROC_EXE_SETGID;
	if (getxattr(exe, "security.capability", NULL, 0) > 0)
		bits |= PROC_EXE_FCAPS;
	return bits;
}

char *proc_exe_privilege_str(unsigned bits, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s",
		 bits & PROC_EXE_SETUID ? "set-user-ID" : "",
		 (bits & PROC_EXE_SETUID) && (bits & (PROC_EXE_SETGID | PROC_EXE_FCAPS)) ? ", " : "",
		 bits & PROC_EXE_SETGID ? "set-group-ID" : "",
		 (bits & PROC_EXE_SETGID) && (bits & PROC_EXE_FCAPS) ? ", " : "",
		 bits & PROC_EXE_FCAPS ? "file capabilities" : "");
	return buf;
}
