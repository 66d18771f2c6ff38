/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trust.c -- which journal entries mtagctl believes (see trust.h). */
#include "trust.h"

#include "faultfields.h"
#include "util.h"

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

const char *jentry_field(void *ctx, const char *name)
{
	struct jentry *c = ctx;
	char *b = c->buf[c->next++ % 4];
	size_t nl = strlen(name), len;
	const void *d;

	if (c->get_data(c->j, name, &d, &len) < 0 || len <= nl || ((const char *)d)[nl] != '=')
		return NULL;
	len -= nl + 1;
	if (len >= sizeof(c->buf[0]))
		len = sizeof(c->buf[0]) - 1;
	if (memchr((const char *)d + nl + 1, '\0', len))
		return NULL;
	memcpy(b, (const char *)d + nl + 1, len);
	b[len] = '\0';
	return b;
}

bool jwriter_names_faultd(jfield_fn get, void *ctx)
{
	const char *exe = get(ctx, "_EXE");

	return field_is(get, ctx, "_COMM", "mtag-faultd") ||
	       (exe && str_ends_with(exe, "/mtag-faultd")) ||
	       field_is(get, ctx, "_SYSTEMD_UNIT", "mtag-faultd.service");
}

static void push(char ***v, size_t *n, size_t *cap, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i], s) == 0)
			return;
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		*v = xrealloc(*v, *cap * sizeof(**v));
	}
	(*v)[(*n)++] = xstrdup(s);
}

void upgrade_tally_add(struct upgrade_tally *t, jfield_fn get, void *ctx, const char *unit)
{
	const char *id = get(ctx, "MESSAGE_ID"), *cur;

	if (!id || !unit)
		return;
	if (strcmp(id, MSGID_FAULT) == 0) {
		if (!jwriter_trusted(JW_FAULTD, get, ctx, NULL, NULL) ||
		    !field_is(get, ctx, "MTAG_UNIT", unit) || !field_is(get, ctx, "MTAG_UPGRADE_NEXT", "yes"))
			return;
		cur = get(ctx, "MTAG_KERNEL_CURSOR");
		if (cur && *cur)
			push(&t->faultd, &t->nf, &t->capf, cur);
	} else if (strcmp(id, MSGID_UPGRADED_START) == 0) {
		if (!jwriter_trusted(JW_LAUNCHER, get, ctx, unit, NULL))
			return;
		cur = get(ctx, "MTAG_UPGRADE_FAULT_CURSOR");
		if (cur && *cur)
			push(&t->launcher, &t->nl, &t->capl, cur);
	}
}

unsigned upgrade_tally_count(const struct upgrade_tally *t)
{
	unsigned n = 0;

	for (size_t i = 0; i < t->nf; i++)
		for (size_t k = 0; k < t->nl; k++)
			if (strcmp(t->faultd[i], t->launcher[k]) == 0) {
				n++;
				break;
			}
	return n;
}

void upgrade_tally_free(struct upgrade_tally *t)
{
	for (size_t i = 0; i < t->nf; i++)
		free(t->faultd[i]);
	for (size_t i = 0; i < t->nl; i++)
		free(t->launcher[i]);
	free(t->faultd);
	free(t->launcher);
	memset(t, 0, sizeof(*t));
}
