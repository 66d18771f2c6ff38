/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jemallocid.c -- see jemallocid.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jemallocid.h"
#include "procmaps.h"

/* Is MARKER in the file at PATH?  Read in chunks, overlapping by the
 * marker's length.  1 yes, 0 no, -errno when it cannot be read. */
static int file_has(const char *path, const char *marker)
{
	size_t mlen = strlen(marker), have = 0;
	char buf[65536];
	ssize_t r;
	int fd, found = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((r = read(fd, buf + have, sizeof(buf) - have)) > 0) {
		have += (size_t)r;
		if (memmem(buf, have, marker, mlen)) {
			found = 1;
			break;
		}
		if (have >= mlen) {
			memmove(buf, buf + have - (mlen - 1), mlen - 1);
			have = mlen - 1;
		}
	}
	if (r < 0 && !found)
		found = -errno;
	close(fd);
	return found;
}

enum jemalloc_kind jemalloc_kind_text(const char *text, size_t len, const char *root,
				      char *path, size_t pathlen)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct procmap m;

		if (procmaps_parse_line(p, l, &m) == 0 && m.path[0] == '/') {
			const char *base = strrchr(m.path, '/') + 1;

			if (strncmp(base, "libjemalloc.so", 14) == 0) {
				char full[4096 + 256];

				snprintf(full, sizeof(full), "%s%s", root ? root : "", m.path);
				if (path)
					snprintf(path, pathlen, "%s", m.path);
				return file_has(full, JEMALLOC_MTAG_MARKER) == 1 ? JEMALLOC_MTAG
										 : JEMALLOC_STOCK;
			}
		}
		p += l + 1;
	}
	if (path && pathlen)
		path[0] = '\0';
	return JEMALLOC_NONE;
}

enum jemalloc_kind jemalloc_kind_pid(const char *proc, pid_t pid, char *path, size_t pathlen)
{
	char mp[256], *text = NULL;
	size_t cap = 0, len = 0;
	enum jemalloc_kind k;
	FILE *f;

	snprintf(mp, sizeof(mp), "%s/%d/maps", proc ? proc : "/proc", (int)pid);
	f = fopen(mp, "re");
	if (!f)
		return JEMALLOC_NONE;
	for (;;) {
		size_t n;

		if (cap - len < 65536) {
			char *t = realloc(text, cap + 262144);

			if (!t)
				break;
			text = t;
			cap += 262144;
		}
		n = fread(text + len, 1, cap - len, f);
		if (n == 0)
			break;
		len += n;
	}
	fclose(f);
	k = text ? jemalloc_kind_text(text, len, NULL, path, pathlen) : JEMALLOC_NONE;
	free(text);
	return k;
}
