/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conffiles.c -- the set of policy files and their safety checks. */
#include "conffiles.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "dropins.h"
#include "util.h"

#define MAX_POLICY_SIZE (16u << 20)

/* A policy file is read once nobody has written to it for SETTLE_NS: an
 * editor that rewrites it in place (truncate, then write) must not have
 * an empty or half-written file taken for the policy (an entry missing or
 * cut short would fall back to a weaker mode).  A file modified less than
 * that ago is read again once it is that old, for SETTLE_MAX_NS at most;
 * an older one is read once (no delay). */
#define SETTLE_NS (50 * 1000000LL)
#define SETTLE_MAX_NS (2000 * 1000000LL)
/* An empty file, or one whose last line has no newline, is what a writer
 * stalled between its truncate and its last write leaves (descheduled on a
 * busy machine: 100-250 ms seen): such a file must be older still. */
#define SETTLE_SUSPECT_NS (1000 * 1000000LL)

/* Drop-in directories, highest priority first: the index is the rank
 * (POLICY_RANK_*) of the entries a file there holds. */
static const char *const dropin_dirs[] = {
	"/etc/mtag/policy.d",
	"/run/mtag/policy.d",
	"/usr/local/lib/mtag/policy.d",
	"/usr/lib/mtag/policy.d",
};
#define N_DROPIN_DIRS (sizeof(dropin_dirs) / sizeof(dropin_dirs[0]))
_Static_assert(N_DROPIN_DIRS == POLICY_RANK_VENDOR + 1, "one rank a drop-in directory");

static bool is_dev_null(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && st->st_rdev == makedev(1, 3);
}

const char *conf_unsafe_reason(const struct stat *st, bool explicit_file)
{
	uid_t euid = geteuid();

	if (st->st_uid != 0 && !(explicit_file && euid != 0 && st->st_uid == euid))
		return "not owned by root (policy must not be writable by a service user)";
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return "writable by group or others (policy must not be writable by a service user)";
	return NULL;
}

/* Whether the directories above PATH (PATH's parent up to "/") are safe:
 * owned by root (or, for an explicitly given file, the caller) and not
 * writable by group or others, unless sticky (as /tmp) with the entry
 * below them owned by root or the caller, which then nobody else can
 * replace.  Otherwise the reason, with the directory in BAD. */
static const char *parents_unsafe(const char *path, bool explicit_file, char *bad, size_t blen)
{
	uid_t euid = geteuid();
	char *copy = realpath(path, NULL), *slash;
	const char *why = NULL;
	struct stat below;
	bool have_below = false;

	/* The real path: a symlink to a user's file is judged by where the
	 * file is. */
	if (!copy)
		return NULL; /* reported by the caller's own open or stat */
	if (stat(copy, &below) == 0)
		have_below = true;
	/* From the parent upwards. */
	while (!why && (slash = strrchr(copy, '/'))) {
		struct stat st;
		bool owner_ok;

		if (slash == copy)
			slash[1] = '\0'; /* "/" itself */
		else
			*slash = '\0';
		if (stat(copy, &st) < 0)
			break; /* reported by the caller's own open or stat */
		owner_ok = st.st_uid == 0 || (explicit_file && euid != 0 && st.st_uid == euid);
		if (!owner_ok)
			why = "not owned by root (policy must not be writable by a service user)";
		else if ((st.st_mode & (S_IWGRP | S_IWOTH)) &&
			 !((st.st_mode & S_ISVTX) && have_below &&
			   (below.st_uid == 0 || (explicit_file && below.st_uid == euid))))
			why = "writable by group or others (policy must not be writable by a service user)";
		if (why)
			snprintf(bad, blen, "%s", copy);
		below = st;
		have_below = true;
		if (strcmp(copy, "/") == 0)
			break;
	}
	free(copy);
	return why;
}

static char *join(const char *root, const char *path)
{
	return xasprintf("%s%s", root ? root : "", path);
}

static long long ts_ns(const struct timespec *t)
{
	return (long long)t->tv_sec * 1000000000LL + t->tv_nsec;
}

static long long now_ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return ts_ns(&t);
}

static bool same_version(const struct stat *a, const struct stat *b)
{
	return a->st_size == b->st_size && ts_ns(&a->st_mtim) == ts_ns(&b->st_mtim) &&
	       ts_ns(&a->st_ctim) == ts_ns(&b->st_ctim);
}

