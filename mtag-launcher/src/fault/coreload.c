/* SPDX-License-Identifier: GPL-2.0-or-later */
/* coreload.c -- read a stored core without trusting its path (see
 * coreload.h). */
#include "coreload.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define CHUNK (128u << 10)

static bool ends_with(const char *s, const char *sfx)
{
	size_t l = strlen(s), n = strlen(sfx);

	return l >= n && strcmp(s + l - n, sfx) == 0;
}

/* Grow *BUF to hold at least NEED bytes, doubling, never past MAX. */
static int grow(unsigned char **buf, size_t *cap, size_t need, uint64_t max)
{
	size_t n = *cap ? *cap : CHUNK;
	unsigned char *p;

	if (need > max)
		return -EFBIG;
	while (n < need)
		n = n > max / 2 ? (size_t)max : n * 2;
	if (n == *cap)
		return 0;
	p = realloc(*buf, n);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = n;
	return 0;
}

static int read_plain(int fd, uint64_t fsize, uint64_t max, unsigned char **out, size_t *len)
{
	unsigned char *buf;
	size_t got = 0;

	if (fsize > max)
		return -EFBIG;
	buf = malloc(fsize ? (size_t)fsize : 1);
	if (!buf)
		return -ENOMEM;
	while (got < fsize) {
		ssize_t r = read(fd, buf + got, (size_t)fsize - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = r < 0 ? -errno : -EIO; /* shrank while read */

			free(buf);
			return e;
		}
		got += (size_t)r;
	}
	*out = buf;
	*len = got;
	return 0;
}

static int read_zstd(int fd, uint64_t max, unsigned char **out, size_t *len)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	unsigned char *in = malloc(CHUNK), *buf = NULL;
	size_t cap = 0, n = 0, ret = 1;
	int e = 0;

	if (!z || !in) {
		e = -ENOMEM;
		goto out;
	}
	ZSTD_initDStream(z);
	for (;;) {
		ssize_t r = read(fd, in, CHUNK);
		ZSTD_inBuffer ib = { in, 0, 0 };

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = -errno;
			goto out;
		}
		if (r == 0)
			break;
		ib.size = (size_t)r;
		/* A full output buffer may leave data in the decoder: go on
		 * until it has room left over. */
		for (bool full = true; ib.pos < ib.size || full;) {
			ZSTD_outBuffer ob;

			e = grow(&buf, &cap, n + CHUNK > max ? (size_t)max : n + CHUNK, max);
			if (e < 0)
				goto out;
			if (n == cap) {
				e = -EFBIG;
				goto out;
			}
			ob = (ZSTD_outBuffer){ buf, cap, n };
			ret = ZSTD_decompressStream(z, &ob, &ib);
			if (ZSTD_isError(ret)) {
				e = -EBADMSG;
				goto out;
			}
			full = ob.pos == ob.size;
			n = ob.pos;
		}
	}
	if (ret != 0) /* the last frame is not complete */
		e = -EBADMSG;
out:
	ZSTD_freeDStream(z);
	free(in);
	if (e < 0) {
		free(buf);
		return e;
	}
	*out = buf ? buf : malloc(1);
	*len = n;
	return *out ? 0 : -ENOMEM;
}

int core_load_entry(const char *file, const void *field, size_t len, uint64_t max, void **data,
		    size_t *size, char *why, size_t wlen)
{
	const size_t nl = strlen("COREDUMP=");

	*data = NULL;
	*size = 0;
	if (file && file[0])
		return core_load(COREDUMP_DIR, file, max, data, size, why, wlen);
	if (!field || len <= nl) {
		snprintf(why, wlen, "the core is not stored (systemd-coredump's Storage=none, or it was too large)");
		return -ENOENT;
	}
	if (len - nl > max) {
		snprintf(why, wlen, "refused: the core is larger than %llu MiB", (unsigned long long)(max >> 20));
		return -EFBIG;
	}
	*data = malloc(len - nl);
	if (!*data)
		return -ENOMEM;
	memcpy(*data, (const char *)field + nl, len - nl);
	*size = len - nl;
	return 0;
}

int core_load(const char *dir, const char *path, uint64_t max, void **data, size_t *size,
	      char *why, size_t wlen)
{
	size_t dl = strlen(dir);
	const char *base;
	unsigned char *buf = NULL;
	size_t len = 0;
	struct stat st;
	int dfd, fd, e;

	*data = NULL;
	*size = 0;
	if (strncmp(path, dir, dl) != 0 || path[dl] != '/' || strchr(path + dl + 1, '/') ||
	    strncmp(path + dl + 1, "core.", 5) != 0) {
		snprintf(why, wlen, "refused: not a core file directly in %s", dir);
		return -EPERM;
	}
	base = path + dl + 1;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		e = -errno;
		snprintf(why, wlen, "cannot open %s: %s", dir, strerror(errno));
		return e;
	}
	/* O_NONBLOCK: a FIFO put there must not block the open. */
	fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	e = fd < 0 ? -errno : 0;
	close(dfd);
	if (fd < 0) {
		snprintf(why, wlen, e == -ELOOP ? "refused: the core file is a symbolic link" :
			 "cannot open the core file: %s", strerror(-e));
		return e;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, wlen, "refused: the core file is not a regular file");
		close(fd);
		return -EPERM;
	}
	if (ends_with(base, ".zst")) {
		e = read_zstd(fd, max, &buf, &len);
	} else if (ends_with(base, ".xz") || ends_with(base, ".lz4")) {
		snprintf(why, wlen, "the core is compressed with %s, which mtagctl does not read (only zstd)",
			 strrchr(base, '.') + 1);
		close(fd);
		return -ENOTSUP;
	} else {
		e = read_plain(fd, (uint64_t)st.st_size, max, &buf, &len);
	}
	close(fd);
	if (e < 0) {
		if (e == -EFBIG)
			snprintf(why, wlen, "refused: the core is larger than %llu MiB",
				 (unsigned long long)(max >> 20));
		else if (e == -EBADMSG)
			snprintf(why, wlen, "the core's zstd data is damaged or cut short");
		else
			snprintf(why, wlen, "cannot read the core file: %s", strerror(-e));
		return e;
	}
	*data = buf;
	*size = len;
	return 0;
}
