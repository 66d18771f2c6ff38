/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.c -- parse policy files and find the entry for a unit.
 *
 * One entry a line:  UNIT-PATTERN MODE [key=value...]   # comment
 * See mtag-policy.conf(5).
 */
#include "policy.h"

#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "systemd-time.h"
#include "unitname.h"
#include "util.h"

#define SERVICE_SUFFIX ".service"
#define UNIT_NAME_MAX 255

void policy_init(struct policy *p)
{
	memset(p, 0, sizeof(*p));
}

void policy_free(struct policy *p)
{
	for (size_t i = 0; i < p->n_entries; i++)
		free(p->entries[i].pattern);
	for (size_t i = 0; i < p->n_diags; i++)
		free(p->diags[i].msg);
	for (size_t i = 0; i < p->n_files; i++)
		free(p->files[i]);
	free(p->entries);
	free(p->index);
	free(p->diags);
	free(p->files);
	memset(p, 0, sizeof(*p));
}

const char *policy_add_file(struct policy *p, const char *file)
{
	for (size_t i = 0; i < p->n_files; i++)
		if (strcmp(p->files[i], file) == 0)
			return p->files[i];
	p->files = xreallocarray(p->files, p->n_files + 1, sizeof(*p->files));
	p->files[p->n_files] = xstrdup(file);
	return p->files[p->n_files++];
}

void policy_diag(struct policy *p, enum diag_level level, const char *file,
		 unsigned line, const char *fmt, ...)
{
	struct diag *d;
	va_list ap;

	grow_array((void **)&p->diags, &p->cap_diags, p->n_diags + 1, sizeof(*p->diags));
	d = &p->diags[p->n_diags++];
	d->level = level;
	d->file = policy_add_file(p, file);
	d->line = line;
	va_start(ap, fmt);
	d->msg = xvasprintf(fmt, ap);
	va_end(ap);
}

size_t policy_error_count(const struct policy *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n_diags; i++)
		n += p->diags[i].level == DIAG_ERROR;
	return n;
}

static const char *const mode_names[] = {
	[MTAG_MODE_OFF] = "off",
	[MTAG_MODE_ASYNC] = "async",
	[MTAG_MODE_SYNC] = "sync",
	[MTAG_MODE_ASYMM] = "asymm",
	[MTAG_MODE_REPORT] = "report",
};

const char *mode_name(enum mtag_mode m)
{
	if ((unsigned)m < sizeof(mode_names) / sizeof(mode_names[0]))
		return mode_names[m];
	return "?";
}

int mode_from_string(const char *s, enum mtag_mode *out)
{
	for (unsigned i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
		if (strcmp(s, mode_names[i]) == 0) {
			*out = (enum mtag_mode)i;
			return 0;
		}
	return -1;
}

unsigned mode_tunable_value(enum mtag_mode mode, bool heap)
{
	unsigned v;

	switch (mode) {
	case MTAG_MODE_ASYNC:
		v = 1;
		break;
	case MTAG_MODE_SYNC:
	case MTAG_MODE_REPORT:
		v = 3;
		break;
	case MTAG_MODE_ASYMM:
		v = 5;
		break;
	default:
		return 0;
	}
	return heap ? v : (v & ~1u);
}

static bool is_unit_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || strchr(":-_.\\@", c) != NULL;
}

