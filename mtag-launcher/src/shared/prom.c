/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prom.c -- Prometheus text exposition writer (see prom.h). */
#include "prom.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"

static bool name_char(char c, bool first, bool colon)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
		return true;
	if (colon && c == ':')
		return true;
	return !first && c >= '0' && c <= '9';
}

bool prom_valid_metric_name(const char *name)
{
	if (!name || !*name)
		return false;
	for (const char *c = name; *c; c++)
		if (!name_char(*c, c == name, true))
			return false;
	return true;
}

bool prom_valid_label_name(const char *name)
{
	if (!name || !*name || strncmp(name, "__", 2) == 0)
		return false;
	for (const char *c = name; *c; c++)
		if (!name_char(*c, c == name, false))
			return false;
	return true;
}

int prom_init(struct prom *p)
{
	memset(p, 0, sizeof(*p));
	p->mem = open_memstream(&p->buf, &p->len);
	if (!p->mem)
		p->err = -errno;
	return p->err;
}

static void put_escaped(FILE *f, const char *s, bool quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (quote && *s == '"')
			fputs("\\\"", f);
		else
			putc(*s, f);
	}
}

int prom_family(struct prom *p, const char *name, const char *type, const char *help)
{
	static const char *const types[] = { "counter", "gauge", "histogram", "summary", "untyped" };
	bool type_ok = false;
	char **seen;

	if (p->err)
		return p->err;
	for (size_t i = 0; type && i < sizeof(types) / sizeof(types[0]); i++)
		type_ok |= strcmp(type, types[i]) == 0;
	if (!prom_valid_metric_name(name) || strlen(name) >= sizeof(p->family) || !type_ok)
		return p->err = -EINVAL;
	for (size_t i = 0; i < p->n_seen; i++)
		if (strcmp(p->seen[i], name) == 0)
			return p->err = -EINVAL; /* families must not be split */
	seen = reallocarray(p->seen, p->n_seen + 1, sizeof(*seen));
	if (!seen)
		return p->err = -ENOMEM;
	p->seen = seen;
	if (!(p->seen[p->n_seen] = strdup(name)))
		return p->err = -ENOMEM;
	p->n_seen++;
	snprintf(p->family, sizeof(p->family), "%s", name);
	if (help) {
		fprintf(p->mem, "# HELP %s ", name);
		put_escaped(p->mem, help, false);
		putc('\n', p->mem);
	}
	fprintf(p->mem, "# TYPE %s %s\n", name, type);
	return 0;
}

/* NAME belongs to the current family. */
static bool of_family(const struct prom *p, const char *name)
{
	static const char *const sfx[] = { "", "_bucket", "_sum", "_count" };
	size_t l = strlen(p->family);

	if (!p->family[0] || strncmp(name, p->family, l) != 0)
		return false;
	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++)
		if (strcmp(name + l, sfx[i]) == 0)
			return true;
	return false;
}

static int sample(struct prom *p, const char *name, const char *const *labels, const char *value)
{
	if (p->err)
		return p->err;
	if (!prom_valid_metric_name(name) || !of_family(p, name))
		return p->err = -EINVAL;
	for (size_t i = 0; labels && labels[i]; i += 2) {
		if (!prom_valid_label_name(labels[i]) || !labels[i + 1])
			return p->err = -EINVAL;
		for (size_t k = 0; k < i; k += 2)
			if (strcmp(labels[k], labels[i]) == 0)
				return p->err = -EINVAL;
	}
	fputs(name, p->mem);
	if (labels && labels[0]) {
		putc('{', p->mem);
		for (size_t i = 0; labels[i]; i += 2) {
			fprintf(p->mem, "%s%s=\"", i ? "," : "", labels[i]);
			put_escaped(p->mem, labels[i + 1], true);
			putc('"', p->mem);
		}
		putc('}', p->mem);
	}
	fprintf(p->mem, " %s\n", value);
	return 0;
}

int prom_sample(struct prom *p, const char *name, const char *const *labels, double value)
{
	char v[64];

	if (isnan(value))
		snprintf(v, sizeof(v), "NaN");
	else if (isinf(value))
		snprintf(v, sizeof(v), "%s", value > 0 ? "+Inf" : "-Inf");
	else if (fabs(value) < 9e15 && value == (double)(int64_t)value)
		snprintf(v, sizeof(v), "%" PRId64, (int64_t)value);
	else
		snprintf(v, sizeof(v), "%.17g", value);
	return sample(p, name, labels, v);
}

int prom_sample_u64(struct prom *p, const char *name, const char *const *labels, uint64_t value)
{
	char v[32];

	snprintf(v, sizeof(v), "%" PRIu64, value);
	return sample(p, name, labels, v);
}

const char *prom_text(struct prom *p, size_t *len)
{
	if (p->err || fflush(p->mem) != 0) {
		if (!p->err)
			p->err = -EIO;
		return NULL;
	}
	if (len)
		*len = p->len;
	return p->buf ? p->buf : "";
}

int prom_output(struct prom *p, FILE *f)
{
	size_t len;
	const char *t = prom_text(p, &len);

	if (!t)
		return p->err;
	if (fwrite(t, 1, len, f) != len || fflush(f) != 0)
		return -EIO;
	return 0;
}

int prom_commit(struct prom *p, const char *path)
{
	size_t len;
	const char *t = prom_text(p, &len);

	if (!t)
		return p->err;
	return write_file_atomic(path, t, len, 0644);
}

void prom_free(struct prom *p)
{
	if (p->mem)
		fclose(p->mem);
	free(p->buf);
	for (size_t i = 0; i < p->n_seen; i++)
		free(p->seen[i]);
	free(p->seen);
	memset(p, 0, sizeof(*p));
}
