/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unitmap.c -- systemd's unit name map from one readdir pass over each
 * directory of the search path (see unitmap.h). */
#include "unitmap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unitname.h"
#include "util.h"

#define FOLLOW_MAX 64 /* alias hops, as systemd's unit_ids_map_get */

/* foo@bar.service -> "bar" (malloc'ed); NULL when no instance. */
static char *unit_name_instance(const char *name)
{
	const char *at = strchr(name, '@'), *e = strrchr(name, '.');

	if (unit_name_kind(name) != UNIT_NAME_INSTANCE)
		return NULL;
	return xstrndup(at + 1, (size_t)(e - at - 1));
}

/* TEMPLATE (foo@.service) with INSTANCE: foo@INSTANCE.service. */
static char *replace_instance(const char *tpl, const char *instance)
{
	const char *at = strchr(tpl, '@'), *e = strrchr(tpl, '.');

	return xasprintf("%.*s%s%s", (int)(at - tpl + 1), tpl, instance, e);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Lexically: drop "." and empty components, resolve "..". */
static void normalize(char *p)
{
	char *out = p, *s = p;

	while (*s) {
		char *seg;
		size_t n;

		while (*s == '/')
			s++;
		seg = s;
		while (*s && *s != '/')
			s++;
		n = (size_t)(s - seg);
		if (n == 0 || (n == 1 && seg[0] == '.'))
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			while (out > p && *--out != '/')
				;
			continue;
		}
		*out++ = '/';
		memmove(out, seg, n);
		out += n;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

/* Is PATH directly or deeper under one of DIRS? */
static bool under_dirs(const struct strv *dirs, const char *path)
{
	for (size_t i = 0; i < dirs->n; i++) {
		size_t n = strlen(dirs->v[i]);

		while (n > 1 && dirs->v[i][n - 1] == '/')
			n--;
		if (strncmp(path, dirs->v[i], n) == 0 && path[n] == '/')
			return true;
	}
	return false;
}

static bool in_search_path(struct unitmap *m, const char *path)
{
	char *parent, *real, *slash;
	bool in;

	if (under_dirs(&m->dirs, path))
		return true;
	if (strcmp(path, "/dev/null") == 0)
		return false;
	/* Through symlinked directories (/lib -> usr/lib), as systemd's
	 * chase_symlinks() sees the target. */
	if (!m->real_dirs.n)
		for (size_t i = 0; i < m->dirs.n; i++) {
			char *r = realpath(m->dirs.v[i], NULL);

			strv_push(&m->real_dirs, r ? r : xstrdup(m->dirs.v[i]));
		}
	parent = xstrdup(path);
	slash = strrchr(parent, '/');
	*slash = '\0';
	real = realpath(*parent ? parent : "/", NULL);
	if (!real) {
		free(parent);
		return false;
	}
	free(parent);
	parent = xasprintf("%s/x", real);
	in = under_dirs(&m->real_dirs, parent);
	free(parent);
	free(real);
	return in;
}

/* systemd's unit_validate_alias_symlink: same type; a template only for
 * a template; an instance for a template or the same instance. */
static bool alias_ok(const char *alias, const char *target)
{
	enum unit_name_kind a = unit_name_kind(alias), t = unit_name_kind(target);
	char *ai, *ti;
	bool ok;

	if (a == UNIT_NAME_INVALID || t == UNIT_NAME_INVALID ||
	    strcmp(strrchr(alias, '.'), strrchr(target, '.')) != 0)
		return false;
	if (a == UNIT_NAME_TEMPLATE || t == UNIT_NAME_TEMPLATE)
		return t == UNIT_NAME_TEMPLATE && a != UNIT_NAME_PLAIN;
	if (a != t)
		return false;
	if (a != UNIT_NAME_INSTANCE)
		return true;
	ai = unit_name_instance(alias);
	ti = unit_name_instance(target);
	ok = strcmp(ai, ti) == 0;
	free(ai);
	free(ti);
	return ok;
}

/* The map's value for symlink DIR/NAME: the alias target's name when it
 * points into the search path, else the link itself (a linked unit file
 * or a mask).  NULL: not usable (unreadable, or a bad alias). */
static char *resolve_link(struct unitmap *m, const char *dir, int dfd, const char *name)
{
	char target[PATH_MAX], *abs, *v;
	ssize_t n = readlinkat(dfd, name, target, sizeof(target) - 1);

	if (n <= 0)
		return NULL;
	target[n] = '\0';
	abs = target[0] == '/' ? xstrdup(target) : xasprintf("%s/%s", dir, target);
	normalize(abs);
	if (in_search_path(m, abs)) {
		v = alias_ok(name, base_name(abs)) ? xstrdup(base_name(abs)) : NULL;
	} else {
		v = xasprintf("%s/%s", dir, name);
	}
	free(abs);
	return v;
}

/* Follow aliases from NAME to a fragment path; NULL if none. */
static const char *ids_get(const struct unitmap *m, const char *name)
{
	for (unsigned i = 0; i < FOLLOW_MAX; i++) {
		const char *t = strmap_get(&m->ids, name);

		if (!t || t[0] == '/')
			return t;
		name = t;
	}
	return NULL; /* an alias loop */
}

static void strv_free_ptr(void *p)
{
	if (p) {
		strv_free(p);
		free(p);
	}
}

static void rev_put(struct strmap *rev, const char *dst, const char *src)
{
	void **slot = strmap_slot(rev, dst);

	if (!*slot)
		*slot = xmalloc(sizeof(struct strv)), memset(*slot, 0, sizeof(struct strv));
	strv_push(*slot, xstrdup(src));
}

static void scan_dir(struct unitmap *m, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *name = de->d_name;
		unsigned char type = de->d_type;
		struct stat st;
		char *v;

		if (name[0] == '.')
			continue;
		if (type == DT_UNKNOWN) {
			if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK :
			       S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
		}
		if (strlen(name) > 2 && str_ends_with(name, ".d")) {
			if (type == DT_DIR ||
			    (type == DT_LNK && fstatat(dirfd(d), name, &st, 0) == 0 && S_ISDIR(st.st_mode))) {
				char *p = xasprintf("%s/%s", dir, name);

				strmap_add(&m->dotd, p, NULL);
				free(p);
			}
			continue;
		}
		if ((type != DT_REG && type != DT_LNK) || unit_name_kind(name) == UNIT_NAME_INVALID ||
		    strmap_contains(&m->ids, name))
			continue; /* an earlier directory has it */
		v = type == DT_LNK ? resolve_link(m, dir, dirfd(d), name) : xasprintf("%s/%s", dir, name);
		if (v)
			strmap_add(&m->ids, name, v);
	}
	closedir(d);
}

void unitmap_build(struct unitmap *m, const struct strv *dirs)
{
	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < dirs->n; i++)
		strv_push(&m->dirs, xstrdup(dirs->v[i]));
	for (size_t i = 0; i < m->dirs.n; i++)
		scan_dir(m, m->dirs.v[i]);
	/* The reverse map: every name that leads to a fragment, under the
	 * fragment's name (and an instance alias of a template under the
	 * template's instance too). */
	for (size_t i = 0; i < m->ids.cap; i++) {
		const char *src = m->ids.slots[i].key, *frag, *dst;
		char *inst;

		if (!src || !(frag = ids_get(m, src)))
			continue;
		dst = base_name(frag);
		rev_put(&m->rev, dst, src);
		if (unit_name_kind(dst) == UNIT_NAME_TEMPLATE &&
		    (inst = unit_name_instance(src))) {
			char *dst_inst = replace_instance(dst, inst);

			rev_put(&m->rev, dst_inst, src);
			free(dst_inst);
			free(inst);
		}
	}
}

