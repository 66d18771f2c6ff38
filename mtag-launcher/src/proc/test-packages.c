/* test-packages.c -- the installed builds of libc6, libjemalloc2 and the
 * kernel (src/proc/packages.c) from crafted dpkg status files, and the
 * journal entry of "mtagctl check-packages" (mtagctl-packages.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "log.h"
#include "mtagctl.h"
#include "packages.h"
#include "unit.h"

#define LIBC6(arch, status, version)                                          \
	"Package: libc6\n"                                                    \
	"Status: " status "\n"                                                \
	"Priority: optional\n"                                                \
	"Architecture: " arch "\n"                                            \
	"Multi-Arch: same\n"                                                  \
	"Version: " version "\n"                                              \
	"Description: GNU C Library: Shared libraries\n"                      \
	" Contains the standard libraries.\n"                                 \
	" Version: 9.9-9+mtag9\n"                                             \
	"\n"

/* pkg_status_find() on a copy of TEXT of exactly its length (no NUL
 * after it: ASan sees a read past the end). */
static void find(const char *text, size_t len, const char *pkg, const char *arch, struct pkg_info *out)
{
	char *copy = malloc(len ? len : 1);

	if (!copy)
		exit(2);
	memcpy(copy, text, len);
	pkg_status_find(copy, len, pkg, arch, out);
	free(copy);
}

static void test_versions(void)
{
	CHECK(pkg_version_is_mtag("2.36-9+deb12u14+mtag1"));
	CHECK(pkg_version_is_mtag("5.3.0-1+deb12u0+mtag12"));
	CHECK(!pkg_version_is_mtag("2.36-9+deb12u15"));
	CHECK(!pkg_version_is_mtag("2.36-9+mtag"));
	CHECK(!pkg_version_is_mtag(""));
	CHECK(pkg_kernel_is_mtag("6.1.0-28-mtag"));
	CHECK(pkg_kernel_is_mtag("6.12.9-mtag-arm64"));
	CHECK(!pkg_kernel_is_mtag("6.1.0-28-arm64"));
	CHECK(!pkg_kernel_is_mtag("6.1.0-mtagged"));
}

static void test_status_file(void)
{
	const char *text =
		LIBC6("armhf", "install ok installed", "2.36-9+deb12u13")
		LIBC6("arm64", "deinstall ok config-files", "2.36-9+deb12u10")
		"Package: libjemalloc2\n"
		"Status: install ok installed\n"
		"Architecture: arm64\n"
		"Version: 5.3.0-1+deb12u0+mtag1\n"
		"\n"
		LIBC6("arm64", "install ok installed", "2.36-9+deb12u15");
	struct pkg_info pi;

	/* Debian's build, of the host's architecture (not armhf's, not the
	 * removed one's, not the Version: in the description). */
	find(text, strlen(text), "libc6", "arm64", &pi);
	CHECK(pi.build == PKG_DEBIAN);
	CHECK_STR(pi.version, "2.36-9+deb12u15");
	find(text, strlen(text), "libc6", "armhf", &pi);
	CHECK_STR(pi.version, "2.36-9+deb12u13");
	/* mtag's build; the last stanza without a final blank line. */
	find(text, strlen(text), "libjemalloc2", "arm64", &pi);
	CHECK(pi.build == PKG_MTAG);
	CHECK_STR(pi.version, "5.3.0-1+deb12u0+mtag1");
	find(text, strlen(text) - 1, "libc6", "arm64", &pi);
	CHECK_STR(pi.version, "2.36-9+deb12u15");
	/* Missing. */
	find(text, strlen(text), "libjemalloc2", "amd64", &pi);
	CHECK(pi.build == PKG_UNKNOWN && pi.version[0] == '\0');
	find(text, strlen(text), "libc6", "riscv64", &pi);
	CHECK(pi.build == PKG_UNKNOWN);
	find("", 0, "libc6", "arm64", &pi);
	CHECK(pi.build == PKG_UNKNOWN);
}

static void test_hostile(void)
{
	static const char esc[] =
		"Package: libc6\nStatus: install ok installed\nArchitecture: arm64\n"
		"Version: 2.36\033[2J-9\n\n";
	static const char nul[] =
		"Package: libc6\nStatus: install ok installed\nArchitecture: arm64\n"
		"Version: 2.36\0-9+mtag1\n\n";
	size_t big = 8u << 20;
	char *huge = malloc(big);
	struct pkg_info pi;

	/* Escapes and NUL bytes in a version: not a version. */
	find(esc, sizeof(esc) - 1, "libc6", "arm64", &pi);
	CHECK(pi.build == PKG_UNKNOWN);
	find(nul, sizeof(nul) - 1, "libc6", "arm64", &pi);
	CHECK(pi.build == PKG_UNKNOWN);
	/* A version longer than the buffer: not taken, not cut. */
	{
		char line[600];

		snprintf(line, sizeof(line),
			 "Package: libc6\nStatus: install ok installed\nArchitecture: arm64\nVersion: %0300d\n", 1);
		find(line, strlen(line), "libc6", "arm64", &pi);
		CHECK(pi.build == PKG_UNKNOWN);
	}
	/* 8 MB of one line of garbage, then the stanza: found, no overrun. */
	if (!huge)
		exit(2);
	memset(huge, 'x', big);
	{
		static const char tail[] = "\n\nPackage: libc6\nStatus: install ok installed\n"
					   "Architecture: arm64\nVersion: 2.36-9+deb12u14+mtag1";

		memcpy(huge + big - sizeof(tail) + 1, tail, sizeof(tail) - 1);
	}
	find(huge, big, "libc6", "arm64", &pi);
	CHECK(pi.build == PKG_MTAG);
	CHECK_STR(pi.version, "2.36-9+deb12u14+mtag1");
	/* Binary garbage. */
	for (size_t i = 0; i < big; i++)
		huge[i] = (char)(i * 2654435761u >> 13);
	find(huge, big, "libc6", "arm64", &pi);
	CHECK(pi.build == PKG_UNKNOWN);
	free(huge);
}

