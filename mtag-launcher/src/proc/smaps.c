/* SPDX-License-Identifier: GPL-2.0-or-later */
/* smaps.c -- tagged anonymous memory from /proc/PID/smaps. */
#include "smaps.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "procmaps.h"

/* "Key:   1234 kB": the number, or false. */
static bool kb_field(const char *line, const char *key, uint64_t *v)
{
	size_t l = strlen(key);
	const char *p;
	uint64_t x = 0;

	if (strncmp(line, key, l) != 0 || line[l] != ':')
		return false;
	p = line + l + 1;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*v = x;
	return true;
}

static bool has_flag(const char *flags, const char *flag)
{
	size_t l = strlen(flag);

	for (const char *p = flags; *p;) {
		size_t n;

		p += strspn(p, " \t\n");
		n = strcspn(p, " \t\n");
		if (n == l && memcmp(p, flag, l) == 0)
			return true;
		p += n;
	}
	return false;
}

struct cur {
	bool open;
	bool mallocable; /* no file, or [heap] */
	uint64_t anon, rss;
};

/* Memory malloc can hand out: a mapping without a file (glibc's arenas
 * and mmap'd chunks, another allocator's regions, "[anon:NAME]" when it
 * names them with PR_SET_VMA_ANON_NAME) or the brk heap; not [stack],
 * [vdso], [vvar], ..., nor a file's copy-on-write pages. */
static bool mallocable_path(const char *path)
{
	return path[0] == '\0' || strcmp(path, "[heap]") == 0 ||
	       strncmp(path, "[anon:", 6) == 0;
}

bool smaps_heap_tagged(uint64_t malloc_kb, uint64_t mt_malloc_kb)
{
	if (!malloc_kb)
		return true;
	/* mt <= all; 100 * kB cannot overflow for any real process. */
	return mt_malloc_kb * 100 >= malloc_kb * SMAPS_HEAP_TAGGED_MIN_PERCENT;
}

static void close_mapping(struct cur *c, struct smaps_mte *out, bool mt)
{
	if (!c->open)
		return;
	out->anon_kb += c->anon;
	out->rss_kb += c->rss;
	if (c->mallocable)
		out->malloc_kb += c->anon;
	if (mt) {
		out->mt_anon_kb += c->anon;
		out->mt_rss_kb += c->rss;
		out->n_mt_mappings++;
		if (c->mallocable)
			out->mt_malloc_kb += c->anon;
	}
	c->open = false;
}

int smaps_read_file(FILE *f, struct smaps_mte *out)
{
	struct procmap *hdr = malloc(sizeof(*hdr));
	struct cur c = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	bool junk = false;
	int r = 0;

	memset(out, 0, sizeof(*out));
	if (!hdr)
		return -ENOMEM;
	errno = 0;
	while ((n = getline(&line, &cap, f)) >= 0) {
		uint64_t v;

		if (procmaps_parse_line(line, (size_t)n, hdr) == 0) {
			close_mapping(&c, out, false); /* no VmFlags (old kernel) */
			c.open = true;
			c.mallocable = mallocable_path(hdr->path);
			c.anon = c.rss = 0;
			out->n_mappings++;
		} else if (!c.open) {
			junk = true;
		} else if (strncmp(line, "VmFlags:", 8) == 0) {
			close_mapping(&c, out, has_flag(line + 8, "mt"));
		} else if (kb_field(line, "Anonymous", &v)) {
			c.anon = v;
		} else if (kb_field(line, "Rss", &v)) {
			c.rss = v;
		}
	}
	if (ferror(f))
		r = errno ? -errno : -EIO;
	close_mapping(&c, out, false);
	if (!r && junk && out->n_mappings == 0)
		r = -EINVAL;
	free(line);
	free(hdr);
	return r;
}

int smaps_read_path(const char *path, struct smaps_mte *out)
{
	FILE *f = fopen(path, "re");
	int r;

	memset(out, 0, sizeof(*out));
	if (!f)
		return -errno;
	r = smaps_read_file(f, out);
	fclose(f);
	return r;
}

int smaps_read_pid(const char *proc, pid_t pid, struct smaps_mte *out)
{
	char path[4096];

	memset(out, 0, sizeof(*out));
	if (pid <= 0)
		return -EINVAL;
	if ((size_t)snprintf(path, sizeof(path), "%s/%d/smaps", proc ? proc : "/proc", (int)pid) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	return smaps_read_path(path, out);
}
