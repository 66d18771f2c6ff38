/* SPDX-License-Identifier: GPL-2.0-or-later */
/* systemd-time.c -- time as systemd.time(7) writes it.  Time spans: a
 * sequence of NUMBER[UNIT] words, the units added up; no unit means
 * seconds.  Spaces between the parts are not allowed here (a policy line
 * is split at white space).  Timestamps (--since): a subset, on top of
 * the time spans ("-1h", "1h ago"). */
#include "systemd-time.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* --- Timestamps --- */

static int local_midnight(uint64_t now_usec, int days_back, uint64_t *out)
{
	time_t t = (time_t)(now_usec / 1000000);
	struct tm tm;

	if (!localtime_r(&t, &tm))
		return -1;
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_mday -= days_back;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	if (t == (time_t)-1)
		return -1;
	*out = (uint64_t)t * 1000000;
	return 0;
}

int timestamp_parse(const char *s, uint64_t now_usec, uint64_t *usec, const char **why)
{
	size_t n = strlen(s);
	uint64_t ns;
	struct tm tm;
	const char *end;

	*why = "expected today, yesterday, now, -TIMESPAN, \"TIMESPAN ago\", @EPOCH, YYYY-MM-DD [HH:MM[:SS]] or HH:MM[:SS]";
	if (strcmp(s, "now") == 0) {
		*usec = now_usec;
		return 0;
	}
	if (strcmp(s, "today") == 0)
		return local_midnight(now_usec, 0, usec);
	if (strcmp(s, "yesterday") == 0)
		return local_midnight(now_usec, 1, usec);
	if (s[0] == '@') {
		char *e;
		unsigned long long v = strtoull(s + 1, &e, 10);

		if (e == s + 1 || *e || v > UINT64_MAX / 1000000)
			return -1;
		*usec = v * 1000000;
		return 0;
	}
	if (s[0] == '-' || (n > 4 && strcmp(s + n - 4, " ago") == 0)) {
		char buf[128];
		const char *span = s[0] == '-' ? s + 1 : s;
		size_t l = s[0] == '-' ? strlen(span) : n - 4;

		if (l == 0 || l >= sizeof(buf))
			return -1;
		memcpy(buf, span, l);
		buf[l] = '\0';
		if (duration_parse(buf, &ns, why) < 0 || ns == DURATION_INFINITY)
			return -1;
		*usec = ns / 1000 > now_usec ? 0 : now_usec - ns / 1000;
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	if ((end = strptime(s, "%Y-%m-%d %H:%M:%S", &tm)) && !*end)
		goto abs;
	memset(&tm, 0, sizeof(tm));
	if ((end = strptime(s, "%Y-%m-%d %H:%M", &tm)) && !*end)
		goto abs;
	memset(&tm, 0, sizeof(tm));
	if ((end = strptime(s, "%Y-%m-%d", &tm)) && !*end)
		goto abs;
	if (isdigit((unsigned char)s[0])) {
		time_t t = (time_t)(now_usec / 1000000);
		struct tm today;
		int h, m, sec = 0;
		char extra;

		if ((sscanf(s, "%d:%d:%d%c", &h, &m, &sec, &extra) == 3 ||
		     (sscanf(s, "%d:%d%c", &h, &m, &extra) == 2)) &&
		    h >= 0 && h < 24 && m >= 0 && m < 60 && sec >= 0 && sec < 61 &&
		    localtime_r(&t, &today)) {
			today.tm_hour = h;
			today.tm_min = m;
			today.tm_sec = sec;
			tm = today;
			goto abs;
		}
	}
	return -1;
abs:
	tm.tm_isdst = -1;
	{
		time_t t = mktime(&tm);

		if (t == (time_t)-1 || t < 0)
			return -1;
		*usec = (uint64_t)t * 1000000;
	}
	return 0;
}
