/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroupfs.c -- cgroup v2 membership from the file system. */
#include "cgroupfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DEPTH 64

struct pidv {
	pid_t *v;
	size_t n, cap;
};

static int push(struct pidv *p, long x)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		pid_t *v = reallocarray(p->v, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = (pid_t)x;
	return 0;
}

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

static void sort_unique(struct pidv *p)
{
	size_t j = 0;

	if (!p->n)
		return;
	qsort(p->v, p->n, sizeof(*p->v), pid_cmp);
	for (size_t i = 1; i < p->n; i++)
		if (p->v[i] != p->v[j])
			p->v[++j] = p->v[i];
	p->n = j + 1;
}

/* A positive decimal pid_t from S (whole string), or -1. */
static long parse_pid(const char *s, size_t n)
{
	long x = 0;

	if (!n || n > 10)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		x = x * 10 + (s[i] - '0');
	}
	return x > 0 && x <= INT_MAX ? x : -1;
}

static int read_procs(int dirfd, struct pidv *p)
{
	int fd = openat(dirfd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int r = 0;

	if (fd < 0)
		return -errno;
	f = fdopen(fd, "r");
	if (!f) {
		r = -errno;
		close(fd);
		return r;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		long x;

		if (line[n - 1] == '\n')
			n--;
		if (!n)
			continue;
		if ((x = parse_pid(line, (size_t)n)) < 0) {
			r = -EINVAL;
			break;
		}
		if ((r = push(p, x)) < 0)
			break;
	}
	if (!r && ferror(f))
		r = -EIO;
	free(line);
	fclose(f);
	return r;
}

/* DIRFD is consumed. */
static int walk(int dirfd, struct pidv *p, int depth, bool top)
{
	DIR *d;
	struct dirent *de;
	int r = read_procs(dirfd, p);

	if (r == -ENOENT && !top)
		r = 0; /* vanished: skip */
	if (r < 0 || depth >= MAX_DEPTH) {
		close(dirfd);
		return r;
	}
	d = fdopendir(dirfd);
	if (!d) {
		r = -errno;
		close(dirfd);
		return r;
	}
	while ((de = readdir(d))) {
		int sub;

		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		sub = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
				continue;
			r = -errno;
			break;
		}
		if ((r = walk(sub, p, depth + 1, false)) < 0)
			break;
	}
	closedir(d);
	return r;
}

/* The end of a listing: on error R free P and return R; else hand P over,
 * sorted and without repeats (NULL when empty). */
static int finish(struct pidv *p, int r, pid_t **out, size_t *n)
{
	if (r < 0) {
		free(p->v);
		return r;
	}
	sort_unique(p);
	if (!p->n) {
		free(p->v);
		p->v = NULL;
	}
	*out = p->v;
	*n = p->n;
	return 0;
}

static bool has_dotdot(const char *path)
{
	for (const char *c = path; *c;) {
		size_t n;

		while (*c == '/')
			c++;
		n = strcspn(c, "/");
		if (n == 2 && c[0] == '.' && c[1] == '.')
			return true;
		c += n;
	}
	return false;
}

int cgroup_pids(const char *root, const char *path, pid_t **pids, size_t *n)
{
	struct pidv p = { 0 };
	char full[PATH_MAX];
	int fd, r;

	*pids = NULL;
	*n = 0;
	if (!path || has_dotdot(path))
		return -EINVAL;
	while (*path == '/')
		path++;
	if ((size_t)snprintf(full, sizeof(full), "%s/%s", root ? root : "/sys/fs/cgroup", path) >=
	    sizeof(full))
		return -ENAMETOOLONG;
	fd = open(full, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = walk(fd, &p, 0, true);
	return finish(&p, r, pids, n);
}

int proc_threads(const char *proc, pid_t pid, pid_t **tids, size_t *n)
{
	struct pidv p = { 0 };
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int r = 0;

	*tids = NULL;
	*n = 0;
	if (pid <= 0)
		return -EINVAL;
	if ((size_t)snprintf(path, sizeof(path), "%s/%d/task", proc ? proc : "/proc", (int)pid) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		long x = parse_pid(de->d_name, strlen(de->d_name));

		if (x > 0 && (r = push(&p, x)) < 0)
			break;
	}
	closedir(d);
	return finish(&p, r, tids, n);
}

int proc_cgroup(const char *proc, pid_t pid, char *buf, size_t len)
{
	char path[PATH_MAX];
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int r = -ENODATA;

	if (len)
		buf[0] = '\0';
	if (pid <= 0)
		return -EINVAL;
	if ((size_t)snprintf(path, sizeof(path), "%s/%d/cgroup", proc ? proc : "/proc", (int)pid) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (strncmp(line, "0::", 3) != 0)
			continue;
		if ((size_t)n - 3 >= len) {
			r = -ENAMETOOLONG;
			break;
		}
		memcpy(buf, line + 3, (size_t)n - 3 + 1);
		r = 0;
		break;
	}
	if (r == -ENODATA && ferror(f))
		r = -EIO;
	free(line);
	fclose(f);
	return r;
}
