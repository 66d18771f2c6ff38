/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tunables.c -- GLIBC_TUNABLES merging.
 *
 * glibc parses GLIBC_TUNABLES as NAME=VALUE pairs separated by ':'.  We keep
 * every pair that is not ours verbatim (empty pairs are dropped) and append
 * both memory-tagging names, so that stock glibc (glibc.mem.tagging) and the
 * mtag glibc (glibc.memtag.enable) see the same value.  _MTAG_ENABLE, the
 * original env alias, is set to the same value so an inherited alias can
 * never disagree with the policy.
 */
#include "tunables.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int is_ours(const char *pair, size_t len)
{
	static const char *const names[] = { TUNABLE_UPSTREAM, TUNABLE_ORIGINAL };

	for (unsigned i = 0; i < 2; i++) {
		size_t n = strlen(names[i]);

		if (len >= n && memcmp(pair, names[i], n) == 0 &&
		    (len == n || pair[n] == '='))
			return 1;
	}
	return 0;
}

char *tunables_merge(const char *old, unsigned value)
{
	size_t olen = old ? strlen(old) : 0;
	char *out = xmalloc(olen + 2 * 32 + 8);
	size_t n = 0;
	const char *s = old;

	while (s && *s) {
		const char *end = strchr(s, ':');
		size_t len = end ? (size_t)(end - s) : strlen(s);

		if (len && !is_ours(s, len)) {
			memcpy(out + n, s, len);
			n += len;
			out[n++] = ':';
		}
		s += len + (end ? 1 : 0);
	}
	n += (size_t)snprintf(out + n, 2 * 32 + 8, "%s=%u:%s=%u", TUNABLE_UPSTREAM,
			      value, TUNABLE_ORIGINAL, value);
	out[n] = '\0';
	return out;
}

int tunables_apply(unsigned value)
{
	char *v = tunables_merge(getenv("GLIBC_TUNABLES"), value);
	char alias[16];
	int r = 0;

	if (setenv("GLIBC_TUNABLES", v, 1) < 0)
		r = -errno;
	snprintf(alias, sizeof(alias), "%u", value);
	if (!r && setenv(ENV_ALIAS, alias, 1) < 0)
		r = -errno;
	free(v);
	return r;
}

/* The value of the last "mtag:" option of a MALLOC_CONF value (options
 * are separated by ','), or NULL. */
static const char *last_mtag(const char *conf, size_t *len)
{
	const char *found = NULL;

	for (const char *s = conf; s && *s;) {
		size_t n = strcspn(s, ",");

		if (n > 5 && strncmp(s, "mtag:", 5) == 0) {
			found = s + 5;
			*len = n - 5;
		}
		s += n + (s[n] ? 1 : 0);
	}
	return found;
}

char *malloc_conf_heap_off(const char *old)
{
	const char *v;
	size_t vl = 0;

	if (!old || !*old)
		return xstrdup("mtag:false");
	v = last_mtag(old, &vl);
	if (v && vl == 5 && strncmp(v, "false", 5) == 0)
		return xstrdup(old);
	return xasprintf("%s%smtag:false", old, old[strlen(old) - 1] == ',' ? "" : ",");
}

int malloc_conf_apply(bool heap)
{
	char *v;
	int r = 0;

	if (heap)
		return 0;
	v = malloc_conf_heap_off(getenv("MALLOC_CONF"));
	if (setenv("MALLOC_CONF", v, 1) < 0)
		r = -errno;
	free(v);
	return r;
}
