/* test-systemd-time.c -- systemd time spans (reenable=, --reenable) and
 * timestamps (mtagctl --since). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "systemd-time.h"
#include "unit.h"

#define S 1000000000ull
#define MS 1000000ull

static void test_parse(void)
{
	static const struct {
		const char *in;
		uint64_t ns;
	} ok[] = {
		{ "500ms", 500 * MS }, { "10s", 10 * S }, { "10", 10 * S },
		{ "1min30s", 90 * S }, { "1m30s", 90 * S }, { "1.5s", 1500 * MS },
		{ "0.25ms", 250000 }, { "2h", 7200 * S }, { "1d", 86400 * S },
		{ "1w", 604800 * S }, { "3us", 3000 }, { "3usec", 3000 },
		{ "\xc2\xb5s", 0 }, { "7ns", 7 }, { "5sec", 5 * S },
		{ "2minutes", 120 * S }, { "1hr", 3600 * S }, { "1.000000001s", S + 1 },
		{ "1.0000000019s", S + 1 }, { "infinity", DURATION_INFINITY },
		{ "1s500ms", 1500 * MS },
	};
	static const char *const bad[] = {
		"", "-1", "-5s", "banana", "s", "ms", "1x", "1 s", "5s-", ".", "1..5s",
		"99999999999999999999", "18446744073709551615ns", "40000w", "Infinity", "1S",
	};
	const char *why;
	uint64_t ns;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (ok[i].ns == 0)
			continue; /* "µs" alone has no number: see bad below */
		ns = 12345;
		why = NULL;
		if (duration_parse(ok[i].in, &ns, &why) != 0 || ns != ok[i].ns)
			printf("# '%s': got %llu (%s), want %llu\n", ok[i].in,
			       (unsigned long long)ns, why ? why : "ok",
			       (unsigned long long)ok[i].ns);
		CHECK(duration_parse(ok[i].in, &ns, &why) == 0 && ns == ok[i].ns);
	}
	CHECK(duration_parse("2\xc2\xb5s", &ns, &why) == 0 && ns == 2000);
	CHECK(duration_parse("\xc2\xb5s", &ns, &why) < 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		if (duration_parse(bad[i], &ns, &why) == 0)
			printf("# '%s' was accepted as %llu\n", bad[i], (unsigned long long)ns);
		CHECK(duration_parse(bad[i], &ns, &why) < 0 && why && *why);
	}
	CHECK(duration_parse(NULL, &ns, &why) < 0);
}

static void test_format(void)
{
	char b[64];

	CHECK_STR(duration_format(300 * MS, b, sizeof(b)), "300ms");
	CHECK_STR(duration_format(90 * S, b, sizeof(b)), "1min 30s");
	CHECK_STR(duration_format(90 * S + 500 * MS, b, sizeof(b)), "1min 30s 500ms");
	CHECK_STR(duration_format(DURATION_INFINITY, b, sizeof(b)), "infinity");
	CHECK_STR(duration_format(0, b, sizeof(b)), "0");
	CHECK_STR(duration_format(1, b, sizeof(b)), "1ns");
	CHECK_STR(duration_format(8 * 86400 * S, b, sizeof(b)), "1w 1d");
	/* Round trip. */
	for (uint64_t v = 1; v < (1ull << 62); v = v * 7 + 3) {
		uint64_t back = 0;
		const char *why;
		char s[128];

		duration_format(v, s, sizeof(s));
		for (char *c = s; *c; c++)
			if (*c == ' ')
				memmove(c, c + 1, strlen(c));
		CHECK(duration_parse(s, &back, &why) == 0 && back == v);
	}
	/* A short buffer is cut, not overrun. */
	CHECK(strlen(duration_format(90 * S + 500 * MS, b, 8)) < 8);
}

/* Timestamps, relative to a fixed "now"; TZ=UTC for the local-time
 * forms. */