void unitmap_free(struct unitmap *m)
{
	strv_free(&m->dirs);
	strv_free(&m->real_dirs);
	strmap_free(&m->ids, free);
	strmap_free(&m->rev, strv_free_ptr);
	strmap_free(&m->dotd, NULL);
	strmap_free(&m->listed, strv_free_ptr);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void unitmap_list(const struct unitmap *m, const char *suffix, struct strv *names)
{
	memset(names, 0, sizeof(*names));
	for (size_t i = 0; i < m->ids.cap; i++)
		if (m->ids.slots[i].key && strlen(m->ids.slots[i].key) > strlen(suffix) &&
		    str_ends_with(m->ids.slots[i].key, suffix))
			strv_push(names, xstrdup(m->ids.slots[i].key));
	if (names->n)
		qsort(names->v, names->n, sizeof(*names->v), cmp_str);
}

/* The set of a unit's names, in insertion order, without duplicates. */
static void names_add(struct strv *names, const char *name)
{
	for (size_t i = 0; i < names->n; i++)
		if (strcmp(names->v[i], name) == 0)
			return;
	strv_push(names, xstrdup(name));
}

/* systemd's add_name: a template name stands for UNIT's instance. */
static void add_name(struct strv *names, const char *unit, const char *name)
{
	char *inst = unit_name_instance(unit);

	if (inst && unit_name_kind(name) == UNIT_NAME_TEMPLATE) {
		char *n = replace_instance(name, inst);

		names_add(names, n);
		free(n);
	} else {
		names_add(names, name);
	}
	free(inst);
}

/* systemd's add_names: NAME and every alias that leads to it. */
static void add_names(const struct unitmap *m, struct strv *names, const char *unit,
		      const char *fragment_name, const char *name)
{
	enum unit_name_kind kind = unit_name_kind(unit);
	const struct strv *aliases = strmap_get(&m->rev, name);
	char *inst = unit_name_instance(unit);

	if (kind != UNIT_NAME_TEMPLATE)
		add_name(names, unit, name);
	for (size_t i = 0; aliases && i < aliases->n; i++) {
		if (kind == UNIT_NAME_INSTANCE && unit_name_kind(aliases->v[i]) == UNIT_NAME_TEMPLATE) {
			char *n = replace_instance(aliases->v[i], inst);
			const char *f = ids_get(m, n);

			/* Not an instance that points elsewhere. */
			if (!f || !fragment_name || strcmp(base_name(f), fragment_name) == 0)
				names_add(names, n);
			free(n);
		} else {
			add_name(names, unit, aliases->v[i]);
		}
	}
	free(inst);
}

enum unit_state unitmap_load(struct unitmap *m, const char *name, struct unit_load *u)
{
	enum unit_name_kind kind = unit_name_kind(name);
	const char *frag;
	struct strv names = { 0 };
	struct stat st;
	char *inst;

	memset(u, 0, sizeof(*u));
	if (kind == UNIT_NAME_INVALID)
		return UNIT_NOT_FOUND;
	names_add(&names, name);
	if (kind != UNIT_NAME_TEMPLATE)
		add_names(m, &names, name, NULL, name);
	frag = ids_get(m, name);
	if (frag && strcmp(base_name(frag), name) != 0)
		add_names(m, &names, name, base_name(frag), base_name(frag));
	if (!frag && kind == UNIT_NAME_INSTANCE) {
		char *tpl = unit_name_template(name);

		frag = ids_get(m, tpl);
		if (frag)
			add_names(m, &names, name, base_name(frag), base_name(frag));
		free(tpl);
	}
	if (!frag) {
		strv_free(&names);
		return UNIT_NOT_FOUND;
	}
	u->fragment = xstrdup(frag);
	inst = unit_name_instance(name);
	if (inst && unit_name_kind(base_name(frag)) == UNIT_NAME_TEMPLATE)
		u->id = replace_instance(base_name(frag), inst);
	else
		u->id = xstrdup(base_name(frag));
	free(inst);
	for (size_t i = 0; i < names.n; i++)
		if (strcmp(names.v[i], u->id) != 0)
			strv_push(&u->aliases, xstrdup(names.v[i]));
	strv_free(&names);
	if (u->aliases.n)
		qsort(u->aliases.v, u->aliases.n, sizeof(*u->aliases.v), cmp_str);
	/* A link to /dev/null (or any device), an empty file or a dangling
	 * link: systemd does not load it. */
	if (stat(u->fragment, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
		return UNIT_MASKED;
	return UNIT_FOUND;
}

void unit_load_free(struct unit_load *u)
{
	free(u->fragment);
	free(u->sysv);
	free(u->id);
	strv_free(&u->aliases);
	memset(u, 0, sizeof(*u));
}

static void add_dir(const struct unitmap *m, const char *dir, const char *name, struct strv *out)
{
	/* Called some 10 times per unit: no printf here. */
	size_t a = strlen(dir), b = strlen(name);
	char buf[512], *p = a + b + 4 <= sizeof(buf) ? buf : xmalloc(a + b + 4);

	memcpy(p, dir, a);
	p[a] = '/';
	memcpy(p + a + 1, name, b);
	memcpy(p + a + 1 + b, ".d", 3);
	if (strmap_contains(&m->dotd, p))
		names_add(out, p);
	if (p != buf)
		free(p);
}

/* systemd's unit_file_find_dirs: NAME.d, its template's, and those of
 * each "-" prefix (foo-bar-baz.service: foo-bar-.service, foo-.service). */
static void find_dirs(const struct unitmap *m, const char *dir, const char *name, struct strv *out)
{
	char *tpl = unit_name_template(name), *prefix, *built, *dash;
	const char *dot = strrchr(name, '.');
	bool chopped = false;
	size_t n;

	add_dir(m, dir, name, out);
	if (tpl) {
		find_dirs(m, dir, tpl, out);
		free(tpl);
	}
	if (!dot || is_unit_type(name, strlen(name)))
		return; /* the top-level drop-in ("service") */
	n = strcspn(name, "@");
	prefix = xstrndup(name, n < (size_t)(dot - name) ? n : (size_t)(dot - name));
	for (;;) {
		dash = strrchr(prefix, '-');
		if (!dash || dash == prefix) {
			free(prefix);
			return;
		}
		n = (size_t)(dash - prefix);
		if (prefix[n + 1] != '\0' || chopped) {
			prefix[n + 1] = '\0';
			break;
		}
		prefix[n] = '\0'; /* a trailing dash: chop it, once */
		chopped = true;
	}
	built = xasprintf("%s%s", prefix, dot);
	free(prefix);
	find_dirs(m, dir, built, out);
	free(built);
}

/* The *.conf names of drop-in directory DIR, read once per run. */
static const struct strv *listing(struct unitmap *m, const char *dir)
{
	void **slot = strmap_slot(&m->listed, dir);
	struct strv *l;
	DIR *d;
	struct dirent *de;

	if (*slot)
		return *slot;
	l = xmalloc(sizeof(*l));
	memset(l, 0, sizeof(*l));
	*slot = l;
	d = opendir(dir);
	if (!d)
		return l;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && str_ends_with(de->d_name, ".conf"))
			strv_push(l, xstrdup(de->d_name));
	closedir(d);
	return l;
}

static int cmp_dropin(const void *a, const void *b)
{
	return strcmp(((const struct dropin *)a)->name, ((const struct dropin *)b)->name);
}

void unitmap_dropins(struct unitmap *m, const struct unit_load *u, const char *skip,
		     struct dropins *out)
{
	struct strv dirs = { 0 };
	struct strmap seen = { 0 };
	const char *dot = strrchr(u->id, '.');

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < m->dirs.n; i++)
		find_dirs(m, m->dirs.v[i], u->id, &dirs);
	for (size_t a = 0; a < u->aliases.n; a++)
		for (size_t i = 0; i < m->dirs.n; i++)
			find_dirs(m, m->dirs.v[i], u->aliases.v[a], &dirs);
	for (size_t i = 0; dot && i < m->dirs.n; i++)
		add_dir(m, m->dirs.v[i], dot + 1, &dirs);
	for (size_t i = 0; i < dirs.n; i++) {
		const struct strv *l = listing(m, dirs.v[i]);

		for (size_t j = 0; j < l->n; j++) {
			if ((skip && strcmp(l->v[j], skip) == 0) || !strmap_add(&seen, l->v[j], NULL))
				continue;
			grow_array((void **)&out->v, &out->cap, out->n + 1, sizeof(*out->v));
			out->v[out->n].name = xstrdup(l->v[j]);
			out->v[out->n].path = xasprintf("%s/%s", dirs.v[i], l->v[j]);
			out->n++;
		}
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_dropin);
	strmap_free(&seen, NULL);
	strv_free(&dirs);
}
