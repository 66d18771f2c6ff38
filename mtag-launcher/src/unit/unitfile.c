/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unitfile.c -- read a service's effective ExecStart= the way systemd
 * does (fragment, then drop-ins sorted by file name, an empty assignment
 * resetting the list) and wrap it in mtag-launcher. */
#include "unitfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dropins.h"
#include "strv.h"
#include "sysvinit.h"
#include "unitmap.h"
#include "util.h"

#define MAX_UNIT_FILE (4u << 20)
#define LONG_LINE_MAX (1u << 20) /* systemd's limit of a joined line */

/*
 * systemd's search path of system units, in its order, for the systemd the
 * package is built against (MTAG_SYSTEMD_VERSION, from its suite's
 * libsystemd.pc).  Before 255 Debian built systemd with rootprefix=/, so
 * its own units' directory was /lib/systemd/system, searched before
 * /usr/lib/systemd/system (Debian 12: 252).  255 dropped split /usr: the
 * units are under /usr/lib/systemd/system only, and /lib/systemd/system is
 * not searched (Debian 13: 257; its /lib is a link to usr/lib anyway, but a
 * --root tree or a SYSTEMD_UNIT_PATH default must not see it).
 */
#ifndef MTAG_SYSTEMD_VERSION
#error "MTAG_SYSTEMD_VERSION (pkg-config --modversion libsystemd) is not set"
#endif
static const char *const default_unit_dirs[] = {
	"/etc/systemd/system.control",
	"/run/systemd/system.control",
	"/run/systemd/transient",
	"/etc/systemd/system",
	"/etc/systemd/system.attached",
	"/run/systemd/system",
	"/run/systemd/system.attached",
	"/usr/local/lib/systemd/system",
#if MTAG_SYSTEMD_VERSION < 255
	"/lib/systemd/system",
#endif
	"/usr/lib/systemd/system",
};

static void push_defaults(struct strv *dirs, const char *root)
{
	for (size_t i = 0; i < sizeof(default_unit_dirs) / sizeof(default_unit_dirs[0]); i++) {
		char *d = xasprintf("%s%s", root ? root : "", default_unit_dirs[i]);

		if (strv_contains(dirs, d))
			free(d);
		else
			strv_push(dirs, d);
	}
}

void unit_paths(struct strv *dirs, const char *root)
{
	const char *env = getenv("SYSTEMD_UNIT_PATH");

	memset(dirs, 0, sizeof(*dirs));
	if (!env || !*env) {
		push_defaults(dirs, root);
		return;
	}
	for (const char *s = env;;) {
		const char *end = strchr(s, ':');
		size_t len = end ? (size_t)(end - s) : strlen(s);

		if (len)
			strv_push(dirs, xstrndup(s, len));
		if (!end)
			break;
		s = end + 1;
		if (!*s) /* trailing ':': the defaults follow */
			push_defaults(dirs, root);
	}
}

/* --- config_parse ------------------------------------------------------
 * systemd's src/shared/conf-parser.c: a line ends at "\n", "\r", "\r\n"
 * or a NUL (read_line); a line whose first non-blank is '#' or ';' is a
 * comment, also in the middle of a continuation; a line ends in a
 * continuation when its last character is a backslash that is not itself
 * escaped ("x\\" is not one, nor is "x\ " with a blank after it), and the
 * backslash becomes a space; a UTF-8 byte order mark is dropped once.  Each
 * joined line is stripped of blanks; "[NAME]" opens a section (a header
 * without the closing ']' or with unsafe characters is an error that ends
 * the file); "KEY=VALUE" is split at the first '=' and both sides are
 * stripped; other lines are ignored. */

#define WHITESPACE " \t\n\r"

static char *strip(char *s)
{
	char *e;

	s += strspn(s, WHITESPACE);
	e = s + strlen(s);
	while (e > s && strchr(WHITESPACE, e[-1]))
		*--e = '\0';
	return s;
}

