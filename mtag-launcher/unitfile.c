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
#include "util.h"

#define MAX_UNIT_FILE (4u << 20)

static const char *const default_unit_dirs[] = {
	"/etc/systemd/system.control",
	"/run/systemd/system.control",
	"/run/systemd/transient",
	"/etc/systemd/system",
	"/etc/systemd/system.attached",
	"/run/systemd/system",
	"/run/systemd/system.attached",
	"/usr/local/lib/systemd/system",
	"/lib/systemd/system",
	"/usr/lib/systemd/system",
};

void strv_push(struct strv *s, char *owned)
{
	grow_array((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = owned;
}

void strv_free(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static bool strv_contains(const struct strv *s, const char *x)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], x) == 0)
			return true;
	return false;
}

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

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && strcmp(s + n - m, suffix) == 0;
}

void unit_list_services(const struct strv *dirs, struct strv *names)
{
	memset(names, 0, sizeof(*names));
	for (size_t i = 0; i < dirs->n; i++) {
		DIR *d = opendir(dirs->v[i]);
		struct dirent *de;

		if (!d)
			continue;
		while ((de = readdir(d)))
			if (de->d_name[0] != '.' && has_suffix(de->d_name, ".service") &&
			    !strv_contains(names, de->d_name))
				strv_push(names, xstrdup(de->d_name));
		closedir(d);
	}
	if (names->n)
		qsort(names->v, names->n, sizeof(*names->v), cmp_str);
}

static char *template_name(const char *name)
{
	const char *at = strchr(name, '@');
	const char *dot = strrchr(name, '.');

	if (!at || !dot || dot < at || dot == at + 1)
		return NULL;
	return xasprintf("%.*s%s", (int)(at - name + 1), name, dot);
}

static enum unit_state find_in_dirs(const struct strv *dirs, const char *name,
				    char **path, char **real)
{
	for (size_t i = 0; i < dirs->n; i++) {
		char *p = xasprintf("%s/%s", dirs->v[i], name);
		struct stat st;

		if (lstat(p, &st) < 0) {
			free(p);
			continue;
		}
		*real = xstrdup(name);
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlink(p, target, sizeof(target) - 1);

			if (n > 0) {
				const char *base;

				target[n] = '\0';
				if (strcmp(target, "/dev/null") == 0) {
					free(p);
					return UNIT_MASKED;
				}
				base = strrchr(target, '/');
				base = base ? base + 1 : target;
				if (has_suffix(base, ".service") && strcmp(base, name) != 0 &&
				    !has_suffix(base, "@.service")) {
					free(*real);
					*real = xstrdup(base);
				}
			}
		}
		if (stat(p, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
			/* Dangling link, /dev/null or an empty file. */
			free(p);
			return UNIT_MASKED;
		}
		*path = p;
		return UNIT_FOUND;
	}
	return UNIT_NOT_FOUND;
}

enum unit_state unit_find(const struct strv *dirs, const char *name, char **path, char **real)
{
	enum unit_state s;
	char *tpl;

	*path = *real = NULL;
	s = find_in_dirs(dirs, name, path, real);
	if (s != UNIT_NOT_FOUND)
		return s;
	tpl = template_name(name);
	if (!tpl || strcmp(tpl, name) == 0) {
		free(tpl);
		return UNIT_NOT_FOUND;
	}
	s = find_in_dirs(dirs, tpl, path, real);
	free(tpl);
	if (s == UNIT_FOUND) {
		free(*real);
		*real = xstrdup(name);
	}
	return s;
}

/* Names whose NAME.d directories hold drop-ins for unit REAL. */
static void dropin_names(const char *real, const char *alias, struct strv *names)
{
	char *tpl = template_name(real);
	const char *dot = strrchr(real, '.');

	memset(names, 0, sizeof(*names));
	strv_push(names, xstrdup(real));
	if (alias && strcmp(alias, real) != 0)
		strv_push(names, xstrdup(alias));
	if (tpl && strcmp(tpl, real) != 0)
		strv_push(names, tpl);
	else
		free(tpl);
	/* Hierarchical drop-ins: a-b-c.service reads a-.service.d and
	 * a-b-.service.d, and every service reads service.d. */
	for (const char *dash = strchr(real, '-'); dash && dot && dash < dot;
	     dash = strchr(dash + 1, '-'))
		strv_push(names, xasprintf("%.*s%s", (int)(dash - real + 1), real, dot));
	strv_push(names, xstrdup(dot ? dot + 1 : "service"));
}

static void trim(char **s)
{
	char *p = *s, *e;

	p += strspn(p, " \t");
	e = p + strlen(p);
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
		*--e = '\0';
	*s = p;
}

static void process_line(char *line, char *section, size_t section_size, const char *want,
			 struct strv *out)
{
	char *eq, *key, *val;

	trim(&line);
	if (!*line || *line == '#' || *line == ';')
		return;
	if (*line == '[') {
		char *end = strchr(line, ']');

		snprintf(section, section_size, "%.*s",
			 end ? (int)(end - line - 1) : 0, line + 1);
		return;
	}
	if (strcmp(section, "Service") != 0 || !(eq = strchr(line, '=')))
		return;
	*eq = '\0';
	key = line;
	val = eq + 1;
	trim(&key);
	trim(&val);
	if (strcmp(key, want) != 0)
		return;
	if (!*val)
		strv_free(out);
	else
		strv_push(out, xstrdup(val));
}