/* Read FD (whose fstat is *ST) into *BUF once it has settled: unchanged
 * while it was read, and last modified at least SETTLE_NS before
 * (SETTLE_SUSPECT_NS when empty or without a final newline).  A
 * modification time in the future (a clock set back) counts as settled.
 * Returns 0, 1 when it was still changing after SETTLE_MAX_NS (*BUF is
 * the last read), or -errno. */
static int read_settled(int fd, const struct stat *st, char **buf, size_t *len)
{
	long long start = now_ns(CLOCK_MONOTONIC);
	struct stat before = *st, after;

	for (;;) {
		long long age, settle;
		int r;

		if (lseek(fd, 0, SEEK_SET) < 0)
			return -errno;
		r = read_fd_all(fd, MAX_POLICY_SIZE, buf, len);
		if (r < 0)
			return r;
		if (fstat(fd, &after) < 0) {
			r = -errno;
			free(*buf);
			return r;
		}
		settle = *len == 0 || (*buf)[*len - 1] != '\n' ? SETTLE_SUSPECT_NS : SETTLE_NS;
		age = now_ns(CLOCK_REALTIME) - ts_ns(&after.st_mtim);
		if (same_version(&before, &after) && (age >= settle || age < -1000000000LL))
			return 0;
		if (now_ns(CLOCK_MONOTONIC) - start >= SETTLE_MAX_NS)
			return 1;
		free(*buf);
		{
			long long wait = settle - (age > 0 ? age : 0);
			struct timespec t;

			/* Looked at again every 20 ms at most: a suspect file
			 * that gets its last line is then read at once. */
			if (wait < 5000000LL)
				wait = 5000000LL;
			if (wait > 20000000LL)
				wait = 20000000LL;
			t.tv_sec = wait / 1000000000LL;
			t.tv_nsec = wait % 1000000000LL;
			while (nanosleep(&t, &t) < 0 && errno == EINTR)
				;
		}
		before = after;
	}
}

/* Read one file into P.  Returns true if it was read. */
static bool read_one(struct policy *p, const char *path, bool explicit_file, bool must_exist)
{
	struct stat st;
	const char *why;
	char *buf;
	size_t len;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		if (errno == ENOENT && !must_exist)
			return false;
		policy_diag(p, DIAG_ERROR, path, 0, "cannot open: %s", strerror(errno));
		return false;
	}
	if (fstat(fd, &st) < 0) {
		policy_diag(p, DIAG_ERROR, path, 0, "cannot stat: %s", strerror(errno));
		close(fd);
		return false;
	}
	if (is_dev_null(&st)) {
		close(fd);
		return false;
	}
	if (!S_ISREG(st.st_mode)) {
		policy_diag(p, DIAG_ERROR, path, 0, "refused: not a regular file");
		close(fd);
		return false;
	}
	why = conf_unsafe_reason(&st, explicit_file);
	if (why) {
		policy_diag(p, DIAG_ERROR, path, 0, "refused: %s: owner uid %u, mode %04o",
			    why, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		close(fd);
		return false;
	}
	{
		char bad[PATH_MAX];

		why = parents_unsafe(path, explicit_file, bad, sizeof(bad));
		if (why) {
			policy_diag(p, DIAG_ERROR, path, 0, "refused: directory %s is %s", bad, why);
			close(fd);
			return false;
		}
	}
	r = read_settled(fd, &st, &buf, &len);
	close(fd);
	if (r < 0) {
		policy_diag(p, DIAG_ERROR, path, 0, "cannot read: %s",
			    r == -EFBIG ? "file is larger than 16 MiB" : strerror(-r));
		return false;
	}
	if (r > 0)
		policy_diag(p, DIAG_ERROR, path, 0,
			    "still being written after %lld ms: read as it was then (an entry cut short is an error here)",
			    SETTLE_MAX_NS / 1000000);
	policy_parse(p, path, buf, len);
	free(buf);
	return true;
}

