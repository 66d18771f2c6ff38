/* SPDX-License-Identifier: GPL-2.0-or-later */
/* systemd-time.c -- time as systemd.time(7) writes it.  Time spans: a
 * sequence of NUMBER[UNIT] words, the units added up; no unit means
 * seconds.  Spaces between the parts are not allowed here (a policy line
 * is split at white space).  Timestamps (--since, --until): what
 * systemd's parse_timestamp() takes, the time spans in them with white
 * space allowed ("2 days ago"). */
#include "systemd-time.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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

/* A time span as systemd's parse_sec() takes it on the command line:
 * white space may stand between the parts and between a number and its
 * unit ("2 days", "1h 30min"), and a part without a unit is seconds. */
static int span_parse_spaced(const char *s, uint64_t *ns, const char **why)
{
	uint64_t total = 0, part;
	char word[64];
	bool any = false;

	for (;;) {
		size_t l = 0;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		/* NUMBER[.FRACTION] */
		while ((is_digit(s[l]) || s[l] == '.') && l < sizeof(word) - 1)
			l++;
		if (l == 0) {
			*why = "not a time span";
			return -1;
		}
		memcpy(word, s, l);
		s += l;
		while (*s == ' ' || *s == '\t')
			s++;
		/* [UNIT] */
		while (is_unit_char(*s) && l < sizeof(word) - 1)
			word[l++] = *s++;
		word[l] = '\0';
		if (is_unit_char(*s)) {
			*why = "not a time span";
			return -1;
		}
		if (duration_parse(word, &part, why) < 0)
			return -1;
		if (part == DURATION_INFINITY || __builtin_add_overflow(total, part, &total)) {
			*why = "too large";
			return -1;
		}
		any = true;
	}
	if (!any || total == DURATION_INFINITY) {
		*why = "not a time span";
		return -1;
	}
	*ns = total;
	return 0;
}

/* struct tm in UTC or local time, -1 on failure. */
static time_t tm_to_time(struct tm *tm, bool utc)
{
	return utc ? timegm(tm) : mktime(tm);
}

static int midnight(uint64_t now_usec, int days, bool utc, uint64_t *out)
{
	time_t t = (time_t)(now_usec / 1000000);
	struct tm tm;

	if (!(utc ? gmtime_r(&t, &tm) : localtime_r(&t, &tm)))
		return -1;
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_mday += days;
	tm.tm_isdst = -1;
	t = tm_to_time(&tm, utc);
	if (t == (time_t)-1 || t < 0)
		return -1;
	*out = (uint64_t)t * 1000000;
	return 0;
}

/* ".123456": microseconds (digits past the sixth are read and dropped). */
static const char *parse_fraction(const char *k, uint64_t *usec)
{
	uint64_t v = 0, mul = 100000;

	if (*k != '.' || !is_digit(k[1]))
		return NULL;
	for (k++; is_digit(*k); k++) {
		v += (uint64_t)(*k - '0') * mul;
		mul /= 10;
	}
	*usec = v;
	return k;
}

/* After a date and time: "Z" or an RFC 3339 offset "+HH:MM", "-HHMM",
 * "+HH" (UTC then, minus the offset).  Returns the end, NULL if not one. */
static const char *parse_offset(const char *k, bool *utc, long *off_sec)
{
	int h, m = 0, n = 0;

	if (*k == 'Z' || *k == 'z') {
		*utc = true;
		return k + 1;
	}
	if (*k != '+' && *k != '-')
		return NULL;
	if (!is_digit(k[1]) || !is_digit(k[2]))
		return NULL;
	h = (k[1] - '0') * 10 + (k[2] - '0');
	n = 3;
	if (k[n] == ':')
		n++;
	if (is_digit(k[n]) && is_digit(k[n + 1])) {
		m = (k[n] - '0') * 10 + (k[n + 1] - '0');
		n += 2;
	} else if (k[n - 1] == ':') {
		return NULL;
	}
	if (h > 23 || m > 59)
		return NULL;
	*utc = true;
	*off_sec = (k[0] == '-' ? -1 : 1) * (h * 3600L + m * 60L);
	return k + n;
}

static const struct {
	const char *name;
	int wday;
} weekdays[] = {
	{ "Sunday", 0 }, { "Sun", 0 }, { "Monday", 1 }, { "Mon", 1 },
	{ "Tuesday", 2 }, { "Tue", 2 }, { "Wednesday", 3 }, { "Wed", 3 },
	{ "Thursday", 4 }, { "Thu", 4 }, { "Friday", 5 }, { "Fri", 5 },
	{ "Saturday", 6 }, { "Sat", 6 },
};