static int parse_key(const char *path, const char *want, struct strv *out, char **err)
{
	char *buf, *logical = NULL, section[64] = "";
	size_t len, llen = 0, lcap = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;
	bool cont = false;

	if (fd < 0) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	r = read_fd_all(fd, MAX_UNIT_FILE, &buf, &len);
	close(fd);
	if (r < 0) {
		*err = xasprintf("%s: %s", path, strerror(-r));
		return -1;
	}
	for (char *s = buf, *nl; s && *s; s = nl ? nl + 1 : NULL) {
		size_t n;
		char *t;

		nl = strchr(s, '\n');
		if (nl)
			*nl = '\0';
		t = s + strspn(s, " \t");
		/* Comment lines inside a continued line are dropped. */
		if (cont && (*t == '#' || *t == ';'))
			continue;
		n = strlen(s);
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
			n--;
		cont = n && s[n - 1] == '\\';
		if (cont)
			n--;
		grow_array((void **)&logical, &lcap, llen + n + 2, 1);
		memcpy(logical + llen, s, n);
		llen += n;
		if (cont) {
			logical[llen++] = ' ';
			continue;
		}
		logical[llen] = '\0';
		process_line(logical, section, sizeof(section), want, out);
		llen = 0;
	}
	if (llen) {
		logical[llen] = '\0';
		process_line(logical, section, sizeof(section), want, out);
	}
	free(logical);
	free(buf);
	return 0;
}

int unit_service_values(const struct strv *dirs, const char *fragment, const char *real,
			const char *alias, const char *skip, const char *key, struct strv *out,
			char **err)
{
	struct strv names;
	struct dropins d = { 0 };
	int rc = 0;

	memset(out, 0, sizeof(*out));
	*err = NULL;
	if (parse_key(fragment, key, out, err) < 0)
		return -1;

	dropin_names(real, alias, &names);
	for (size_t i = 0; i < dirs->n; i++)
		for (size_t j = 0; j < names.n; j++) {
			char *dir = xasprintf("%s/%s.d", dirs->v[i], names.v[j]);

			dropins_add_dir(&d, dir, skip);
			free(dir);
		}
	strv_free(&names);
	dropins_sort(&d);
	for (size_t i = 0; i < d.n && rc == 0; i++) {
		struct stat st;

		/* A drop-in linked to /dev/null masks the same name. */
		if (stat(d.v[i].path, &st) == 0 && S_ISREG(st.st_mode) &&
		    parse_key(d.v[i].path, key, out, err) < 0)
			rc = -1;
	}
	dropins_free(&d);
	if (rc < 0)
		strv_free(out);
	return rc;
}

int unit_exec_start(const struct strv *dirs, const char *fragment, const char *real,
		    const char *alias, const char *skip, struct strv *out, char **err)
{
	return unit_service_values(dirs, fragment, real, alias, skip, "ExecStart", out, err);
}

/* The extent of the next word of a command line as systemd splits it
 * (whitespace-separated, '...' and "..." quoting, backslash escapes).
 * Returns a pointer past the word, or NULL for an unterminated quote. */
static const char *word_end(const char *s)
{
	char quote = 0;

	for (; *s; s++) {
		if (*s == '\\') {
			if (!s[1])
				return NULL;
			s++;
		} else if (quote) {
			if (*s == quote)
				quote = 0;
		} else if (*s == '\'' || *s == '"') {
			quote = *s;
		} else if (*s == ' ' || *s == '\t') {
			break;
		}
	}
	return quote ? NULL : s;
}

/* Do the words of S all end properly (no unterminated quote)? */
static bool words_ok(const char *s)
{
	for (;;) {
		s += strspn(s, " \t");
		if (!*s)
			return true;
		s = word_end(s);
		if (!s)
			return false;
	}
}

static const char *skip_prefixes(const char *v, char *prefix, size_t size, bool *argv0)
{
	size_t n = 0;

	*argv0 = false;
	for (; *v && strchr("-@:+!", *v); v++) {
		if (*v == '@')
			*argv0 = true;
		else if (n + 1 < size)
			prefix[n++] = *v;
	}
	prefix[n] = '\0';
	return v;
}

char *unit_wrap_exec(const char *value, const char *launcher, const char *args)
{
	char prefix[8];
	bool argv0;
	const char *path = skip_prefixes(value, prefix, sizeof(prefix), &argv0);
	const char *path_end = word_end(path), *a0 = NULL, *a0_end = NULL, *rest;

	if (!path_end || path_end == path)
		return NULL;
	rest = path_end;
	if (argv0) {
		a0 = path_end + strspn(path_end, " \t");
		a0_end = word_end(a0);
		if (!a0_end || a0_end == a0)
			return NULL;
		rest = a0_end;
	}
	if (!words_ok(rest))
		return NULL;
	if (argv0)
		return xasprintf("%s%s %s --argv0 %.*s -- %.*s%s", prefix, launcher,
				 args, (int)(a0_end - a0), a0, (int)(path_end - path),
				 path, rest);
	return xasprintf("%s%s %s -- %.*s%s", prefix, launcher, args,
			 (int)(path_end - path), path, rest);
}

bool unit_exec_runs(const char *value, const char *launcher)
{
	char prefix[8];
	bool argv0;
	const char *path = skip_prefixes(value, prefix, sizeof(prefix), &argv0);
	const char *end = word_end(path);
	const char *base = strrchr(launcher, '/');
	size_t n;

	if (!end)
		return false;
	n = (size_t)(end - path);
	base = base ? base + 1 : launcher;
	return (n == strlen(launcher) && memcmp(path, launcher, n) == 0) ||
	       (n == strlen(base) && memcmp(path, base, n) == 0);
}
