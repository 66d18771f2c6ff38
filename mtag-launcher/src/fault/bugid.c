/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bugid.c -- a fault's object, build-id, package and signature (see
 * bugid.h). */
#include "bugid.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libelf.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>

#include "procmaps.h"
#include "sha256.h"
#include "util.h"

#define LINE_MAX_BYTES 8192       /* a .list or status line longer than this is skipped */
#define LIST_FILES_MAX 100000     /* info/\*.list files looked at */

static const char *dpkg_dir;

void bug_set_dpkg_admindir(const char *dir)
{
	dpkg_dir = dir;
}

const char *bug_cause_class(const char *cause)
{
	if (!cause)
		return "unknown";
	if (strcmp(cause, "overflow") == 0 || strcmp(cause, "underflow") == 0)
		return cause;
	if (strcmp(cause, "use-after-free") == 0 || strcmp(cause, "wild-pointer") == 0)
		return "use-after-free";
	return "unknown";
}

/* The object's name in the hash: its build-id, else "pkg:NAME=VERSION:
 * PATH".  false when there is neither. */
static bool hash_object(struct sha256 *s, const char *build_id, const char *package,
			const char *version, const char *path)
{
	if (build_id && *build_id) {
		sha256_update(s, build_id, strlen(build_id));
	} else if (package && *package && version && *version && path && *path) {
		sha256_update(s, "pkg:", 4);
		sha256_update(s, package, strlen(package));
		sha256_update(s, "=", 1);
		sha256_update(s, version, strlen(version));
		sha256_update(s, ":", 1);
		sha256_update(s, path, strlen(path));
	} else {
		return false;
	}
	sha256_update(s, "", 1);
	return true;
}

