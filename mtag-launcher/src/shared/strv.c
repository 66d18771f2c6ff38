/* SPDX-License-Identifier: GPL-2.0-or-later */
/* strv.c -- a growable vector of owned strings. */
#include "strv.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

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

bool strv_contains(const struct strv *s, const char *x)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], x) == 0)
			return true;
	return false;
}
