/* SPDX-License-Identifier: GPL-2.0-or-later */
/* span.c -- the line parsers' scanner (see span.h). */
#include "span.h"

#include <string.h>

int span_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void take(struct span *s, size_t n)
{
	s->p += n;
	s->n -= n;
}

bool span_eat(struct span *s, const char *lit)
{
	size_t l = strlen(lit);

	if (s->n < l || memcmp(s->p, lit, l) != 0)
		return false;
	take(s, l);
	return true;
}

bool span_ch(struct span *s, char c)
{
	if (!s->n || s->p[0] != c)
		return false;
	take(s, 1);
	return true;
}

bool span_ends_with(const struct span *s, const char *lit)
{
	size_t l = strlen(lit);

	return s->n >= l && memcmp(s->p + s->n - l, lit, l) == 0;
}

bool span_hex(struct span *s, uint64_t *v, size_t maxdig)
{
	uint64_t x = 0;
	size_t i;

	for (i = 0; i < s->n && span_hexval(s->p[i]) >= 0; i++) {
		if (i == maxdig)
			return false;
		x = x << 4 | (uint64_t)span_hexval(s->p[i]);
	}
	if (!i)
		return false;
	*v = x;
	take(s, i);
	return true;
}

bool span_dec(struct span *s, uint64_t *v, uint64_t max)
{
	uint64_t x = 0;
	size_t i;

	for (i = 0; i < s->n && s->p[i] >= '0' && s->p[i] <= '9'; i++) {
		uint64_t d = (uint64_t)(s->p[i] - '0');

		if (x > (max - d) / 10)
			return false;
		x = x * 10 + d;
	}
	if (!i)
		return false;
	*v = x;
	take(s, i);
	return true;
}

bool span_spaces(struct span *s)
{
	size_t i = 0;

	while (i < s->n && s->p[i] == ' ')
		i++;
	take(s, i);
	return i > 0;
}
