/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.h -- allocation helpers that never return NULL, and string tests. */
#ifndef MTAG_UTIL_H
#define MTAG_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
void *xreallocarray(void *p, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Grow *V (of *CAP elements of SIZE bytes) so it holds at least N. */
void grow_array(void **v, size_t *cap, size_t n, size_t size);

/* Does S end with SUFFIX (S == SUFFIX included)? */
bool str_ends_with(const char *s, const char *suffix);

/* Read a whole file into a NUL-terminated buffer; -errno on failure.
 * Files over MAX bytes fail with -EFBIG. */
int read_fd_all(int fd, size_t max, char **out, size_t *len);

#endif