static void test_timestamp(void)
{
	const uint64_t now = 1765000000ull * 1000000 + 123456; /* 2025-12-06 05:46:40 UTC */
	const char *why = NULL;
	uint64_t t = 0;
	char *tz = getenv("TZ") ? strdup(getenv("TZ")) : NULL;

	setenv("TZ", "UTC", 1);
	tzset();
	CHECK(timestamp_parse("now", now, &t, &why) == 0 && t == now);
	CHECK(timestamp_parse("@1700000000", now, &t, &why) == 0 && t == 1700000000ull * 1000000);
	CHECK(timestamp_parse("-1h", now, &t, &why) == 0 && t == now - 3600ull * 1000000);
	/* On the command line a span may have spaces, as systemd's. */
	CHECK(timestamp_parse("1h 30min ago", now, &t, &why) == 0 && t == now - 5400ull * 1000000);
	CHECK(timestamp_parse("2 days ago", now, &t, &why) == 0 && t == now - 2 * 86400ull * 1000000);
	CHECK(timestamp_parse("1 5s ago", now, &t, &why) == 0 && t == now - 6ull * 1000000);
	CHECK(timestamp_parse("+1h", now, &t, &why) == 0 && t == now + 3600ull * 1000000);
	CHECK(timestamp_parse("5min left", now, &t, &why) == 0 && t == now + 300ull * 1000000);
	CHECK(timestamp_parse("tomorrow", now, &t, &why) == 0 && t == (1764979200ull + 86400) * 1000000);
	CHECK(timestamp_parse("2 parsecs ago", now, &t, &why) < 0);
	CHECK(timestamp_parse("2 days ago ago", now, &t, &why) < 0);
	CHECK(timestamp_parse("90min ago", now, &t, &why) == 0 && t == now - 5400ull * 1000000);
	CHECK(timestamp_parse("today", now, &t, &why) == 0 && t == 1764979200ull * 1000000);
	CHECK(timestamp_parse("yesterday", now, &t, &why) == 0 && t == (1764979200ull - 86400) * 1000000);
	CHECK(timestamp_parse("2025-12-06 05:00", now, &t, &why) == 0 && t == (1764979200ull + 5 * 3600) * 1000000);
	CHECK(timestamp_parse("2025-12-06", now, &t, &why) == 0 && t == 1764979200ull * 1000000);
	CHECK(timestamp_parse("04:30:15", now, &t, &why) == 0 &&
	      t == (1764979200ull + 4 * 3600 + 30 * 60 + 15) * 1000000);
	/* A span longer than the time since the epoch: 0, not a wrap. */
	CHECK(timestamp_parse("-3000w", now, &t, &why) == 0 && t == 0);
	/* ... and one that overflows nanoseconds: an error. */
	CHECK(timestamp_parse("-100000w", now, &t, &why) < 0);
	why = NULL;
	CHECK(timestamp_parse("banana", now, &t, &why) < 0 && why && strstr(why, "expected a timestamp of systemd.time(7)"));
	CHECK(timestamp_parse("25:00", now, &t, &why) < 0);
	CHECK(timestamp_parse("@", now, &t, &why) < 0);
	CHECK(timestamp_parse("-", now, &t, &why) < 0);
	CHECK(timestamp_parse("-infinity", now, &t, &why) < 0);
	/* What systemd's parse_timestamp() takes besides. */
	CHECK(timestamp_parse("@1700000000.25", now, &t, &why) == 0 && t == 1700000000ull * 1000000 + 250000);
	CHECK(timestamp_parse("Sat 2025-12-06 05:00:00", now, &t, &why) == 0 &&
	      t == (1764979200ull + 5 * 3600) * 1000000);
	CHECK(timestamp_parse("saturday 2025-12-06", now, &t, &why) == 0 && t == 1764979200ull * 1000000);
	why = NULL;
	CHECK(timestamp_parse("Mon 2025-12-06 05:00:00", now, &t, &why) < 0 && why && strstr(why, "weekday"));
	CHECK(timestamp_parse("2025-12-06 05:00:00 UTC", now, &t, &why) == 0 &&
	      t == (1764979200ull + 5 * 3600) * 1000000);
	CHECK(timestamp_parse("2025-12-06T05:00:00", now, &t, &why) == 0 &&
	      t == (1764979200ull + 5 * 3600) * 1000000);
	CHECK(timestamp_parse("2025-12-06T05:00:00Z", now, &t, &why) == 0 &&
	      t == (1764979200ull + 5 * 3600) * 1000000);
	CHECK(timestamp_parse("2025-12-06T06:30:00+01:30", now, &t, &why) == 0 &&
	      t == (1764979200ull + 5 * 3600) * 1000000);
	CHECK(timestamp_parse("2025-12-06 05:00:00.5", now, &t, &why) == 0 &&
	      t == (1764979200ull + 5 * 3600) * 1000000 + 500000);
	CHECK(timestamp_parse("25-12-06 05:00:00", now, &t, &why) == 0 &&
	      t == (1764979200ull + 5 * 3600) * 1000000);
	CHECK(timestamp_parse("Dec 06 05:00:00", now, &t, &why) == 0 &&
	      t == (1764979200ull + 5 * 3600) * 1000000);
	CHECK(timestamp_parse("  today  ", now, &t, &why) == 0 && t == 1764979200ull * 1000000);
	CHECK(timestamp_parse("2025-12-06 06:00:00 Europe/Berlin", now, &t, &why) == 0 &&
	      t == (1764979200ull + 5 * 3600) * 1000000);
	CHECK(timestamp_parse("2025-12-06 05:00:00 UTC UTC", now, &t, &why) < 0);
	CHECK(timestamp_parse("2025-12-06 05:00:00 Mars/Olympus", now, &t, &why) < 0);
	CHECK(timestamp_parse("2025-12-06 05:00:00 ../../etc/passwd", now, &t, &why) < 0);
	CHECK(timestamp_parse("2025-12-06T05:00:00+25:00", now, &t, &why) < 0);
	CHECK(timestamp_parse("2025-12-06 05:00:00Z UTC", now, &t, &why) < 0);
	/* Every timestamp mtagctl prints ("%a %Y-%m-%d %H:%M:%S %Z", and
	 * "%H:%M:%S"), in another local zone, parses back to its second. */
	setenv("TZ", "Europe/Berlin", 1);
	tzset();
	for (uint64_t sec = 1700000000ull; sec < 1800000000ull; sec += 3777777ull) {
		time_t tt = (time_t)sec;
		struct tm tm;
		char b[80];

		localtime_r(&tt, &tm);
		strftime(b, sizeof(b), "%a %Y-%m-%d %H:%M:%S %Z", &tm);
		if (timestamp_parse(b, now, &t, &why) != 0 || t != sec * 1000000)
			printf("# '%s' -> %llu, want %llu\n", b, (unsigned long long)t / 1000000,
			       (unsigned long long)sec);
		CHECK(timestamp_parse(b, now, &t, &why) == 0 && t == sec * 1000000);
	}
	if (tz)
		setenv("TZ", tz, 1);
	else
		unsetenv("TZ");
	free(tz);
	tzset();
}

void run_duration_tests(void)
{
	RUN(test_parse);
	RUN(test_format);
	RUN(test_timestamp);
}
