/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mtagctl-packages.c -- which builds of libc6, libjemalloc2 and the
 * kernel are installed (packages.c), for "status" and "check-packages":
 * one journal entry at boot (mtag-packages.service) when a Debian update
 * won over mtag's build and took protection away (issue 36). */
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "log.h"
#include "mtagctl.h"
#include "packages.h"

#define DPKG_ADMINDIR "/var/lib/dpkg"

void ctl_packages(const struct ctl *c, struct pkg_set *out)
{
	bool recorded = c->proc && strcmp(c->proc, "/proc") != 0;

	if (recorded && !c->admindir) {
		memset(out, 0, sizeof(*out));
		return;
	}
	pkg_set_read(c->admindir ? c->admindir : DPKG_ADMINDIR, c->proc, out);
}

/* "libc6 V, libjemalloc2 V and kernel R" of SET's Debian builds. */
static void debian_list(const struct pkg_set *set, char *buf, size_t len)
{
	const struct { const char *name; const struct pkg_info *pi; } all[] = {
		{ "libc6", &set->libc6 },
		{ "libjemalloc2", &set->jemalloc },
		{ "kernel", &set->kernel },
	};
	size_t n = 0, k = 0;

	for (size_t i = 0; i < 3; i++)
		n += all[i].pi->build == PKG_DEBIAN;
	buf[0] = '\0';
	for (size_t i = 0; i < 3; i++) {
		if (all[i].pi->build != PKG_DEBIAN)
			continue;
		k++;
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s %s",
			 k == 1 ? "" : k == n ? " and " : ", ", all[i].name, all[i].pi->version);
	}
}

void pkg_entry_build(const struct pkg_set *set, struct log_struct *ls)
{
	char list[512];
	bool many;

	debian_list(set, list, sizeof(list));
	many = strchr(list, ' ') != strrchr(list, ' ');
	log_struct_begin(ls, LOG_WARNING, MSGID_DEBIAN_BUILD,
			 "%s %s Debian's build%s, not mtag's: the services that rely on %s lose MTE protection (journalctl -x: what to do)",
			 list, many ? "are" : "is", many ? "s" : "", many ? "them" : "it");
	log_struct_add(ls, "MTAG_DEBIAN_BUILDS", "%s", list);
	if (set->libc6.build != PKG_UNKNOWN)
		log_struct_add(ls, "MTAG_LIBC6", "%s", set->libc6.version);
	if (set->jemalloc.build != PKG_UNKNOWN)
		log_struct_add(ls, "MTAG_LIBJEMALLOC2", "%s", set->jemalloc.version);
	if (set->kernel.build != PKG_UNKNOWN)
		log_struct_add(ls, "MTAG_KERNEL", "%s", set->kernel.version);
}

int verb_check_packages(const struct ctl *c)
{
	struct pkg_set set;
	struct log_struct ls = { 0 };

	/* Under mtag-packages.service: the journal. */
	log_setup("mtagctl", LOG_AUTO, false);
	pkg_set_read(c->admindir ? c->admindir : DPKG_ADMINDIR, c->proc, &set);
	if (!pkg_set_any_debian(&set))
		return EXIT_SUCCESS;
	pkg_entry_build(&set, &ls);
	log_struct(&ls);
	log_struct_free(&ls);
	/* A report, not a failure: the unit does not fail over it. */
	return EXIT_SUCCESS;
}