/* The absolute forms systemd tries, in its order; what a form leaves out
 * is today's (the date) or zero (the time). */
enum { KEEP_TIME, ZERO_SEC, ZERO_TIME };
static const struct {
	const char *fmt;
	int fill;
} forms[] = {
	{ "%y-%m-%d %H:%M:%S", KEEP_TIME }, { "%Y-%m-%d %H:%M:%S", KEEP_TIME },
	{ "%Y-%m-%dT%H:%M:%S", KEEP_TIME }, { "%b %d %H:%M:%S", KEEP_TIME },
	{ "%y-%m-%d %H:%M", ZERO_SEC },     { "%Y-%m-%d %H:%M", ZERO_SEC },
	{ "%Y-%m-%dT%H:%M", ZERO_SEC },     { "%y-%m-%d", ZERO_TIME },
	{ "%Y-%m-%d", ZERO_TIME },          { "%H:%M:%S", KEEP_TIME },
	{ "%H:%M", ZERO_SEC },              { "%Y%m%d%H%M%S", KEEP_TIME },
};

/* Everything but the time zone word, which the caller has taken off (UTC:
 * UTC; ISDST: the local zone's standard (0) or daylight (1) name, -1
 * neither). */
static int parse_in_zone(const char *t, uint64_t now_usec, bool utc, int isdst, uint64_t *usec,
			 const char **why)
{
	size_t n = strlen(t);
	uint64_t ns;
	int wday = -1;

	if (strcmp(t, "now") == 0) {
		*usec = now_usec;
		return 0;
	}
	if (strcmp(t, "today") == 0)
		return midnight(now_usec, 0, utc, usec);
	if (strcmp(t, "yesterday") == 0)
		return midnight(now_usec, -1, utc, usec);
	if (strcmp(t, "tomorrow") == 0)
		return midnight(now_usec, 1, utc, usec);
	if (t[0] == '@') {
		uint64_t sec = 0, frac = 0;
		const char *k = t + 1;

		if (!is_digit(*k))
			return -1;
		for (; is_digit(*k); k++)
			if (__builtin_mul_overflow(sec, 10, &sec) ||
			    __builtin_add_overflow(sec, (uint64_t)(*k - '0'), &sec))
				return -1;
		if (*k == '.' && !(k = parse_fraction(k, &frac)))
			return -1;
		if (*k || sec > (UINT64_MAX - frac) / 1000000)
			return -1;
		*usec = sec * 1000000 + frac;
		return 0;
	}
	/* Relative: "-SPAN", "SPAN ago" (past), "+SPAN", "SPAN left" (future). */
	{
		char buf[128];
		int sign = 0;
		size_t off = 0, l = n;

		if (t[0] == '-' || t[0] == '+') {
			sign = t[0] == '-' ? -1 : 1;
			off = 1;
			l = n - 1;
		} else if (n > 4 && strcmp(t + n - 4, " ago") == 0) {
			sign = -1;
			l = n - 4;
		} else if (n > 5 && strcmp(t + n - 5, " left") == 0) {
			sign = 1;
			l = n - 5;
		}
		if (sign) {
			if (l == 0 || l >= sizeof(buf))
				return -1;
			memcpy(buf, t + off, l);
			buf[l] = '\0';
			if (span_parse_spaced(buf, &ns, why) < 0)
				return -1;
			if (sign < 0)
				*usec = ns / 1000 > now_usec ? 0 : now_usec - ns / 1000;
			else if (__builtin_add_overflow(now_usec, ns / 1000, usec))
				return -1;
			return 0;
		}
	}
	/* An optional weekday, which must then match the date. */
	for (size_t i = 0; i < sizeof(weekdays) / sizeof(weekdays[0]); i++) {
		size_t l = strlen(weekdays[i].name);

		if (strncasecmp(t, weekdays[i].name, l) == 0 && t[l] == ' ') {
			wday = weekdays[i].wday;
			t += l + 1;
			break;
		}
	}
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		time_t now_t = (time_t)(now_usec / 1000000), r;
		struct tm tm;
		uint64_t frac = 0;
		long off_sec = 0;
		bool z = utc;
		const char *k;

		if (!(utc ? gmtime_r(&now_t, &tm) : localtime_r(&now_t, &tm)))
			return -1;
		k = strptime(t, forms[i].fmt, &tm);
		if (!k)
			continue;
		if (forms[i].fill == KEEP_TIME && *k == '.' && !(k = parse_fraction(k, &frac)))
			continue;
		if (*k && (utc || isdst >= 0 || !(k = parse_offset(k, &z, &off_sec)) || *k))
			continue;
		if (forms[i].fill == ZERO_TIME)
			tm.tm_hour = tm.tm_min = 0;
		if (forms[i].fill != KEEP_TIME)
			tm.tm_sec = 0;
		tm.tm_isdst = z ? 0 : isdst;
		r = tm_to_time(&tm, z);
		if (r == (time_t)-1 || r - off_sec < 0)
			return -1;
		if (wday >= 0 && tm.tm_wday != wday) {
			*why = "the weekday does not match the date";
			return -1;
		}
		*usec = (uint64_t)(r - off_sec) * 1000000 + frac;
		return 0;
	}
	return -1;
}

