/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unitname.c -- systemd unit names: their kind, an instance's template
 * (see unitname.h). */
#include "unitname.h"

#include <string.h>

#include "util.h"

static const char *const unit_types[] = {
	"service", "mount", "swap", "socket", "target", "device",
	"automount", "timer", "path", "slice", "scope",
};

bool is_unit_type(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(unit_types) / sizeof(unit_types[0]); i++)
		if (strlen(unit_types[i]) == n && memcmp(unit_types[i], s, n) == 0)
			return true;
	return false;
}

enum unit_name_kind unit_name_kind(const char *n)
{
	const char *e = strrchr(n, '.'), *at = NULL;

	if (strlen(n) >= 256 || !e || e == n || !is_unit_type(e + 1, strlen(e + 1)))
		return UNIT_NAME_INVALID;
	for (const char *i = n; i < e; i++) {
		if (*i == '@' && !at)
			at = i;
		if (!strchr("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ:-_.\\@", *i))
			return UNIT_NAME_INVALID;
	}
	if (at == n)
		return UNIT_NAME_INVALID;
	if (!at)
		return UNIT_NAME_PLAIN;
	return e == at + 1 ? UNIT_NAME_TEMPLATE : UNIT_NAME_INSTANCE;
}

char *unit_name_template(const char *name)
{
	if (unit_name_kind(name) != UNIT_NAME_INSTANCE)
		return NULL;
	return xasprintf("%.*s%s", (int)(strchr(name, '@') - name + 1), name, strrchr(name, '.'));
}