static void keys_push(struct unit_file_keys *k, unsigned key, const char *value)
{
	grow_array((void **)&k->v, &k->cap, k->n + 1, sizeof(*k->v));
	k->v[k->n].key = key;
	k->v[k->n].value = *value ? xstrdup(value) : NULL;
	k->n++;
}

static bool section_name_safe(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || *s == 127 || strchr("\\\"'", *s))
			return false;
	return true;
}

/* One joined line.  Returns -1 (with *ERR) on an invalid section header. */
static int parse_line(const char *name, unsigned line, char *l, char **section,
		      const char *const *keys, size_t nkeys, struct unit_file_keys *out,
		      char **err)
{
	char *eq, *key;

	l = strip(l);
	if (!*l)
		return 0;
	if (*l == '[') {
		size_t k = strlen(l);

		if (l[k - 1] != ']') {
			*err = xasprintf("%s:%u: invalid section header '%s'", name, line, l);
			return -1;
		}
		free(*section);
		*section = xstrndup(l + 1, k - 2);
		if (!section_name_safe(*section)) {
			*err = xasprintf("%s:%u: bad characters in section header '%s'", name, line, l);
			return -1;
		}
		return 0;
	}
	if (!*section || strcmp(*section, "Service") != 0 || !(eq = strchr(l, '=')) || eq == l)
		return 0;
	*eq = '\0';
	key = strip(l);
	for (size_t i = 0; i < nkeys; i++)
		if (strcmp(key, keys[i]) == 0)
			keys_push(out, (unsigned)i, strip(eq + 1));
	return 0;
}

int unit_text_parse(const char *name, const char *text, size_t len, const char *const *keys,
		    size_t nkeys, struct unit_file_keys *out, char **err)
{
	char *cont = NULL, *section = NULL;
	size_t clen = 0, ccap = 0;
	unsigned line = 0;
	bool bom_done = false;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	*err = NULL;
	for (size_t pos = 0; pos < len && rc == 0;) {
		size_t start = pos, n, add;
		const char *l, *q;
		bool escaped = false;

		while (pos < len && text[pos] != '\n' && text[pos] != '\r' && text[pos] != '\0')
			pos++;
		n = pos - start;
		if (pos < len) { /* the line ending: \n, \r, \r\n, each maybe with a NUL */
			char c = text[pos++];

			if (c == '\r' && pos < len && text[pos] == '\n')
				pos++;
			if (c != '\0' && pos < len && text[pos] == '\0')
				pos++;
		}
		line++;
		l = text + start;
		q = l;
		while (q < l + n && strchr(WHITESPACE, *q))
			q++;
		if (q < l + n && (*q == '#' || *q == ';'))
			continue; /* a comment, also inside a continuation */
		if (!bom_done && n >= 3 && memcmp(l, "\xef\xbb\xbf", 3) == 0) {
			l += 3;
			n -= 3;
			bom_done = true;
		}
		add = n;
		if (clen + add > LONG_LINE_MAX) {
			*err = xasprintf("%s:%u: continuation line too long", name, line);
			rc = -1;
			break;
		}
		grow_array((void **)&cont, &ccap, clen + add + 1, 1);
		memcpy(cont + clen, l, add);
		/* What came before ended in the (now blank) continuation
		 * backslash: no escape is pending, scan only the new part. */
		for (size_t i = clen; i < clen + add; i++) {
			if (escaped)
				escaped = false;
			else if (cont[i] == '\\')
				escaped = true;
		}
		clen += add;
		cont[clen] = '\0';
		if (escaped) {
			cont[clen - 1] = ' ';
			continue;
		}
		rc = parse_line(name, line, cont, &section, keys, nkeys, out, err);
		clen = 0;
	}
	if (clen && rc == 0) /* the file ends in a continuation */
		rc = parse_line(name, line, cont, &section, keys, nkeys, out, err);
	free(cont);
	free(section);
	return rc;
}