/* The first BUG_SIGNATURE_LEN hex digits of S's digest into OUT. */
static void hash_out(struct sha256 *s, char out[BUG_SIGNATURE_LEN + 1])
{
	uint8_t d[32];

	sha256_final(s, d);
	for (int i = 0; i < BUG_SIGNATURE_LEN / 2; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void hash_str(struct sha256 *s, const char *str)
{
	sha256_update(s, str, strlen(str) + 1);
}

bool bug_signature(const char *build_id, const char *package, const char *version,
		   const char *path, const char *cause, uint64_t offset,
		   char out[BUG_SIGNATURE_LEN + 1])
{
	struct sha256 s;
	char off[24];

	out[0] = '\0';
	sha256_init(&s);
	hash_str(&s, "mtag-bug-v1");
	if (!hash_object(&s, build_id, package, version, path))
		return false;
	hash_str(&s, bug_cause_class(cause));
	snprintf(off, sizeof(off), "%" PRIx64, offset);
	sha256_update(&s, off, strlen(off));
	hash_out(&s, out);
	return true;
}

bool bug_async_signature(const char *build_id, const char *package, const char *version,
			 const char *path, char out[BUG_SIGNATURE_LEN + 1])
{
	struct sha256 s;

	out[0] = '\0';
	sha256_init(&s);
	hash_str(&s, "mtag-bug-v1");
	if (!hash_object(&s, build_id, package, version, path))
		return false;
	/* The class "async" is none of bug_cause_class()'s, and the empty
	 * offset none of a sync fault's (always one hex digit at least):
	 * no async signature is a sync one. */
	hash_str(&s, "async");
	hash_out(&s, out);
	return true;
}

bool bug_stack_signature(const char *signature, const struct bug_frame *fr, size_t n,
			 char out[BUG_SIGNATURE_LEN + 1], size_t *n_used)
{
	struct sha256 s;
	char off[24];
	size_t used = 0;

	out[0] = '\0';
	if (n_used)
		*n_used = 0;
	if (!signature || !*signature)
		return false;
	sha256_init(&s);
	hash_str(&s, "mtag-stack-v1");
	hash_str(&s, signature);
	for (size_t i = 1; i < n && used < BUG_CALLERS && fr[i].build_id[0]; i++, used++) {
		hash_str(&s, fr[i].build_id);
		snprintf(off, sizeof(off), "%" PRIx64, fr[i].offset);
		hash_str(&s, off);
	}
	if (!used)
		return false;
	hash_out(&s, out);
	if (n_used)
		*n_used = used;
	return true;
}

void bug_frames_text(const struct bug_frame *fr, size_t n, char *buf, size_t len)
{
	size_t l = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < n && l + 1 < len; i++) {
		int w = fr[i].object[0] ?
			snprintf(buf + l, len - l, "%s%s+0x%" PRIx64, i ? " " : "",
				 fr[i].build_id[0] ? fr[i].build_id : "?", fr[i].offset) :
			snprintf(buf + l, len - l, "%s?", i ? " " : "");

		if (w < 0 || (size_t)w >= len - l) {
			buf[l] = '\0'; /* no half word */
			break;
		}
		l += (size_t)w;
	}
}

/* --- the build-id -------------------------------------------------------- */

/* The GNU build-id of the ELF file FD in hex into OUT.  0, or -errno with
 * *WHY. */
static int read_build_id(int fd, char *out, size_t len, const char **why)
{
	const void *id = NULL;
	ssize_t n;
	Elf *elf;

	out[0] = '\0';
	if (elf_version(EV_CURRENT) == EV_NONE) {
		*why = "libelf is unusable";
		return -EINVAL;
	}
	/* ELF_C_READ: pread(), not mmap(): the file is the faulting
	 * process's owner's, who could truncate it under a mapping of ours
	 * (SIGBUS). */
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		*why = "not an ELF file";
		return -ENOEXEC;
	}
	n = dwelf_elf_gnu_build_id(elf, &id);
	if (n <= 0 || !id || (size_t)n > BUG_BUILD_ID_MAX || 2 * (size_t)n + 1 > len) {
		elf_end(elf);
		*why = n == 0 || !id ? "the object has no GNU build-id note" : "the object's build-id note is unreadable";
		return -ENOENT;
	}
	for (ssize_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", ((const unsigned char *)id)[i]);
	elf_end(elf);
	return 0;
}

/* Open PATH under the directory ROOT without following any symbolic
 * link (maps names a file by its real path: a link on the way was put
 * there since), with openat2() (Linux 5.6), else O_NOFOLLOW on the last
 * component only.  An fd or -errno. */
int bug_open_beneath(const char *root, const char *path)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_IN_ROOT,
	};
	int dfd, fd, e;

	dfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	while (*path == '/')
		path++;
	fd = (int)syscall(SYS_openat2, dfd, path, &how, sizeof(how));
	if (fd < 0 && (errno == ENOSYS || errno == EPERM))
		fd = openat(dfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
	e = errno;
	close(dfd);
	return fd < 0 ? -e : fd;
}

/* Open the file of mapping M of PROC/PID: map_files (the very file, even
 * deleted or in another mount namespace; needs CAP_SYS_ADMIN), else the
 * path under the process's root, which must have the mapping's inode.
 * The file is the process's owner's choice: only a regular file is
 * opened (a device's open can do things), checked before and after.
 * An fd, or -errno with *WHY. */
static int open_object(const char *proc, pid_t pid, const struct procmap *m, const char **why)
{
	char path[8192];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/%d/map_files/%" PRIx64 "-%" PRIx64, proc, (int)pid, m->start, m->end);
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		*why = "the object is not a regular file";
		return -EINVAL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		if (str_ends_with(m->path, " (deleted)")) {
			*why = "the object was deleted and its mapping cannot be opened";
			return -ENOENT;
		}
		snprintf(path, sizeof(path), "%s/%d/root", proc, (int)pid);
		if (strlen(path) + strlen(m->path) + 1 >= sizeof(path)) {
			*why = "the object's path is too long";
			return -ENAMETOOLONG;
		}
		/* Before the open too: a device must not be opened at all. */
		strcat(path, m->path);
		if (stat(path, &st) == 0 && (!S_ISREG(st.st_mode) || (uint64_t)st.st_ino != m->inode)) {
			*why = "the object's path names another file now (replaced since it was mapped)";
			return -ESTALE;
		}
		snprintf(path, sizeof(path), "%s/%d/root", proc, (int)pid);
		fd = bug_open_beneath(path, m->path);
		if (fd < 0) {
			*why = fd == -ELOOP || fd == -EXDEV ?
			       "the object's path goes through a symbolic link now (replaced since it was mapped)" :
			       "the object cannot be opened (the process is gone, or no CAP_SYS_PTRACE)";
			return fd;
		}
		if (fstat(fd, &st) < 0 || (uint64_t)st.st_ino != m->inode) {
			close(fd);
			*why = "the object's path names another file now (replaced since it was mapped)";
			return -ESTALE;
		}
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		*why = "the object is not a regular file";
		return -EINVAL;
	}
	return fd;
}

