/* SPDX-License-Identifier: GPL-2.0-or-later */
/* strmap.c -- a string -> pointer hash map (open addressing, linear
 * probing, FNV-1a), grown at 1/2 load so every operation stays O(1). */
#include "strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static uint64_t hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static struct strmap_slot *find(const struct strmap *m, const char *key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1))
		if (!m->slots[i].key || strcmp(m->slots[i].key, key) == 0)
			return &m->slots[i];
}

static void grow(struct strmap *m)
{
	struct strmap old = *m;

	m->cap = old.cap ? 2 * old.cap : 64;
	m->slots = xreallocarray(NULL, m->cap, sizeof(*m->slots));
	memset(m->slots, 0, m->cap * sizeof(*m->slots));
	for (size_t i = 0; i < old.cap; i++)
		if (old.slots[i].key)
			*find(m, old.slots[i].key) = old.slots[i];
	free(old.slots);
}

void *strmap_get(const struct strmap *m, const char *key)
{
	struct strmap_slot *s = find(m, key);

	return s && s->key ? s->value : NULL;
}

bool strmap_contains(const struct strmap *m, const char *key)
{
	struct strmap_slot *s = find(m, key);

	return s && s->key;
}

void **strmap_slot(struct strmap *m, const char *key)
{
	struct strmap_slot *s;

	if (2 * (m->n + 1) > m->cap)
		grow(m);
	s = find(m, key);
	if (!s->key) {
		s->key = xstrdup(key);
		s->value = NULL;
		m->n++;
	}
	return &s->value;
}

bool strmap_add(struct strmap *m, const char *key, void *value)
{
	size_t n = m->n;
	void **v = strmap_slot(m, key);

	if (m->n == n)
		return false;
	*v = value;
	return true;
}

void strmap_free(struct strmap *m, void (*free_value)(void *))
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key) {
			if (free_value)
				free_value(m->slots[i].value);
			free(m->slots[i].key);
		}
	free(m->slots);
	memset(m, 0, sizeof(*m));
}
