/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trust.c -- which journal entries mtagctl believes (see trust.h). */
#include "trust.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct writer_rule {
	const char *comm;     /* _COMM, when present; NULL: not checked */
	bool root;            /* _UID=0 */
	const char *user;     /* or this system user's uid */
};

static const struct writer_rule rules[] = {
	[JW_FAULTD] = { "mtag-faultd", true, NULL },
	/* systemd-coredump drops to its own user before it writes. */
	[JW_COREDUMP] = { "systemd-coredum", true, "systemd-coredump" },
	/* The launcher execs the service right after it logs: journald may
	 * read the service's comm, which the service can set anyway. */
	[JW_LAUNCHER] = { NULL, false, NULL },
};

static bool field_is(jfield_fn get, void *ctx, const char *name, const char *want)
{
	const char *v = get(ctx, name);

	return v && strcmp(v, want) == 0;
}

/* Whether UID (text) is system user USER's. */
static bool uid_is_user(const char *uid, const char *user)
{
	struct passwd *pw;
	char want[32];

	if (!uid || !user || !(pw = getpwnam(user)) || pw->pw_uid == 0)
		return false;
	snprintf(want, sizeof(want), "%u", (unsigned)pw->pw_uid);
	return strcmp(uid, want) == 0;
}

bool jwriter_trusted(enum jwriter w, jfield_fn get, void *ctx, const char *unit, const char **why)
{
	const struct writer_rule *r = &rules[w];
	const char *comm, *dummy;

	if (!why)
		why = &dummy;
	if (!field_is(get, ctx, "_TRANSPORT", "journal")) {
		*why = "not written through the journal's native protocol";
		return false;
	}
	if (r->root && !field_is(get, ctx, "_UID", "0") && !uid_is_user(get(ctx, "_UID"), r->user)) {
		*why = "not written by root";
		return false;
	}
	comm = get(ctx, "_COMM");
	if (r->comm && comm && strcmp(comm, r->comm) != 0) {
		*why = "written by another program";
		return false;
	}
	if (w == JW_LAUNCHER && (!unit || !field_is(get, ctx, "_SYSTEMD_UNIT", unit))) {
		*why = "not written from the unit's own cgroup";
		return false;
	}
	return true;
}
