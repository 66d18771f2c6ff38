/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-since.c -- the --since TIME syntax (a subset of systemd.time(7)). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "duration.h"
#include "mtagctl.h"

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

int since_parse(const char *s, uint64_t now_usec, uint64_t *usec, const char **why)
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
