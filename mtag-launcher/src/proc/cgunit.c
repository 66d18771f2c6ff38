/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgunit.c -- the unit a cgroup path belongs to, by systemd's rules
 * (see cgunit.h). */
#include "cgunit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define UNIT_NAME_MAX 256

static const char *const unit_types[] = {
	"service", "mount", "swap", "socket", "target", "device",
	"automount", "timer", "path", "slice", "scope",
};

static bool valid_char(char c, bool at_ok)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == ':' || c == '-' || c == '_' || c == '.' || c == '\\' || (at_ok && c == '@');
}

static bool all_valid(const char *s, size_t n, bool at_ok)
{
	for (size_t i = 0; i < n; i++)
		if (!valid_char(s[i], at_ok))
			return false;
	return true;
}

bool unit_name_valid_n(const char *s, size_t n)
{
	const char *dot = NULL, *at;
	size_t pn, tn;
	bool type_ok = false;

	if (n == 0 || n >= UNIT_NAME_MAX)
		return false;
	for (size_t i = n; i-- > 0;)
		if (s[i] == '.') {
			dot = s + i;
			break;
		}
	if (!dot || dot == s)
		return false;
	tn = n - (size_t)(dot + 1 - s);
	for (size_t i = 0; i < sizeof(unit_types) / sizeof(unit_types[0]) && !type_ok; i++)
		type_ok = strlen(unit_types[i]) == tn && memcmp(unit_types[i], dot + 1, tn) == 0;
	if (!type_ok)
		return false;
	pn = (size_t)(dot - s);
	at = memchr(s, '@', pn);
	if (!at)
		return all_valid(s, pn, false);
	/* PREFIX@INSTANCE.TYPE: both non-empty (a template is not a unit
	 * that runs). */
	if (at == s || at + 1 == dot)
		return false;
	return all_valid(s, (size_t)(at - s), false) &&
	       all_valid(at + 1, (size_t)(dot - at - 1), true);
}

/* cg_unescape(): a component that would clash with the kernel's own names
 * is stored with a leading '_'. */
static void unescape(const char **c, size_t *n)
{
	if (*n && (*c)[0] == '_') {
		(*c)++;
		(*n)--;
	}
}

static bool ends_with(const char *c, size_t n, const char *sfx)
{
	size_t l = strlen(sfx);

	return n >= l && memcmp(c + n - l, sfx, l) == 0;
}

static bool is_slice(const char *c, size_t n)
{
	if (n < strlen("x.slice") || !ends_with(c, n, ".slice"))
		return false;
	unescape(&c, &n);
	return unit_name_valid_n(c, n);
}

static const char *skip_slices(const char *p)
{
	for (;;) {
		size_t n;

		p += strspn(p, "/");
		n = strcspn(p, "/");
		if (!is_slice(p, n))
			return p;
		p += n;
	}
}

/* The unit at the start of P (after the slices): BUF, or NULL. */
static char *decode_unit(const char *p, char *buf, size_t len)
{
	size_t n = strcspn(p, "/");

	if (n < 3)
		return NULL;
	unescape(&p, &n);
	if (!unit_name_valid_n(p, n) || ends_with(p, n, ".slice") || n >= len)
		return NULL;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}

char *cgroup_system_unit(const char *cgroup, char *buf, size_t len)
{
	if (!cgroup || !len)
		return NULL;
	return decode_unit(skip_slices(cgroup), buf, len);
}

static bool all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static bool all_alnum(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z')))
			return false;
	return true;
}

/* "user@UID.service" (never escaped: systemd does not unescape it). */
static const char *skip_user_manager(const char *p)
{
	size_t n = strcspn(p, "/");

	if (n <= strlen("user@x.service") - 1 || strncmp(p, "user@", 5) != 0 ||
	    !ends_with(p, n, ".service") || !all_digits(p + 5, n - 5 - 8) || n - 5 - 8 > 10 ||
	    strtoull(p + 5, NULL, 10) >= UINT32_MAX)
		return NULL;
	p += n;
	return p + strspn(p, "/");
}

/* "session-ID.scope", ID alphanumeric. */
static const char *skip_session(const char *p)
{
	size_t n = strcspn(p, "/");

	if (n < strlen("session-x.scope") || strncmp(p, "session-", 8) != 0 ||
	    !ends_with(p, n, ".scope") || !all_alnum(p + 8, n - 8 - 6))
		return NULL;
	p += n;
	return p + strspn(p, "/");
}

char *cgroup_user_unit(const char *cgroup, char *buf, size_t len)
{
	const char *e, *t;

	if (!cgroup || !len)
		return NULL;
	e = skip_slices(cgroup);
	t = skip_user_manager(e);
	if (!t)
		t = skip_session(e);
	if (!t)
		return NULL;
	return decode_unit(skip_slices(t), buf, len);
}