static bool has_glob_chars(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

bool unit_name_is_valid(const char *name)
{
	size_t n = strlen(name);
	const char *at;

	if (n == 0 || n > UNIT_NAME_MAX)
		return false;
	for (const char *c = name; *c; c++)
		if (!is_unit_char(*c))
			return false;
	if (!str_ends_with(name, SERVICE_SUFFIX) || n == strlen(SERVICE_SUFFIX))
		return false;
	at = strchr(name, '@');
	if (at) {
		if (at == name || strchr(at + 1, '@'))
			return false;
	}
	return true;
}

static int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "yes", "on", "true", "1" };
	static const char *const no[] = { "no", "off", "false", "0" };

	for (unsigned i = 0; i < 4; i++) {
		if (strcmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcmp(s, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -1;
}

/* Validate PATTERN; on error record a diagnostic and return -1. */
static int classify_pattern(struct policy *p, const char *file, unsigned line,
			    const char *pat, enum entry_kind *kind)
{
	if (strcmp(pat, POLICY_DEFAULT) == 0) {
		*kind = ENTRY_DEFAULT;
		return 0;
	}
	if (has_glob_chars(pat)) {
		const char *dot = strrchr(pat, '.');

		for (const char *c = pat; *c; c++)
			if (!is_unit_char(*c) && !strchr("*?[]!^", *c)) {
				policy_diag(p, DIAG_ERROR, file, line,
					    "'%s': character '%c' cannot appear in a unit name",
					    pat, *c);
				return -1;
			}
		if (dot && !has_glob_chars(dot) && strcmp(dot, SERVICE_SUFFIX) != 0) {
			policy_diag(p, DIAG_ERROR, file, line,
				    "'%s': pattern can never match a service (only .service units run through the launcher)",
				    pat);
			return -1;
		}
		if (strlen(pat) > UNIT_NAME_MAX) {
			policy_diag(p, DIAG_ERROR, file, line,
				    "pattern is longer than %d characters", UNIT_NAME_MAX);
			return -1;
		}
		*kind = ENTRY_GLOB;
		return 0;
	}
	if (!unit_name_is_valid(pat)) {
		const char *dot = strrchr(pat, '.');

		if (!dot)
			policy_diag(p, DIAG_ERROR, file, line,
				    "'%s' is not a unit name: did you mean '%s.service'?",
				    pat, pat);
		else if (strcmp(dot, SERVICE_SUFFIX) != 0 && dot[1] != '\0' &&
			 strspn(pat, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.\\@") == strlen(pat))
			policy_diag(p, DIAG_ERROR, file, line,
				    "'%s': only .service units run through the launcher",
				    pat);
		else
			policy_diag(p, DIAG_ERROR, file, line,
				    "'%s' is not a valid unit name", pat);
		return -1;
	}
	*kind = str_ends_with(pat, "@" SERVICE_SUFFIX) ? ENTRY_TEMPLATE : ENTRY_EXACT;
	return 0;
}

static void set_cpu_preferred(struct policy *p, const char *file, unsigned line,
			      enum mtag_mode mode)
{
	if (p->has_cpu_preferred) {
		if (p->rank > p->cpu_preferred_rank)
			return; /* a vendor default under the admin's entry */
		if (p->rank == p->cpu_preferred_rank)
			policy_diag(p, DIAG_WARNING, file, line,
				    "overrides the cpu-preferred entry at %s:%u",
				    p->cpu_preferred_file, p->cpu_preferred_line);
	}
	p->has_cpu_preferred = true;
	p->cpu_preferred_rank = p->rank;
	p->cpu_preferred = mode;
	p->cpu_preferred_file = file;
	p->cpu_preferred_line = line;
}

static size_t hash_str(const char *s)
{
	size_t h = 1469598103934665603ull & (size_t)-1; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * (size_t)1099511628211ull;
	return h;
}

/* The slot of PATTERN in the index: where it is, or where it would go. */
static size_t *index_slot(const struct policy *p, const char *pattern)
{
	size_t mask = p->index_size - 1, i = hash_str(pattern) & mask;

	while (p->index[i] && strcmp(p->entries[p->index[i] - 1].pattern, pattern) != 0)
		i = (i + 1) & mask;
	return &p->index[i];
}

static void index_grow(struct policy *p)
{
	size_t size = p->index_size ? p->index_size * 2 : 64;

	free(p->index);
	p->index = xreallocarray(NULL, size, sizeof(*p->index));
	memset(p->index, 0, size * sizeof(*p->index));
	p->index_size = size;
	for (size_t i = 0; i < p->n_entries; i++)
		*index_slot(p, p->entries[i].pattern) = i + 1;
}

static void add_entry(struct policy *p, const struct policy_entry *e)
{
	size_t *slot;

	if (2 * (p->n_entries + 1) > p->index_size)
		index_grow(p);
	slot = index_slot(p, e->pattern);
	if (*slot) {
		struct policy_entry *old = &p->entries[*slot - 1];

		/* The higher-priority source wins (an /etc entry over a
		 * vendor default, quietly: that is what they are for); within
		 * one source a later entry replaces the earlier one.  Either
		 * way the winner keeps the first one's place in the reading
		 * order. */
		if (e->rank > old->rank) {
			free(e->pattern);
			return;
		}
		if (e->rank == old->rank)
			policy_diag(p, DIAG_WARNING, e->file, e->line,
				    "overrides the entry for '%s' at %s:%u",
				    e->pattern, old->file, old->line);
		free(old->pattern);
		*old = *e;
		return;
	}
	grow_array((void **)&p->entries, &p->cap_entries, p->n_entries + 1,
		   sizeof(*p->entries));
	p->entries[p->n_entries++] = *e;
	*slot = p->n_entries;
}

#define MAX_TOKENS 16

/* The options of a service entry, KEY=VALUE after its mode.  A new key is
 * a row here and a field of struct policy_entry (policy.h). */
enum option_type { OPT_ON_OFF, OPT_YES_NO, OPT_DURATION, OPT_DURATION_NO };
static const struct option_key {
	const char *name;
	enum option_type type;
	size_t field;   /* the bool's offset in struct policy_entry */
} option_keys[] = {
	{ "heap", OPT_ON_OFF, offsetof(struct policy_entry, heap) },
	{ "require", OPT_YES_NO, offsetof(struct policy_entry, require) },
	{ "strict", OPT_YES_NO, offsetof(struct policy_entry, strict) },
	{ "reenable", OPT_DURATION, 0 },
	{ "upgrade", OPT_DURATION_NO, 0 },
};
#define N_OPTION_KEYS (sizeof(option_keys) / sizeof(option_keys[0]))

/* "heap=on|off, require=yes|no, ..." (SYNTAX) or "heap, require, ...". */
static const char *option_list(bool syntax)
{
	static const char *const value[] = {
		[OPT_ON_OFF] = "=on|off", [OPT_YES_NO] = "=yes|no", [OPT_DURATION] = "=DURATION",
		[OPT_DURATION_NO] = "=DURATION|no",
	};
	static char buf[2][256];
	char *b = buf[syntax];
	size_t off = 0;

	if (*b)
		return b;
	for (size_t i = 0; i < N_OPTION_KEYS; i++)
		off += (size_t)snprintf(b + off, sizeof(buf[0]) - off, "%s%s%s", i ? ", " : "",
					option_keys[i].name, syntax ? value[option_keys[i].type] : "");
	return b;
}

/*
 * upgrade=DURATION|no on an async entry.  A bad value is an error that
 * keeps the entry, in its mode, with the default window: dropping the
 * line would hand the service to another entry, and "no" would be the
 * weaker reading.
 */
static void parse_upgrade(struct policy *p, const char *file, unsigned lineno,
			  const char *pattern, const char *val, struct policy_entry *e)
{
	const char *why = NULL;
	uint64_t ns = 0;
	bool no = strcmp(val, "no") == 0;

	if (!no && duration_parse(val, &ns, &why) == 0) {
		if (ns == 0)
			why = "must be more than 0 (upgrade=no turns it off)";
		else if (ns == DURATION_INFINITY)
			why = "must be finite (the service goes back to async after it)";
		else if (ns > UPGRADE_MAX_NS)
			why = "longer than the maximum, 1w (7 days; a service that should stay in sync needs mode sync)";
	}
	if (why) {
		char span[64];

		policy_diag(p, DIAG_ERROR, file, lineno,
			    "upgrade=%s: %s (expected a time span such as 60s or 10min, or no); '%s' keeps mode %s, with upgrade=%s",
			    val, why, pattern, mode_name(e->mode),
			    e->mode == MTAG_MODE_ASYNC ?
				    duration_format(UPGRADE_DEFAULT_NS, span, sizeof(span)) : "no");
		return;
	}
	if (e->mode != MTAG_MODE_ASYNC) {
		policy_diag(p, DIAG_WARNING, file, lineno,
			    "upgrade=%s only has an effect in mode async ('%s' is %s)",
			    val, pattern, mode_name(e->mode));
		return;
	}
	e->upgrade_ns = no ? 0 : ns;
}

static void parse_line(struct policy *p, const char *file, unsigned lineno, char *s)
{
	char *tok[MAX_TOKENS];
	int n = 0;
	char *save = NULL, *t;
	struct policy_entry e;
	bool seen[N_OPTION_KEYS] = { false }, is_cpu;
	const char *reenable_val = NULL, *upgrade_val = NULL;
	enum entry_kind kind;
	enum mtag_mode mode;
	char *hash = strchr(s, '#');

	if (hash)
		*hash = '\0';
	for (t = strtok_r(s, " \t\r\v\f", &save); t; t = strtok_r(NULL, " \t\r\v\f", &save)) {
		if (n == MAX_TOKENS) {
			policy_diag(p, DIAG_ERROR, file, lineno,
				    "too many words (at most %d key=value options)",
				    MAX_TOKENS - 2);
			return;
		}
		tok[n++] = t;
	}
	if (n == 0)
		return;
	is_cpu = strcmp(tok[0], POLICY_CPU_PREFERRED) == 0;
	if (n == 1) {
		policy_diag(p, DIAG_ERROR, file, lineno,
			    "'%s': missing mode (expected %s)", tok[0],
			    is_cpu ? "async, sync or asymm" : "off, async, sync, asymm or report");
		return;
	}
	if (mode_from_string(tok[1], &mode) < 0) {
		policy_diag(p, DIAG_ERROR, file, lineno,
			    "'%s': unknown mode '%s' (expected %s)", tok[0], tok[1],
			    is_cpu ? "async, sync or asymm" : "off, async, sync, asymm or report");
		return;
	}
	if (is_cpu) {
		if (mode == MTAG_MODE_OFF) {
			policy_diag(p, DIAG_ERROR, file, lineno,
				    "cpu-preferred: the kernel has no preferred mode 'off' (expected async, sync or asymm)");
			return;
		}
		if (mode == MTAG_MODE_REPORT) {
			policy_diag(p, DIAG_ERROR, file, lineno,
				    "cpu-preferred: 'report' is a mode of a service, not of a CPU (expected async, sync or asymm)");
			return;
		}
		if (n > 2) {
			policy_diag(p, DIAG_ERROR, file, lineno,
				    "cpu-preferred takes no options ('%s')", tok[2]);
			return;
		}
		set_cpu_preferred(p, policy_add_file(p, file), lineno, mode);
		return;
	}
	if (classify_pattern(p, file, lineno, tok[0], &kind) < 0)
		return;

	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.mode = mode;
	e.heap = true;
	e.require = false;
	e.reenable_ns = DURATION_INFINITY;
	e.upgrade_ns = mode == MTAG_MODE_ASYNC ? UPGRADE_DEFAULT_NS : 0;
	e.file = policy_add_file(p, file);
	e.line = lineno;
	e.rank = p->rank;

	for (int i = 2; i < n; i++) {
		char *eq = strchr(tok[i], '=');
		const char *key = tok[i], *val;
		const struct option_key *o = NULL;
		bool b;
		size_t k;

		if (!eq || eq == tok[i]) {
			policy_diag(p, DIAG_ERROR, file, lineno, "'%s': expected key=value (%s)",
				    tok[i], option_list(true));
			return;
		}
		*eq = '\0';
		val = eq + 1;
		for (k = 0; k < N_OPTION_KEYS && !o; k++)
			if (strcmp(key, option_keys[k].name) == 0)
				o = &option_keys[k];
		if (!o) {
			policy_diag(p, DIAG_ERROR, file, lineno,
				    "unknown option '%s' (known: %s)", key, option_list(false));
			return;
		}
		k = (size_t)(o - option_keys);
		if (seen[k]) {
			policy_diag(p, DIAG_ERROR, file, lineno, "'%s' given twice", key);
			return;
		}
		seen[k] = true;
		if (o->type == OPT_DURATION) {
			/* Checked below, once the whole line is read: a bad
			 * value does not drop the entry (see reenable=). */
			reenable_val = val;
			continue;
		}
		if (o->type == OPT_DURATION_NO) {
			upgrade_val = val; /* as reenable= */
			continue;
		}
		if (parse_bool(val, &b) < 0) {
			policy_diag(p, DIAG_ERROR, file, lineno, "%s=%s: expected %s",
				    key, val, o->type == OPT_ON_OFF ? "on or off" : "yes or no");
			return;
		}
		*(bool *)((char *)&e + o->field) = b;
	}
	if (mode == MTAG_MODE_ASYNC && !e.heap) {
		policy_diag(p, DIAG_ERROR, file, lineno,
			    "'%s': async with heap=off is not possible: glibc has no value for asynchronous checking without heap tagging (use sync heap=off, asymm heap=off or async)",
			    tok[0]);
		return;
	}
	if (reenable_val) {
		const char *why = NULL;
		uint64_t ns = 0;

		if (duration_parse(reenable_val, &ns, &why) == 0 && ns == 0)
			why = "must be more than 0";
		if (why) {
			/* Keep the entry with its mode and the default
			 * (never): dropping the line would hand the service
			 * to a glob or the default entry, which may be sync
			 * (an outage) or off (nothing checked). */
			policy_diag(p, DIAG_ERROR, file, lineno,
				    "reenable=%s: %s (expected a time span such as 500ms, 10s or 1min, or infinity); '%s' keeps mode %s, with reenable=infinity",
				    reenable_val, why,
				    tok[0], mode_name(mode));
		} else if (mode != MTAG_MODE_REPORT) {
			policy_diag(p, DIAG_WARNING, file, lineno,
				    "reenable=%s only has an effect in mode report ('%s' is %s)",
				    reenable_val, tok[0], mode_name(mode));
		} else {
			e.reenable_ns = ns;
		}
	}
	if (upgrade_val)
		parse_upgrade(p, file, lineno, tok[0], upgrade_val, &e);
	e.pattern = xstrdup(tok[0]);
	add_entry(p, &e);
}

void policy_parse(struct policy *p, const char *file, const char *buf, size_t len)
{
	unsigned lineno = 0;
	size_t pos = 0;
	char *line = NULL;
	size_t cap = 0;

	file = policy_add_file(p, file);
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;

		lineno++;
		if (memchr(buf + pos, '\0', n)) {
			policy_diag(p, DIAG_ERROR, file, lineno, "line contains a NUL byte");
		} else {
			grow_array((void **)&line, &cap, n + 1, 1);
			memcpy(line, buf + pos, n);
			line[n] = '\0';
			parse_line(p, file, lineno, line);
		}
		pos += n + (nl ? 1 : 0);
	}
	free(line);
}

static const struct policy_entry *lookup(const struct policy *p, const char *unit,
					 bool with_default)
{
	char *tpl = unit_name_template(unit);
	const struct policy_entry *exact = NULL, *dflt = NULL, *glob = NULL, *templ = NULL;

	for (size_t i = 0; i < p->n_entries && !exact; i++) {
		const struct policy_entry *e = &p->entries[i];

		switch (e->kind) {
		case ENTRY_EXACT:
			if (strcmp(e->pattern, unit) == 0)
				exact = e;
			break;
		case ENTRY_TEMPLATE:
			if (strcmp(e->pattern, unit) == 0 ||
			    (tpl && strcmp(e->pattern, tpl) == 0))
				templ = e;
			break;
		case ENTRY_GLOB:
			if (!glob && fnmatch(e->pattern, unit, 0) == 0)
				glob = e;
			break;
		case ENTRY_DEFAULT:
			dflt = e;
			break;
		}
	}
	free(tpl);
	if (exact)
		return exact;
	if (templ)
		return templ;
	if (glob)
		return glob;
	return with_default ? dflt : NULL;
}

const struct policy_entry *policy_lookup(const struct policy *p, const char *unit)
{
	return lookup(p, unit ? unit : "", true);
}

bool policy_names_unit(const struct policy *p, const char *unit)
{
	return lookup(p, unit, false) != NULL;
}

char *policy_entry_options(const struct policy_entry *e)
{
	static const struct { const char *name; uint64_t ns; } units[] = {
		{ "min", 60000000000ULL }, { "s", 1000000000ULL }, { "ms", 1000000ULL },
		{ "us", 1000ULL }, { "ns", 1ULL },
	};
	char reenable[64] = "", upgrade[64] = "";

	if (e->mode == MTAG_MODE_REPORT && e->reenable_ns != DURATION_INFINITY) {
		/* The largest unit that gives it exactly, in one word. */
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (e->reenable_ns % units[i].ns == 0) {
				snprintf(reenable, sizeof(reenable), " reenable=%llu%s",
					 (unsigned long long)(e->reenable_ns / units[i].ns), units[i].name);
				break;
			}
	}
	if (e->mode == MTAG_MODE_ASYNC && e->upgrade_ns == 0) {
		snprintf(upgrade, sizeof(upgrade), " upgrade=no");
	} else if (e->mode == MTAG_MODE_ASYNC && e->upgrade_ns != UPGRADE_DEFAULT_NS) {
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (e->upgrade_ns % units[i].ns == 0) {
				snprintf(upgrade, sizeof(upgrade), " upgrade=%llu%s",
					 (unsigned long long)(e->upgrade_ns / units[i].ns), units[i].name);
				break;
			}
	}
	return xasprintf("%s%s%s%s%s%s", mode_name(e->mode), e->heap ? "" : " heap=off",
			 e->require ? " require=yes" : "", e->strict ? " strict=yes" : "", reenable,
			 upgrade);
}
