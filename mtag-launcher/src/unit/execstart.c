/* SPDX-License-Identifier: GPL-2.0-or-later */
/* execstart.c -- ExecStart= values as systemd splits them, and their
 * rewriting to run through mtag-launcher. */
#include "execstart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The extent of the next word of a command line as systemd splits it
 * (whitespace-separated, '...' and "..." quoting, backslash escapes).
 * Returns a pointer past the word, or NULL for an unterminated quote. */
static const char *word_end(const char *s)
{
	char quote = 0;

	for (; *s; s++) {
		if (*s == '\\') {
			if (!s[1])
				return NULL;
			s++;
		} else if (quote) {
			if (*s == quote)
				quote = 0;
		} else if (*s == '\'' || *s == '"') {
			quote = *s;
		} else if (*s == ' ' || *s == '\t') {
			break;
		}
	}
	return quote ? NULL : s;
}

/* Do the words of S all end properly (no unterminated quote)? */
static bool words_ok(const char *s)
{
	for (;;) {
		s += strspn(s, " \t");
		if (!*s)
			return true;
		s = word_end(s);
		if (!s)
			return false;
	}
}

void unit_exec_split(const char *value, struct strv *cmds)
{
	const char *s = value, *start = NULL, *last_end = NULL;

	memset(cmds, 0, sizeof(*cmds));
	for (;;) {
		const char *w = s + strspn(s, " \t"), *e;

		if (!*w)
			break;
		e = word_end(w);
		if (!e) { /* an unterminated quote: keep the rest as it is */
			if (!start)
				start = w;
			last_end = w + strlen(w);
			break;
		}
		if (e - w == 1 && *w == ';') { /* a lone, unquoted ';' separates */
			if (start)
				strv_push(cmds, xstrndup(start, (size_t)(last_end - start)));
			start = NULL;
		} else {
			if (!start)
				start = w;
			last_end = e;
		}
		s = e;
	}
	if (start)
		strv_push(cmds, xstrndup(start, (size_t)(last_end - start)));
}

static const char *skip_prefixes(const char *v, char *prefix, size_t size, bool *argv0)
{
	size_t n = 0;

	*argv0 = false;
	for (; *v && strchr("-@:+!", *v); v++) {
		if (*v == '@')
			*argv0 = true;
		else if (n + 1 < size)
			prefix[n++] = *v;
	}
	prefix[n] = '\0';
	return v;
}

char *unit_wrap_exec(const char *value, const char *launcher, const char *args)
{
	char prefix[8];
	bool argv0;
	const char *path = skip_prefixes(value, prefix, sizeof(prefix), &argv0);
	const char *path_end = word_end(path), *a0 = NULL, *a0_end = NULL, *rest;

	if (!path_end || path_end == path)
		return NULL;
	rest = path_end;
	if (argv0) {
		a0 = path_end + strspn(path_end, " \t");
		a0_end = word_end(a0);
		if (!a0_end || a0_end == a0)
			return NULL;
		rest = a0_end;
	}
	if (!words_ok(rest))
		return NULL;
	if (argv0)
		return xasprintf("%s%s %s --argv0 %.*s -- %.*s%s", prefix, launcher,
				 args, (int)(a0_end - a0), a0, (int)(path_end - path),
				 path, rest);
	return xasprintf("%s%s %s -- %.*s%s", prefix, launcher, args,
			 (int)(path_end - path), path, rest);
}

/* One word W..END as systemd hands it to the program.  Malloc'ed. */
static char *word_value(const char *w, const char *end, const char *unit)
{
	char *out = xmalloc(2 * (size_t)(end - w) + strlen(unit) * (size_t)(end - w) + 1), *q = out;
	char quote = 0;

	for (; w < end; w++) {
		if (*w == '\\' && w + 1 < end) {
			w++;
			*q++ = *w == 'n' ? '\n' : *w == 't' ? '\t' : *w;
		} else if (quote && *w == quote) {
			quote = 0;
		} else if (!quote && (*w == '\'' || *w == '"')) {
			quote = *w;
		} else if ((*w == '%' || *w == '$') && w + 1 < end && w[1] == *w) {
			*q++ = *w++;
		} else if (*w == '%' && w + 1 < end && w[1] == 'n') {
			q = stpcpy(q, unit);
			w++;
		} else {
			*q++ = *w;
		}
	}
	*q = '\0';
	return out;
}

bool unit_exec_words(const char *cmd, const char *unit, struct strv *words)
{
	char prefix[8];
	bool argv0;
	const char *s = skip_prefixes(cmd, prefix, sizeof(prefix), &argv0);

	memset(words, 0, sizeof(*words));
	for (;;) {
		const char *e;

		s += strspn(s, " \t");
		if (!*s)
			return true;
		e = word_end(s);
		if (!e)
			return false;
		strv_push(words, word_value(s, e, unit));
		s = e;
	}
}

bool unit_exec_runs(const char *value, const char *launcher)
{
	char prefix[8];
	bool argv0;
	const char *path = skip_prefixes(value, prefix, sizeof(prefix), &argv0);
	const char *end = word_end(path);
	const char *base = strrchr(launcher, '/');
	size_t n;

	if (!end)
		return false;
	n = (size_t)(end - path);
	base = base ? base + 1 : launcher;
	return (n == strlen(launcher) && memcmp(path, launcher, n) == 0) ||
	       (n == strlen(base) && memcmp(path, base, n) == 0);
}

/* S as one word of an ExecStart= line that systemd gives the program
 * unchanged: in double quotes, with backslash and quote escaped, and
 * "%" and "$" doubled (specifiers and variables are expanded even in
 * quotes).  Malloc'ed. */
char *unit_exec_word(const char *s)
{
	char *out = xmalloc(2 * strlen(s) + 3), *q = out;

	*q++ = '"';
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			*q++ = '\\';
		else if (*s == '%' || *s == '$')
			*q++ = *s;
		*q++ = *s;
	}
	*q++ = '"';
	*q = '\0';
	return out;
}