static void note_add(struct bug_object *o, const char *what, const char *why)
{
	size_t l = strlen(o->note);

	snprintf(o->note + l, sizeof(o->note) - l, "%s%s: %s", l ? "; " : "", what, why);
}

static bool same_mapping(const struct procmap *a, const struct procmap *b)
{
	return a->start == b->start && a->end == b->end && a->offset == b->offset &&
	       a->inode == b->inode && strcmp(a->path, b->path) == 0;
}

int bug_object_of_pc(const char *proc, pid_t pid, uint64_t pc, struct bug_object *o,
		     const char **why)
{
	struct procmap *m = xmalloc(sizeof(*m)), *again = xmalloc(sizeof(*again));
	const char *w = NULL, *pw = NULL;
	int r, fd;

	memset(o, 0, sizeof(*o));
	r = procmaps_find_pid(proc, pid, pc, m);
	if (r <= 0) {
		*why = r == 0 ? "no mapping holds the pc (the process exec'd or unmapped it)" :
				"the process's maps cannot be read (it is gone)";
		r = 0;
		goto out;
	}
	if (m->path[0] != '/' || m->perms[2] != 'x' || !m->inode) {
		*why = m->perms[2] != 'x' ? "the pc is in a mapping without execute permission" :
					    "the pc is in memory without a file (JIT code?)";
		r = 0;
		goto out;
	}
	snprintf(o->path, sizeof(o->path), "%s", m->path);
	o->offset = (pc & 0x00ffffffffffffffULL) - m->start + m->offset;
	o->inode = m->inode;
	fd = open_object(proc, pid, m, &w);
	if (fd >= 0) {
		if (read_build_id(fd, o->build_id, sizeof(o->build_id), &w) < 0)
			note_add(o, "build-id", w);
		close(fd);
	} else {
		note_add(o, "build-id", w);
	}
	/* Still the same process image?  An exec or an munmap() between the
	 * two reads leaves nothing we can trust. */
	if (procmaps_find_pid(proc, pid, pc, again) != 1 || !same_mapping(m, again)) {
		*why = "the process changed its mappings while they were read (exec'd or gone)";
		r = 0;
		goto out;
	}
	if (str_ends_with(m->path, " (deleted)")) {
		note_add(o, "package", "the object was deleted (upgraded since the process started?)");
	} else {
		r = bug_dpkg_owner(dpkg_dir, m->path, m->inode, o->package, sizeof(o->package),
				   o->version, sizeof(o->version), &pw);
		if (r <= 0)
			note_add(o, "package", r < 0 ? strerror(-r) : pw);
	}
	r = 1;
out:
	free(m);
	free(again);
	return r;
}

int bug_object_of_exe(const char *proc, pid_t pid, struct bug_object *o, const char **why)
{
	struct procmap *m = xmalloc(sizeof(*m));
	char path[4096], *line = NULL;
	size_t cap = 0;
	struct stat st;
	ssize_t n;
	FILE *f;
	int r = 0;

	memset(o, 0, sizeof(*o));
	*why = "the process's executable cannot be read (it is gone)";
	snprintf(path, sizeof(path), "%s/%d/exe", proc, (int)pid);
	if (stat(path, &st) < 0)
		goto out;
	snprintf(path, sizeof(path), "%s/%d/maps", proc, (int)pid);
	f = fopen(path, "re");
	if (!f)
		goto out;
	*why = "no executable mapping of the process's executable (it exec'd?)";
	while ((n = getline(&line, &cap, f)) > 0)
		if (procmaps_parse_line(line, (size_t)n, m) == 0 && m->path[0] == '/' &&
		    m->perms[2] == 'x' && m->inode == (uint64_t)st.st_ino) {
			r = 1;
			break;
		}
	free(line);
	fclose(f);
	/* Its text, through bug_object_of_pc()'s checks; the offset of its
	 * first byte means nothing. */
	if (r)
		r = bug_object_of_pc(proc, pid, m->start, o, why);
out:
	free(m);
	return r;
}

