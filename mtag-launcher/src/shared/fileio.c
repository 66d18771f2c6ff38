/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fileio.c -- reading small files whole, writing files atomically. */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

char *read_file_head(const char *path, size_t max, size_t *lenp)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t r;

		if (cap - len < 4096) {
			if (cap >= max)
				break;
			cap = cap ? 2 * cap : 4096;
			buf = xrealloc(buf, cap + 1);
		}
		r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (!buf)
		buf = xmalloc(1);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

int write_file_replace(const char *path, const void *data, size_t len, mode_t mode,
		       bool durable)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const unsigned char *d = data;
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	char *tmp;
	int fd, r = 0;

	if (!*base)
		return -EISDIR;
	/* ".NAME.XXXXXX": hidden, and not "*.prom" for the collector. */
	tmp = malloc(dirlen + strlen(base) + 9);
	if (!tmp)
		return -ENOMEM;
	memcpy(tmp, path, dirlen);
	sprintf(tmp + dirlen, ".%s.XXXXXX", base);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		free(tmp);
		return r;
	}
	while (len > 0) {
		ssize_t n = write(fd, d, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		d += n;
		len -= (size_t)n;
	}
	if (!r && fchmod(fd, mode) < 0)
		r = -errno;
	if (!r && durable && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (r)
		unlink(tmp);
	/* The rename is an entry of the directory: without the directory's
	 * fsync a crash of the machine may bring the old file back. */
	if (!r && durable) {
		char *dir = dirlen > 1 ? strndup(path, dirlen - 1) : strdup(dirlen ? "/" : ".");
		int dfd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

		if (!dir)
			r = -ENOMEM;
		else if (dfd < 0 || fsync(dfd) < 0)
			r = -errno;
		if (dfd >= 0)
			close(dfd);
		free(dir);
	}
	free(tmp);
	return r;
}

int write_file_atomic(const char *path, const void *data, size_t len, mode_t mode)
{
	return write_file_replace(path, data, len, mode, true);
}
