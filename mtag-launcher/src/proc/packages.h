/* SPDX-License-Identifier: GPL-2.0-or-later */
/* packages.h -- which builds of the packages mtag's protection rests on
 * are installed: libc6 and libjemalloc2 (dpkg's status file, for the
 * host's architecture) and the running kernel (its release).  mtag's
 * builds carry "+mtagN" in their version (tools/lib/version.sh), its
 * kernels "-mtag" in their release; anything else is Debian's build, and
 * a Debian update that won over mtag's build takes the protection away
 * (issue 36). */
#ifndef MTAG_PACKAGES_H
#define MTAG_PACKAGES_H

#include <stdbool.h>
#include <stddef.h>

/* dpkg's status file is read up to this many bytes (a system with every
 * Debian package has about 30 MB of it... a typical one 2-5 MB). */
#define PKG_STATUS_MAX (64u << 20)

enum pkg_build {
	PKG_UNKNOWN = 0,   /* not installed, or the file could not be read */
	PKG_MTAG,          /* mtag's build: +mtagN (kernel: -mtag) */
	PKG_DEBIAN,        /* any other build: Debian's */
};

struct pkg_info {
	enum pkg_build build;
	char version[128];  /* "" when unknown */
};

struct pkg_set {
	struct pkg_info libc6, jemalloc, kernel;  /* kernel.version: uname -r */
};

/* The dpkg architecture of this program's build ("arm64", "amd64", ...). */
const char *pkg_host_arch(void);

/* Whether VERSION is one of mtag's builds: "+mtag" and a digit in it. */
bool pkg_version_is_mtag(const char *version);
/* Whether the kernel release RELEASE is mtag's: "-mtag" ending it or
 * followed by "-" (linux-image-*-mtag, -mtag-FLAVOUR). */
bool pkg_kernel_is_mtag(const char *release);

/* Of the dpkg status TEXT (LEN bytes, need not be NUL-terminated): the
 * installed ("Status: install ok installed") version of PACKAGE for
 * architecture ARCH (or "all") into OUT.  Hostile text is read as text:
 * long lines, NUL bytes, no final newline. */
void pkg_status_find(const char *text, size_t len, const char *package, const char *arch,
		     struct pkg_info *out);

/* Everything, from ADMINDIR/status (NULL: no package known; the caller
 * names dpkg's database, so that the programs that never read it do not
 * carry its path) and the
 * kernel's release: uname(2) for PROC NULL or "/proc", else (a recorded
 * tree) PROC/sys/kernel/osrelease. */
void pkg_set_read(const char *admindir, const char *proc, struct pkg_set *out);

/* Whether any of SET is Debian's build. */
bool pkg_set_any_debian(const struct pkg_set *set);

#endif