static void test_read_files(void)
{
	char dir[1024], path[1200];
	struct pkg_set set;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/packages", tmpdir());
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s/status", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "Package: libc6\nStatus: install ok installed\nArchitecture: %s\n"
		   "Version: 2.36-9+deb12u15\n", pkg_host_arch());
	fclose(f);
	snprintf(path, sizeof(path), "%s/sys/kernel", dir);
	mkdirs(path);
	snprintf(path, sizeof(path), "%s/sys/kernel/osrelease", dir);
	write_file(path, "6.1.0-28-mtag\n");
	pkg_set_read(dir, dir, &set);
	CHECK(set.libc6.build == PKG_DEBIAN);
	CHECK(set.jemalloc.build == PKG_UNKNOWN);
	CHECK(set.kernel.build == PKG_MTAG);
	CHECK_STR(set.kernel.version, "6.1.0-28-mtag");
	CHECK(pkg_set_any_debian(&set));
	/* No status file, no osrelease: nothing known. */
	snprintf(path, sizeof(path), "%s/none", dir);
	pkg_set_read(path, path, &set);
	CHECK(set.libc6.build == PKG_UNKNOWN && set.kernel.build == PKG_UNKNOWN);
	CHECK(!pkg_set_any_debian(&set));
	pkg_set_read(NULL, dir, &set);
	CHECK(set.libc6.build == PKG_UNKNOWN && set.kernel.build == PKG_MTAG);
	/* status on a recorded /proc reads no dpkg database unless told. */
	{
		struct ctl c = { .proc = dir };

		ctl_packages(&c, &set);
		CHECK(set.libc6.build == PKG_UNKNOWN && set.kernel.build == PKG_UNKNOWN);
		c.admindir = dir;
		ctl_packages(&c, &set);
		CHECK(set.libc6.build == PKG_DEBIAN && set.kernel.build == PKG_MTAG);
	}
}

static void test_entry(void)
{
	struct pkg_set set = {
		.libc6 = { PKG_DEBIAN, "2.36-9+deb12u15" },
		.jemalloc = { PKG_MTAG, "5.3.0-1+deb12u0+mtag1" },
		.kernel = { PKG_MTAG, "6.1.0-28-mtag" },
	};
	struct log_struct ls = { 0 };

	log_setup("mtagctl", LOG_STDERR, false);
	pkg_entry_build(&set, &ls);
	CHECK_STR(log_struct_get(&ls, "MESSAGE"),
		  "libc6 2.36-9+deb12u15 is Debian's build, not mtag's: the services that rely on it lose MTE protection (journalctl -x: what to do)");
	CHECK_STR(log_struct_get(&ls, "MESSAGE_ID"), MSGID_DEBIAN_BUILD);
	CHECK_STR(log_struct_get(&ls, "PRIORITY"), "4");
	CHECK_STR(log_struct_get(&ls, "MTAG_DEBIAN_BUILDS"), "libc6 2.36-9+deb12u15");
	CHECK_STR(log_struct_get(&ls, "MTAG_LIBJEMALLOC2"), "5.3.0-1+deb12u0+mtag1");
	CHECK_STR(log_struct_get(&ls, "MTAG_KERNEL"), "6.1.0-28-mtag");
	log_struct_free(&ls);
	set.jemalloc = (struct pkg_info){ PKG_DEBIAN, "5.3.0-1+deb12u1" };
	set.kernel = (struct pkg_info){ PKG_DEBIAN, "6.1.0-29-arm64" };
	pkg_entry_build(&set, &ls);
	CHECK_STR(log_struct_get(&ls, "MESSAGE"),
		  "libc6 2.36-9+deb12u15, libjemalloc2 5.3.0-1+deb12u1 and kernel 6.1.0-29-arm64 are Debian's builds, not mtag's: the services that rely on them lose MTE protection (journalctl -x: what to do)");
	log_struct_free(&ls);
}

void run_packages_tests(void)
{
	RUN(test_versions);
	RUN(test_status_file);
	RUN(test_hostile);
	RUN(test_read_files);
	RUN(test_entry);
}
