# Debian's glibc for arm64 with mtag's patches (patches/glibc/).
#
# make glibc [SUITE=bookworm|trixie]
#   SUITE (default bookworm for now): bookworm builds glibc 2.36 on the
#   host with patches/glibc/series; trixie builds glibc 2.41 inside the
#   trixie build chroot (tools/build-chroot, tools/in-chroot) with
#   patches/glibc/trixie/series, cached in $(MTAG_CACHE)/glibc-trixie/.
#   The products land in the same places ($(BUILD)/debs/,
#   $(BUILD)/glibc/sysroot/) whatever the suite.
#   tools/build-glibc unpacks the tree the glibc-source package ships
#   (/usr/src/glibc) into $(MTAG_CACHE)/glibc/tree, appends the patches
#   listed in patches/glibc/series to Debian's debian/patches/series,
#   sets the version to <glibc-source version>+mtag1 and cross-builds the
#   arm64 packages with dpkg-buildpackage -aarm64 -B (profiles cross,
#   nocheck, nobiarch, noudeb; locales-all is skipped in cross builds by
#   patches/glibc/debian/cross-skip-locales-all.diff).  Results are cached
#   in $(MTAG_CACHE)/glibc/<hash>/ (hash of the glibc-source version,
#   patches/glibc/ and tools/build-glibc); the built tree stays in the
#   cache so that a changed patch only rebuilds what it touches.  It leaves
#   libc6, libc6-dev, libc-bin and libc-dev-bin (arm64) in build/debs/ and
#   libc6 unpacked in build/glibc/sysroot/.  Each stage prints its time.
#
# What the patches do: the tunable glibc.memtag.enable, environment alias
# _MTAG_ENABLE, is accepted beside upstream's glibc.mem.tagging, with the
# same values (bit 0: tagged malloc memory, bit 1: precise faults, bit 2:
# the system's preferred fault mode; non-zero: tag checking on) and the
# same security level (ignored in set-user-ID programs).  Precedence:
#   1. glibc.mem.tagging, when set in GLIBC_TUNABLES (even to 0);
#   2. otherwise glibc.memtag.enable set in GLIBC_TUNABLES;
#   3. otherwise _MTAG_ENABLE;
#   4. otherwise 0 (off).
# The order of the variables in the environment does not matter.
#
# Suite "glibc" (tests/glibc/run): the build, the DEP-3 headers, mtebug
# under qemu-aarch64 with the rebuilt and with the stock libc, and glibc's
# own tst-memtag-enable* tests (tools/build-glibc test misc/tst-...).

GLIBC_SUITE = $(or $(SUITE),bookworm)

.PHONY: glibc
glibc:
	SUITE=$(GLIBC_SUITE) tools/build-glibc

CHECK_SUITES += glibc
