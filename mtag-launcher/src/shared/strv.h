/* SPDX-License-Identifier: GPL-2.0-or-later */
/* strv.h -- a growable vector of owned strings. */
#ifndef MTAG_STRV_H
#define MTAG_STRV_H

#include <stdbool.h>
#include <stddef.h>

struct strv {
	char **v;
	size_t n, cap;
};

/* Append OWNED (the vector frees it). */
void strv_push(struct strv *s, char *owned);
void strv_free(struct strv *s);
bool strv_contains(const struct strv *s, const char *x);

#endif
