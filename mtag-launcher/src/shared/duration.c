/* SPDX-License-Identifier: GPL-2.0-or-later */
/* duration.c -- parse and print time spans as systemd.time(7) does:
 * a sequence of NUMBER[UNIT] words, the units added up; no unit means
 * seconds.  Spaces between the parts are not allowed here (a policy line
 * is split at white space). */
#include "duration.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define NSEC_PER_USEC 1000ull
#define NSEC_PER_MSEC 1000000ull
#define NSEC_PER_SEC 1000000000ull

static const struct unit {
	const char *name;
	uint64_t ns;
} units[] = {
	/* Longest names first, so that "min" is not read as "m" + "in". */
	{ "seconds", NSEC_PER_SEC }, { "second", NSEC_PER_SEC },
	{ "minutes", 60 * NSEC_PER_SEC }, { "minute", 60 * NSEC_PER_SEC },
	{ "hours", 3600 * NSEC_PER_SEC }, { "hour", 3600 * NSEC_PER_SEC },
	{ "days", 86400 * NSEC_PER_SEC }, { "day", 86400 * NSEC_PER_SEC },
	{ "weeks", 604800 * NSEC_PER_SEC }, { "week", 604800 * NSEC_PER_SEC },
	{ "msec", NSEC_PER_MSEC }, { "usec", NSEC_PER_USEC }, { "nsec", 1 },
	{ "sec", NSEC_PER_SEC }, { "min", 60 * NSEC_PER_SEC }, { "hr", 3600 * NSEC_PER_SEC },
	{ "ms", NSEC_PER_MSEC }, { "us", NSEC_PER_USEC }, { "\xc2\xb5s", NSEC_PER_USEC },
	{ "ns", 1 }, { "s", NSEC_PER_SEC }, { "m", 60 * NSEC_PER_SEC },
	{ "h", 3600 * NSEC_PER_SEC }, { "d", 86400 * NSEC_PER_SEC },
	{ "w", 604800 * NSEC_PER_SEC },
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_unit_char(char c)
{
	return (c >= 'a' && c <= 'z') || (unsigned char)c >= 0x80;
}

/* Add A*B to *SUM; false on overflow. */
static bool add_mul(uint64_t *sum, uint64_t a, uint64_t b)
{
	uint64_t p;

	if (__builtin_mul_overflow(a, b, &p) || __builtin_add_overflow(*sum, p, sum))
		return false;
	return true;
}

int duration_parse(const char *s, uint64_t *ns, const char **why)
{
	uint64_t total = 0;

	if (!s || !*s) {
		*why = "empty value";
		return -1;
	}
	if (strcmp(s, "infinity") == 0) {
		*ns = DURATION_INFINITY;
		return 0;
	}
	if (*s == '-') {
		*why = "a time span cannot be negative";
		return -1;
	}
	while (*s) {
		uint64_t whole = 0, frac = 0, frac_div = 1, mult = NSEC_PER_SEC;
		const struct unit *u = NULL;
		size_t ulen;
		bool digits = false;

		for (; is_digit(*s); s++) {
			digits = true;
			if (__builtin_mul_overflow(whole, 10, &whole) ||
			    __builtin_add_overflow(whole, (uint64_t)(*s - '0'), &whole)) {
				*why = "too large";
				return -1;
			}
		}
		if (*s == '.') {
			s++;
			for (; is_digit(*s); s++) {
				digits = true;
				/* Digits past nanoseconds cannot matter. */
				if (frac_div < NSEC_PER_SEC) {
					frac = frac * 10 + (uint64_t)(*s - '0');
					frac_div *= 10;
				}
			}
		}
		if (!digits) {
			*why = "not a time span";
			return -1;
		}
		for (ulen = 0; is_unit_char(s[ulen]); ulen++)
			;
		if (ulen) {
			for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
				if (strlen(units[i].name) == ulen &&
				    memcmp(units[i].name, s, ulen) == 0) {
					u = &units[i];
					break;
				}
			if (!u) {
				*why = "unknown unit (known: ns, us, ms, s, min, h, d, w)";
				return -1;
			}
			mult = u->ns;
			s += ulen;
		} else if (*s) {
			/* Only the last number may go without a unit. */
			*why = "not a time span";
			return -1;
		}
		if (!add_mul(&total, whole, mult)) {
			*why = "too large";
			return -1;
		}
		/* frac/frac_div of MULT, rounded down to whole nanoseconds. */
		if (frac && !add_mul(&total, 1,
				     (uint64_t)((unsigned __int128)frac * mult / frac_div))) {
			*why = "too large";
			return -1;
		}
	}
	if (total == DURATION_INFINITY) {
		*why = "too large";
		return -1;
	}
	*ns = total;
	return 0;
}

char *duration_format(uint64_t ns, char *buf, size_t size)
{
	static const struct unit out[] = {
		{ "w", 604800 * NSEC_PER_SEC }, { "d", 86400 * NSEC_PER_SEC },
		{ "h", 3600 * NSEC_PER_SEC }, { "min", 60 * NSEC_PER_SEC },
		{ "s", NSEC_PER_SEC }, { "ms", NSEC_PER_MSEC }, { "us", NSEC_PER_USEC },
		{ "ns", 1 },
	};
	size_t pos = 0;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	if (ns == DURATION_INFINITY) {
		snprintf(buf, size, "infinity");
		return buf;
	}
	if (ns == 0) {
		snprintf(buf, size, "0");
		return buf;
	}
	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]) && ns; i++) {
		uint64_t n = ns / out[i].ns;
		int w;

		if (!n)
			continue;
		ns -= n * out[i].ns;
		w = snprintf(buf + pos, size - pos, "%s%llu%s", pos ? " " : "",
			     (unsigned long long)n, out[i].name);
		if (w < 0 || (size_t)w >= size - pos)
			break;
		pos += (size_t)w;
	}
	return buf;
}
