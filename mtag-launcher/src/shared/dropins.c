/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dropins.c -- list *.conf drop-ins across prioritized directories. */
#include "dropins.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static bool is_conf(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' && len > 5 && strcmp(name + len - 5, ".conf") == 0;
}

int dropins_add_dir(struct dropins *d, const char *dir, const char *skip)
{
	DIR *dh = opendir(dir);
	struct dirent *de;

	if (!dh)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(dh))) {
		bool seen = false;

		if (!is_conf(de->d_name) || (skip && strcmp(de->d_name, skip) == 0))
			continue;
		/* A higher-priority directory came first: its file of the
		 * same name masks this one. */
		for (size_t i = 0; i < d->n && !seen; i++)
			seen = strcmp(d->v[i].name, de->d_name) == 0;
		if (seen)
			continue;
		grow_array((void **)&d->v, &d->cap, d->n + 1, sizeof(*d->v));
		d->v[d->n].name = xstrdup(de->d_name);
		d->v[d->n].path = xasprintf("%s/%s", dir, de->d_name);
		d->n++;
	}
	closedir(dh);
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct dropin *)a)->name, ((const struct dropin *)b)->name);
}

void dropins_sort(struct dropins *d)
{
	if (d->n)
		qsort(d->v, d->n, sizeof(*d->v), cmp_name);
}

void dropins_free(struct dropins *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].name);
		free(d->v[i].path);
	}
	free(d->v);
	memset(d, 0, sizeof(*d));
}
