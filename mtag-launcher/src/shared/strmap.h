/* SPDX-License-Identifier: GPL-2.0-or-later */
/* strmap.h -- a string -> pointer hash map (open addressing, FNV-1a),
 * for name lookups whose cost must not grow with the number of names. */
#ifndef MTAG_STRMAP_H
#define MTAG_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

struct strmap_slot {
	char *key; /* owned; NULL: empty */
	void *value;
};

struct strmap {
	struct strmap_slot *slots;
	size_t cap, n; /* cap: 0 or a power of two */
};

/* The value of KEY, or NULL. */
void *strmap_get(const struct strmap *m, const char *key);
bool strmap_contains(const struct strmap *m, const char *key);

/* Add KEY (copied) -> VALUE unless KEY is there: returns true when
 * added, false when KEY was already mapped (nothing changes). */
bool strmap_add(struct strmap *m, const char *key, void *value);

/* A pointer to the value slot of KEY, adding KEY -> NULL if absent. */
void **strmap_slot(struct strmap *m, const char *key);

/* Free the keys and the table; FREE_VALUE (may be NULL) on each value. */
void strmap_free(struct strmap *m, void (*free_value)(void *));

#endif
