/* SPDX-License-Identifier: GPL-2.0-or-later */
/* procmaps.c -- which mapping holds an address (see procmaps.h). */
#include "procmaps.h"
#include "span.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define ADDR_MASK 0x00ffffffffffffffULL

/* "start-end perms offset dev:dev inode    path" */
int procmaps_parse_line(const char *line, size_t len, struct procmap *m)
{
	struct span s = { line, len };
	uint64_t v;

	while (s.n && (s.p[s.n - 1] == '\n' || s.p[s.n - 1] == '\r'))
		s.n--;
	memset(m, 0, sizeof(*m));
	if (!span_hex(&s, &m->start, 16) || !span_ch(&s, '-') || !span_hex(&s, &m->end, 16) ||
	    m->end <= m->start || !span_spaces(&s))
		return -EINVAL;
	if (s.n < 4)
		return -EINVAL;
	for (int i = 0; i < 4; i++) {
		static const char *const allowed[4] = { "r-", "w-", "x-", "ps" };

		if (!s.p[i] || !strchr(allowed[i], s.p[i]))
			return -EINVAL;
	}
	memcpy(m->perms, s.p, 4);
	s.p += 4;
	s.n -= 4;
	if (!span_spaces(&s) || !span_hex(&s, &m->offset, 16) || !span_spaces(&s) ||
	    !span_hex(&s, &v, 8) || !span_ch(&s, ':') || !span_hex(&s, &v, 8) || !span_spaces(&s) ||
	    !span_dec(&s, &m->inode, UINT64_MAX))
		return -EINVAL;
	if (s.n == 0)
		return 0;
	if (!span_spaces(&s))
		return -EINVAL;
	if (s.n >= sizeof(m->path) || memchr(s.p, '\0', s.n))
		return -EINVAL;
	memcpy(m->path, s.p, s.n);
	m->path[s.n] = '\0';
	return 0;
}

int procmaps_find_text(const char *text, size_t len, uint64_t addr, struct procmap *m)
{
	const char *p = text, *end = text + len;
	struct procmap *tmp = malloc(sizeof(*tmp));

	if (!tmp)
		return -ENOMEM;
	addr &= ADDR_MASK;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (procmaps_parse_line(p, n, tmp) == 0 && addr >= tmp->start && addr < tmp->end) {
			*m = *tmp;
			free(tmp);
			return 1;
		}
		p += n + (nl ? 1 : 0);
	}
	free(tmp);
	return 0;
}

int procmaps_find_file(FILE *f, uint64_t addr, struct procmap *m)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int r = 0;
	struct procmap *tmp = malloc(sizeof(*tmp));

	if (!tmp)
		return -ENOMEM;
	addr &= ADDR_MASK;
	errno = 0;
	while ((n = getline(&line, &cap, f)) >= 0) {
		if (procmaps_parse_line(line, (size_t)n, tmp) == 0 && addr >= tmp->start &&
		    addr < tmp->end) {
			*m = *tmp;
			r = 1;
			break;
		}
	}
	if (!r && ferror(f))
		r = errno ? -errno : -EIO;
	free(line);
	free(tmp);
	return r;
}

int procmaps_find_path(const char *path, uint64_t addr, struct procmap *m)
{
	FILE *f = fopen(path, "re");
	int r;

	if (!f)
		return -errno;
	r = procmaps_find_file(f, addr, m);
	fclose(f);
	return r;
}

int procmaps_find_pid(const char *proc, pid_t pid, uint64_t addr, struct procmap *m)
{
	char path[4096];

	if (pid <= 0)
		return -EINVAL;
	if ((size_t)snprintf(path, sizeof(path), "%s/%d/maps", proc ? proc : "/proc", (int)pid) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	return procmaps_find_path(path, addr, m);
}

char *procmap_describe(const struct procmap *m, uint64_t addr, char *buf, size_t len)
{
	addr &= ADDR_MASK;
	if (!len)
		return buf;
	if (m->path[0] == '/')
		snprintf(buf, len, "%s+0x%" PRIx64, m->path, addr - m->start + m->offset);
	else
		snprintf(buf, len, "%s+0x%" PRIx64, m->path[0] ? m->path : "[anon]", addr - m->start);
	return buf;
}

int procmaps_symbolize(const char *text, size_t len, uint64_t addr, char *buf, size_t buflen)
{
	struct procmap *m = malloc(sizeof(*m));
	int r;

	if (!m)
		return -ENOMEM;
	r = procmaps_find_text(text, len, addr, m);
	if (r == 1) {
		procmap_describe(m, addr, buf, buflen);
		r = 0;
	} else if (r == 0) {
		r = -ENOENT;
	}
	free(m);
	return r;
}
