/* SPDX-License-Identifier: GPL-2.0-or-later */
/* duration.h -- time spans in systemd's syntax (systemd.time(7)). */
#ifndef MTAG_DURATION_H
#define MTAG_DURATION_H

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

#endif