/* --- dpkg ---------------------------------------------------------------- */

/* Does the list file LIST hold the line PATH (or ALT)?  *BUDGET: bytes
 * left to read in all.  1, 0, or -EFBIG when the budget ran out. */
static int list_has(int dirfd, const char *list, const char *path, const char *alt, size_t *budget)
{
	int fd = openat(dirfd, list, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	char *line = NULL;
	size_t cap = 0, pl = strlen(path), al = alt ? strlen(alt) : 0;
	ssize_t n;
	FILE *f;
	int r = 0;

	if (fd < 0)
		return 0;
	f = fdopen(fd, "re");
	if (!f) {
		close(fd);
		return 0;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		if ((size_t)n > *budget) {
			r = -EFBIG;
			break;
		}
		*budget -= (size_t)n;
		if (line[n - 1] == '\n')
			n--;
		if (((size_t)n == pl && memcmp(line, path, pl) == 0) ||
		    (alt && (size_t)n == al && memcmp(line, alt, al) == 0)) {
			r = 1;
			break;
		}
		if (cap > LINE_MAX_BYTES) {
			free(line);
			line = NULL;
			cap = 0;
		}
	}
	free(line);
	fclose(f);
	return r;
}

/* The Version: of PKG (ARCH: its Architecture:, or NULL) installed, from
 * ADMINDIR/status.  1, 0 none. */
static int status_version(const char *admindir, const char *pkg, const char *arch, char *ver,
			  size_t len)
{
	char path[4096], *line = NULL, cur_pkg[256] = "", cur_arch[64] = "", cur_ver[128] = "";
	bool installed = false;
	size_t cap = 0, budget = BUG_DPKG_MAX_BYTES;
	ssize_t n;
	FILE *f;
	int r = 0;

	snprintf(path, sizeof(path), "%s/status", admindir);
	f = fopen(path, "re");
	if (!f)
		return 0;
	for (;;) {
		n = getline(&line, &cap, f);
		if (n > 0 && (size_t)n <= budget)
			budget -= (size_t)n;
		else if (n > 0)
			n = -1;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n <= 0) { /* the end of a stanza */
			if (installed && strcmp(cur_pkg, pkg) == 0 && (!arch || strcmp(cur_arch, arch) == 0)) {
				snprintf(ver, len, "%s", cur_ver);
				r = 1;
				break;
			}
			cur_pkg[0] = cur_arch[0] = cur_ver[0] = '\0';
			installed = false;
			if (n < 0)
				break;
			continue;
		}
		if (strncmp(line, "Package: ", 9) == 0)
			snprintf(cur_pkg, sizeof(cur_pkg), "%s", line + 9);
		else if (strncmp(line, "Architecture: ", 14) == 0)
			snprintf(cur_arch, sizeof(cur_arch), "%s", line + 14);
		else if (strncmp(line, "Version: ", 9) == 0)
			snprintf(cur_ver, sizeof(cur_ver), "%s", line + 9);
		else if (strncmp(line, "Status: ", 8) == 0)
			installed = str_ends_with(line, " installed");
	}
	free(line);
	fclose(f);
	return r;
}

/* A small cache: the last few paths asked for, while the status file is
 * the same (dpkg rewrites it on every install and removal). */
#define CACHE_N 32
static struct cache_ent {
	char *path;
	uint64_t inode;
	int r;
	char pkg[256], ver[128];
	const char *why;
} cache[CACHE_N];
static size_t cache_next;
static struct timespec cache_mtime;
static ino_t cache_ino;
static char *cache_dir;

