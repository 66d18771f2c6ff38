/* SPDX-License-Identifier: GPL-2.0-or-later */
/* span.h -- a scanner over a length-delimited, not NUL-terminated text,
 * for the line parsers (faultline.c, procmaps.c): each span_* call takes
 * what it matches off the front of the span and returns true, or leaves
 * the span as it was and returns false. */
#ifndef MTAG_CTL_SPAN_H
#define MTAG_CTL_SPAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct span {
	const char *p;
	size_t n;
};

/* The value of hex digit C, or -1. */
int span_hexval(char c);

/* The literal LIT. */
bool span_eat(struct span *s, const char *lit);
/* One character C. */
bool span_ch(struct span *s, char c);
/* True if the span ends with LIT (nothing taken). */
bool span_ends_with(const struct span *s, const char *lit);
/* 1 to MAXDIG hex digits (no "0x") into *V; false if there are none or
 * more than MAXDIG. */
bool span_hex(struct span *s, uint64_t *v, size_t maxdig);
/* 1 or more decimal digits into *V, whose value is at most MAX. */
bool span_dec(struct span *s, uint64_t *v, uint64_t max);
/* 1 or more spaces. */
bool span_spaces(struct span *s);

#endif