/* A time zone from tzdata ("Europe/Berlin"): what systemd's
 * timezone_is_valid() checks, a sane name and a TZif file. */
static bool zone_valid(const char *z)
{
	char path[256], magic[4];
	FILE *f;
	bool ok;

	if (!*z || *z == '/' || strstr(z, "..") || strlen(z) > 128)
		return false;
	for (const char *c = z; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("/_+-", *c))
			return false;
	snprintf(path, sizeof(path), "/usr/share/zoneinfo/%s", z);
	f = fopen(path, "re");
	if (!f)
		return false;
	ok = fread(magic, 1, 4, f) == 4 && memcmp(magic, "TZif", 4) == 0;
	fclose(f);
	return ok;
}

int timestamp_parse(const char *s, uint64_t now_usec, uint64_t *usec, const char **why)
{
	static const char usage[] =
		"expected a timestamp of systemd.time(7): now, today, yesterday, tomorrow, "
		"-SPAN, +SPAN, \"SPAN ago\", \"SPAN left\", @EPOCH, "
		"[WEEKDAY] [YYYY-MM-DD] [HH:MM[:SS[.FRAC]]] [UTC|ZONE]";
	char t[256], *sp;
	const char *zone = NULL;
	bool utc = false;
	int isdst = -1, r;
	size_t n;

	*why = usage;
	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n == 0 || n >= sizeof(t))
		return -1;
	memcpy(t, s, n);
	t[n] = '\0';

	/* The last word may name the zone: UTC, the local zone's own names
	 * (what mtagctl prints), or a tzdata zone. */
	tzset();
	sp = strrchr(t, ' ');
	if (sp) {
		const char *w = sp + 1;

		if (strcmp(w, "UTC") == 0)
			utc = true;
		else if (tzname[0] && strcmp(w, tzname[0]) == 0)
			isdst = 0;
		else if (tzname[1] && strcmp(w, tzname[1]) == 0)
			isdst = 1;
		else if (zone_valid(w))
			zone = w;
		if (utc || isdst >= 0 || zone)
			*sp = '\0';
	}
	if (!zone) {
		r = parse_in_zone(t, now_usec, utc, isdst, usec, why);
	} else {
		/* As systemd does: parse with TZ set to that zone. */
		char *old = getenv("TZ") ? strdup(getenv("TZ")) : NULL, tz[160];

		snprintf(tz, sizeof(tz), ":%s", zone);
		setenv("TZ", tz, 1);
		tzset();
		r = parse_in_zone(t, now_usec, false, -1, usec, why);
		if (old)
			setenv("TZ", old, 1);
		else
			unsetenv("TZ");
		free(old);
		tzset();
	}
	return r < 0 ? -1 : 0;
}

char *timestamp_format_local(uint64_t usec, const char *fmt, const char *unknown, char *buf, size_t len)
{
	time_t t = (time_t)(usec / 1000000);
	struct tm tm;
	size_t n = 0;

	/* FMT is checked at each caller (the format attribute). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	if (usec && localtime_r(&t, &tm))
		n = strftime(buf, len, fmt, &tm);
#pragma GCC diagnostic pop
	if (n)
		return buf;
	if (unknown)
		snprintf(buf, len, "%s", unknown);
	else
		snprintf(buf, len, "@%llu", (unsigned long long)(usec / 1000000));
	return buf;
}