static void cache_check(const char *admindir)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/status", admindir);
	if (stat(path, &st) < 0)
		memset(&st, 0, sizeof(st));
	if (cache_dir && strcmp(cache_dir, admindir) == 0 && st.st_ino == cache_ino &&
	    st.st_mtim.tv_sec == cache_mtime.tv_sec && st.st_mtim.tv_nsec == cache_mtime.tv_nsec)
		return;
	for (size_t i = 0; i < CACHE_N; i++) {
		free(cache[i].path);
		cache[i].path = NULL;
	}
	free(cache_dir);
	cache_dir = xstrdup(admindir);
	cache_ino = st.st_ino;
	cache_mtime = st.st_mtim;
}

static int owner_scan(const char *admindir, const char *path, char *pkg, size_t pkg_len,
		      char *version, size_t version_len, const char **why)
{
	char info[4096], alt[4096], *dot, *colon;
	const char *a = NULL;
	static const char *const merged[] = { "bin/", "sbin/", "lib/", "lib32/", "lib64/", "libx32/" };
	size_t budget = BUG_DPKG_MAX_BYTES, files = 0;
	struct dirent *d;
	DIR *dir;
	int dfd, r = 0;

	/* Merged /usr: dpkg may list /lib/x for the file at /usr/lib/x. */
	if (strncmp(path, "/usr/", 5) == 0)
		for (size_t i = 0; i < sizeof(merged) / sizeof(merged[0]); i++)
			if (strncmp(path + 5, merged[i], strlen(merged[i])) == 0) {
				snprintf(alt, sizeof(alt), "%s", path + 4);
				a = alt;
			}
	snprintf(info, sizeof(info), "%s/info", admindir);
	dir = opendir(info);
	if (!dir) {
		*why = "no dpkg database";
		return 0;
	}
	dfd = dirfd(dir);
	while ((d = readdir(dir))) {
		size_t l = strlen(d->d_name);

		if (l < 6 || strcmp(d->d_name + l - 5, ".list") != 0)
			continue;
		if (++files > LIST_FILES_MAX) {
			r = -EFBIG;
			break;
		}
		r = list_has(dfd, d->d_name, path, a, &budget);
		if (r != 0)
			break;
	}
	if (r == 1) {
		snprintf(pkg, pkg_len, "%.*s", (int)(strlen(d->d_name) - 5), d->d_name);
		dot = xstrdup(pkg);
		colon = strchr(dot, ':');
		if (colon)
			*colon++ = '\0';
		if (status_version(admindir, dot, colon, version, version_len) <= 0) {
			version[0] = '\0';
			*why = "the owning package is not installed (dpkg's status)";
			r = 0;
			pkg[0] = '\0';
		}
		free(dot);
	} else if (r == -EFBIG) {
		*why = "the dpkg database is larger than the bound (skipped)";
		r = 0;
	} else {
		*why = "no package owns it";
	}
	closedir(dir);
	return r;
}

int bug_dpkg_owner(const char *admindir, const char *path, uint64_t inode, char *pkg,
		   size_t pkg_len, char *version, size_t version_len, const char **why)
{
	struct stat st;
	struct cache_ent *c;
	int r;

	pkg[0] = version[0] = '\0';
	if (!admindir)
		admindir = "/var/lib/dpkg";
	if (path[0] != '/' || strchr(path, '\n')) {
		*why = "not an absolute path";
		return 0;
	}
	if (stat(path, &st) < 0 || (uint64_t)st.st_ino != inode) {
		*why = "this host's file of that name is another one (a container's, or replaced)";
		return 0;
	}
	cache_check(admindir);
	for (size_t i = 0; i < CACHE_N; i++)
		if (cache[i].path && cache[i].inode == inode && strcmp(cache[i].path, path) == 0) {
			snprintf(pkg, pkg_len, "%s", cache[i].pkg);
			snprintf(version, version_len, "%s", cache[i].ver);
			*why = cache[i].why;
			return cache[i].r;
		}
	*why = NULL;
	r = owner_scan(admindir, path, pkg, pkg_len, version, version_len, why);
	c = &cache[cache_next++ % CACHE_N];
	free(c->path);
	c->path = xstrdup(path);
	c->inode = inode;
	c->r = r;
	snprintf(c->pkg, sizeof(c->pkg), "%s", pkg);
	snprintf(c->ver, sizeof(c->ver), "%s", version);
	c->why = *why;
	return r;
}
