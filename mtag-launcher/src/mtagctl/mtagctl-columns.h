/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-columns.h -- the columns of "mtagctl status": one list that
 * makes both the table (through libsmartcols) and the JSON objects, so
 * the two cannot drift apart. */
#ifndef MTAG_MTAGCTL_COLUMNS_H
#define MTAG_MTAGCTL_COLUMNS_H

#include <stddef.h>
#include <stdio.h>

#include "json.h"
#include "mtagctl.h"
#include "mtagctl-verdict.h"

/* The table of ROWS on OUT: a header unless --no-legend, one line per
 * service, the count of each verdict after it unless --no-legend.
 * Control bytes in the cells are escaped (libsmartcols: "\x1b").
 * 0 or -errno. */
int status_table_print(const struct ctl *c, FILE *out, const struct svc_state *rows, size_t n);

/* One service as a JSON object: every column's key and value. */
void status_json_row(struct json *w, const struct svc_state *s);

/* The POLICY column's text ("sync (FILE:LINE)", "-"), for status -p. */
void status_policy_text(const struct svc_state *s, char *buf, size_t len);

/* The colour of a verdict ("" without colour). */
const char *status_verdict_color(const struct ctl *c, enum verdict v);

#endif