static bool dir_is_safe(struct policy *p, const char *dir)
{
	struct stat st;
	const char *why;

	if (stat(dir, &st) < 0)
		return errno == ENOENT ? false : (policy_diag(p, DIAG_ERROR, dir, 0,
							       "cannot stat: %s", strerror(errno)), false);
	if (!S_ISDIR(st.st_mode)) {
		policy_diag(p, DIAG_ERROR, dir, 0, "refused: not a directory");
		return false;
	}
	why = conf_unsafe_reason(&st, false);
	if (why) {
		policy_diag(p, DIAG_ERROR, dir, 0,
			    "refused directory: %s: owner uid %u, mode %04o", why,
			    (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		return false;
	}
	{
		char bad[PATH_MAX];

		why = parents_unsafe(dir, false, bad, sizeof(bad));
		if (why) {
			policy_diag(p, DIAG_ERROR, dir, 0, "refused directory: %s is %s", bad, why);
			return false;
		}
	}
	return true;
}

/* The rank of drop-in PATH: the index of the directory it is in. */
static unsigned dropin_rank(const char *root, const char *path)
{
	size_t rl = root ? strlen(root) : 0;

	for (size_t i = 0; i < N_DROPIN_DIRS; i++) {
		size_t dl = strlen(dropin_dirs[i]);

		if (strncmp(path + rl, dropin_dirs[i], dl) == 0 && path[rl + dl] == '/')
			return (unsigned)i;
	}
	return POLICY_RANK_ETC;
}

unsigned conf_load(struct policy *p, const struct conf_opts *o)
{
	struct dropins d = { 0 };
	unsigned read = 0;
	char *main_file;

	if (o->single)
		return read_one(p, o->single, true, true) ? 1 : 0;

	main_file = join(o->root, POLICY_MAIN_FILE);
	read += read_one(p, main_file, false, false);
	free(main_file);

	for (size_t i = 0; i < N_DROPIN_DIRS; i++) {
		char *dir = join(o->root, dropin_dirs[i]);

		if (dir_is_safe(p, dir)) {
			int r = dropins_add_dir(&d, dir, NULL);

			/* Not a silent skip: its entries may say require=yes
			 * or strict=yes. */
			if (r < 0)
				policy_diag(p, DIAG_ERROR, dir, 0, "cannot read the directory: %s%s",
					    strerror(-r), geteuid() ? " (its entries are not applied: mtag-generator hands the launcher the resolved entry as root; run mtagctl check as root)" : "");
		}
		free(dir);
	}
	dropins_sort(&d);
	for (size_t i = 0; i < d.n; i++) {
		p->rank = dropin_rank(o->root, d.v[i].path);
		read += read_one(p, d.v[i].path, false, false);
	}
	p->rank = POLICY_RANK_ETC;
	dropins_free(&d);
	return read;
}

/* FNV-1a, 64 bits. */
static uint64_t stamp_add(uint64_t h, const void *data, size_t len)
{
	const unsigned char *b = data;

	for (size_t i = 0; i < len; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t stamp_path(uint64_t h, const char *path);

/* PATH's parent directory: a change of its mode or owner can make
 * conf_load() refuse what is below it. */
static uint64_t stamp_parent(uint64_t h, const char *path)
{
	char *p = xstrdup(path), *slash = strrchr(p, '/');

	if (slash && slash != p) {
		*slash = '\0';
		h = stamp_path(h, p);
	}
	free(p);
	return h;
}

static uint64_t stamp_path(uint64_t h, const char *path)
{
	struct stat st[2];
	int ok[2];

	h = stamp_add(h, path, strlen(path) + 1);
	ok[0] = lstat(path, &st[0]) == 0 ? 1 : -errno;
	ok[1] = stat(path, &st[1]) == 0 ? 1 : -errno;
	for (int i = 0; i < 2; i++) {
		h = stamp_add(h, &ok[i], sizeof(ok[i]));
		if (ok[i] == 1) {
			const struct stat *s = &st[i];
			long long f[] = { (long long)s->st_dev, (long long)s->st_ino, (long long)s->st_mode,
					  (long long)s->st_uid, (long long)s->st_size,
					  ts_ns(&s->st_mtim), ts_ns(&s->st_ctim) };

			h = stamp_add(h, f, sizeof(f));
		}
	}
	return h;
}

uint64_t conf_stamp(const struct conf_opts *o)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	struct dropins d = { 0 };
	char *main_file;

	if (o->single)
		return stamp_path(h, o->single);
	main_file = join(o->root, POLICY_MAIN_FILE);
	h = stamp_parent(h, main_file);
	h = stamp_path(h, main_file);
	free(main_file);
	for (size_t i = 0; i < N_DROPIN_DIRS; i++) {
		char *dir = join(o->root, dropin_dirs[i]);

		h = stamp_parent(h, dir);
		h = stamp_path(h, dir);
		(void)dropins_add_dir(&d, dir, NULL);
		free(dir);
	}
	dropins_sort(&d);
	for (size_t i = 0; i < d.n; i++)
		h = stamp_path(h, d.v[i].path);
	dropins_free(&d);
	return h;
}