int unit_file_parse(const char *path, const char *const *keys, size_t nkeys,
		    struct unit_file_keys *out, char **err)
{
	struct stat st;
	char *buf;
	size_t len;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY), r;

	memset(out, 0, sizeof(*out));
	*err = NULL;
	if (fd < 0) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		return errno == ENOENT ? 1 : -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd); /* /dev/null (a masked drop-in), a directory */
		*err = xasprintf("%s: not a regular file", path);
		return 1;
	}
	r = read_fd_all(fd, MAX_UNIT_FILE, &buf, &len);
	close(fd);
	if (r < 0) {
		*err = xasprintf("%s: %s", path, strerror(-r));
		return -1;
	}
	r = unit_text_parse(path, buf, len, keys, nkeys, out, err);
	free(buf);
	return r;
}

void unit_file_keys_free(struct unit_file_keys *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].value);
	free(k->v);
	memset(k, 0, sizeof(*k));
}

size_t unit_file_keys_apply(const struct unit_file_keys *k, unsigned key, struct strv *list,
			    bool *reset)
{
	size_t n = 0;

	for (size_t i = 0; i < k->n; i++) {
		if (k->v[i].key != key)
			continue;
		n++;
		if (k->v[i].value) {
			strv_push(list, xstrdup(k->v[i].value));
		} else {
			strv_free(list);
			if (reset)
				*reset = true;
		}
	}
	return n;
}

/* --- a unit's values --------------------------------------------------- */

static const char *const value_keys[] = { "ExecStart", "NoExecPaths" };

struct parsed {
	struct unit_file_keys k;
	int rc;
	char *err;
};

static void parsed_free(void *p)
{
	struct parsed *x = p;

	if (x) {
		unit_file_keys_free(&x->k);
		free(x->err);
		free(x);
	}
}

/* PATH parsed once per run (a drop-in shared by many units, such as
 * service.d/x.conf, is read once). */
static const struct parsed *parse_cached(struct strmap *cache, const char *path)
{
	void **slot = strmap_slot(cache, path);
	struct parsed *x = *slot;

	if (!x) {
		x = xmalloc(sizeof(*x));
		x->rc = unit_file_parse(path, value_keys, 2, &x->k, &x->err);
		*slot = x;
	}
	return x;
}

void unit_values_cache_free(struct strmap *cache)
{
	strmap_free(cache, parsed_free);
}

int unit_read_values(struct unitmap *m, struct strmap *cache, const struct unit_load *u,
		     const char *skip, struct unit_values *v, char **err)
{
	const struct parsed *x;
	struct dropins d;

	memset(v, 0, sizeof(*v));
	*err = NULL;
	if (u->sysv) {
		/* What systemd-sysv-generator writes: "ExecStart=SCRIPT start"
		 * (the path with its specifiers escaped; quoted here so that
		 * any path stays one word). */
		strv_push(&v->exec_start, sysv_exec_start(u->sysv));
	} else {
		x = parse_cached(cache, u->fragment);
		if (x->rc != 0) {
			*err = xstrdup(x->err);
			return -1;
		}
		unit_file_keys_apply(&x->k, 0, &v->exec_start, NULL);
		unit_file_keys_apply(&x->k, 1, &v->no_exec_paths, NULL);
	}
	unitmap_dropins(m, u, skip, &d);
	for (size_t i = 0; i < d.n; i++) {
		bool reset = false;

		x = parse_cached(cache, d.v[i].path);
		/* systemd ignores a drop-in it cannot read, and keeps what a
		 * drop-in set before a bad line. */
		if (unit_file_keys_apply(&x->k, 0, &v->exec_start, &reset) && skip &&
		    strcmp(d.v[i].name, skip) > 0)
			strv_push(reset ? &v->late_reset : &v->late_add, xstrdup(d.v[i].path));
		unit_file_keys_apply(&x->k, 1, &v->no_exec_paths, NULL);
	}
	dropins_free(&d);
	return 0;
}

void unit_values_free(struct unit_values *v)
{
	strv_free(&v->exec_start);
	strv_free(&v->no_exec_paths);
	strv_free(&v->late_reset);
	strv_free(&v->late_add);
}
