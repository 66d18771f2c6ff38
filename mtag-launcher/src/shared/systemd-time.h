/* SPDX-License-Identifier: GPL-2.0-or-later */
/* systemd-time.h -- time in systemd's syntax (systemd.time(7)): time spans
 * (policy keys, --since -1h) and the timestamps of --since. */
#ifndef MTAG_SYSTEMD_TIME_H
#define MTAG_SYSTEMD_TIME_H

#include <stddef.h>
#include <stdint.h>

/* "never": reenable=infinity, and the kernel's 0. */
#define DURATION_INFINITY UINT64_MAX

/* Parse S ("500ms", "10s", "1min30s", "1.5s", "2h", a bare number of
 * seconds, or "infinity") into nanoseconds.  Returns 0, or -1 with a
 * reason in WHY (a static string) for an empty, negative, malformed or
 * overflowing value. */
int duration_parse(const char *s, uint64_t *ns, const char **why);

/* Write NS as the shortest exact systemd time span ("300ms", "1min 30s",
 * "infinity") to BUF. */
char *duration_format(uint64_t ns, char *buf, size_t size);

/* Parse a timestamp as systemd.time(7) and journalctl take it: "now",
 * "today", "yesterday", "tomorrow", "-SPAN" / "SPAN ago" / "+SPAN" /
 * "SPAN left" (a time span, white space allowed: "2 days ago"), "@EPOCH[.FRAC]",
 * or "[WEEKDAY] [YY]YY-MM-DD[ |T]HH:MM[:SS[.FRAC]]" and the parts of it
 * systemd allows ("HH:MM" today, a date at midnight, "Dec 07 10:00:00"),
 * then optionally "UTC", the local zone's name or a tzdata zone
 * ("Europe/Berlin"), or "Z" / "+HH:MM" after the time.  Local time
 * otherwise.  Every timestamp mtagctl prints parses back.  Into
 * CLOCK_REALTIME microseconds; returns 0, or -1 with a reason in *WHY. */
int timestamp_parse(const char *s, uint64_t now_usec, uint64_t *usec, const char **why);

/* The one local-time formatter: CLOCK_REALTIME USEC as local time in FMT
 * (strftime(3)) into BUF.  USEC 0 (unknown) or a time that cannot be
 * formatted gives UNKNOWN, or "@SECONDS" when UNKNOWN is NULL.  Returns
 * BUF. */
char *timestamp_format_local(uint64_t usec, const char *fmt, const char *unknown, char *buf, size_t len)
	__attribute__((format(strftime, 2, 0)));

#endif
