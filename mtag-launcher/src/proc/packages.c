/* SPDX-License-Identifier: GPL-2.0-or-later */
/* packages.c -- the installed builds of libc6, libjemalloc2 and the
 * kernel (see packages.h). */
#include "packages.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>

#include "fileio.h"

const char *pkg_host_arch(void)
{
#if defined(__aarch64__)
	return "arm64";
#elif defined(__x86_64__)
	return "amd64";
#elif defined(__i386__)
	return "i386";
#elif defined(__arm__)
	return "armhf";
#elif defined(__riscv) && __riscv_xlen == 64
	return "riscv64";
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
	return "ppc64el";
#elif defined(__s390x__)
	return "s390x";
#else
	return "unknown";
#endif
}

bool pkg_version_is_mtag(const char *version)
{
	for (const char *p = version; p && (p = strstr(p, "+mtag")); p++)
		if (isdigit((unsigned char)p[5]))
			return true;
	return false;
}

bool pkg_kernel_is_mtag(const char *release)
{
	for (const char *p = release; p && (p = strstr(p, "-mtag")); p++)
		if (p[5] == '\0' || p[5] == '-' || p[5] == '\n')
			return true;
	return false;
}

/* The value of field NAME (with its colon) if LINE (LEN bytes) is it,
 * with its length in *VLEN, else NULL. */
static const char *field(const char *line, size_t len, const char *name, size_t *vlen)
{
	size_t n = strlen(name);
	const char *v, *end = line + len;

	if (len < n || strncasecmp(line, name, n) != 0)
		return NULL;
	for (v = line + n; v < end && (*v == ' ' || *v == '\t'); v++)
		;
	while (end > v && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	*vlen = (size_t)(end - v);
	return v;
}

/* Whether V (VLEN bytes) is a plain word: printable ASCII, no space (a
 * version or release that a hostile file could not make into escapes). */
static bool plain(const char *v, size_t vlen)
{
	if (vlen == 0)
		return false;
	for (size_t i = 0; i < vlen; i++)
		if (v[i] <= ' ' || v[i] > '~')
			return false;
	return true;
}

static bool eq(const char *v, size_t vlen, const char *s)
{
	return v && vlen == strlen(s) && memcmp(v, s, vlen) == 0;
}

void pkg_status_find(const char *text, size_t len, const char *package, const char *arch,
		     struct pkg_info *out)
{
	const char *p = text, *end = text + len;
	/* The stanza being read. */
	bool is_pkg = false, installed = false, arch_ok = false;
	const char *ver = NULL;
	size_t verlen = 0;

	memset(out, 0, sizeof(*out));
	for (;;) {
		const char *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
		const char *le = nl ? nl : end;
		size_t ll = (size_t)(le - p);
		const char *v;
		size_t vl;

		if (p >= end || ll == 0 || (ll == 1 && *p == '\r')) {
			/* The end of a stanza. */
			if (is_pkg && installed && arch_ok && ver && verlen > 0 &&
			    verlen < sizeof(out->version) && plain(ver, verlen)) {
				memcpy(out->version, ver, verlen);
				out->version[verlen] = '\0';
				out->build = pkg_version_is_mtag(out->version) ? PKG_MTAG : PKG_DEBIAN;
				return;
			}
			is_pkg = installed = arch_ok = false;
			ver = NULL;
			verlen = 0;
			if (p >= end)
				return;
		} else if (*p == ' ' || *p == '\t') {
			/* A continuation line (Description:, Conffiles:). */
		} else if ((v = field(p, ll, "Package:", &vl))) {
			is_pkg = eq(v, vl, package);
		} else if ((v = field(p, ll, "Status:", &vl))) {
			installed = vl >= 9 && memcmp(v + vl - 9, "installed", 9) == 0 &&
				    (vl == 9 || v[vl - 10] == ' ') &&
				    !(vl >= 13 && memcmp(v + vl - 13, "not-installed", 13) == 0);
		} else if ((v = field(p, ll, "Architecture:", &vl))) {
			arch_ok = eq(v, vl, arch) || eq(v, vl, "all");
		} else if ((v = field(p, ll, "Version:", &vl))) {
			ver = v;
			verlen = vl;
		}
		p = nl ? nl + 1 : end;
	}
}

void pkg_set_read(const char *admindir, const char *proc, struct pkg_set *out)
{
	char path[4096];
	char *text, *rel;
	size_t len = 0;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "%s/status", admindir ? admindir : "");
	text = admindir ? read_file_head(path, PKG_STATUS_MAX, &len) : NULL;
	if (text) {
		pkg_status_find(text, len, "libc6", pkg_host_arch(), &out->libc6);
		pkg_status_find(text, len, "libjemalloc2", pkg_host_arch(), &out->jemalloc);
		free(text);
	}
	if (!proc || strcmp(proc, "/proc") == 0) {
		/* uname(2): /proc/sys may be hidden (ProcSubset=pid). */
		struct utsname u;

		rel = uname(&u) == 0 ? strdup(u.release) : NULL;
	} else {
		snprintf(path, sizeof(path), "%s/sys/kernel/osrelease", proc);
		rel = read_file_head(path, sizeof(out->kernel.version) - 1, &len);
	}
	if (rel) {
		rel[strcspn(rel, "\n")] = '\0';
		if (plain(rel, strlen(rel))) {
			snprintf(out->kernel.version, sizeof(out->kernel.version), "%s", rel);
			out->kernel.build = pkg_kernel_is_mtag(rel) ? PKG_MTAG : PKG_DEBIAN;
		}
		free(rel);
	}
}

bool pkg_set_any_debian(const struct pkg_set *set)
{
	return set->libc6.build == PKG_DEBIAN || set->jemalloc.build == PKG_DEBIAN ||
	       set->kernel.build == PKG_DEBIAN;
}
