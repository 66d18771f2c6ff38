/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prom.h -- Prometheus text exposition format, as node_exporter's textfile
 * collector reads it: "# HELP" and "# TYPE" once per metric family, then
 * its samples, label values escaped (\\ \" \n), names checked.  The text
 * is built in memory and written out at the end, to a stream or
 * atomically to a file (a temporary file in the same directory, renamed
 * over the target, so the collector never sees half a file).
 *
 *	struct prom p;
 *	prom_init(&p);
 *	prom_family(&p, "mtag_service_mte", "gauge", "1 if the service runs with MTE.");
 *	prom_sample(&p, "mtag_service_mte", (const char *[]){ "unit", "nginx.service", NULL }, 1);
 *	r = prom_commit(&p, "/var/lib/prometheus/node-exporter/mtag.prom");
 *	prom_free(&p);
 *
 * Errors are sticky: the first one (-EINVAL for a bad name, a sample of a
 * family that was not declared last, a family declared twice) is returned
 * by every later call and by prom_commit()/prom_output(), which then
 * write nothing.
 */
#ifndef MTAG_PROM_H
#define MTAG_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct prom {
	FILE *mem;          /* open_memstream() */
	char *buf;
	size_t len;
	char family[128];   /* the family being written */
	char **seen;        /* families declared so far */
	size_t n_seen;
	int err;
};

/* [a-zA-Z_:][a-zA-Z0-9_:]* */
bool prom_valid_metric_name(const char *name);
/* [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__" (reserved). */
bool prom_valid_label_name(const char *name);

int prom_init(struct prom *p);
/* Start family NAME of TYPE (counter, gauge, histogram, summary,
 * untyped) with one line of HELP (escaped). */
int prom_family(struct prom *p, const char *name, const char *type, const char *help);
/* One sample: NAME is the family's or, for histograms and summaries, the
 * family's with _bucket/_sum/_count.  LABELS: NULL, or name, value, ...,
 * NULL.  Non-finite values print as NaN, +Inf, -Inf. */
int prom_sample(struct prom *p, const char *name, const char *const *labels, double value);
int prom_sample_u64(struct prom *p, const char *name, const char *const *labels, uint64_t value);
/* The text so far (NUL-terminated), or NULL after an error. */
const char *prom_text(struct prom *p, size_t *len);
/* Write the text to F; 0 or -errno. */
int prom_output(struct prom *p, FILE *f);
/* Write it to PATH atomically, mode 0644; 0 or -errno. */
int prom_commit(struct prom *p, const char *path);
void prom_free(struct prom *p);

#endif
