# The heavy builds: each takes minutes to hours cold and is cached under
# $(MTAG_CACHE) by a hash of its inputs, so a second run costs seconds.
#   kernel          the patched arm64 kernel (and the real-hardware flavours)
#   glibc           Debian's glibc with mtag's patches
#   jemalloc        Debian's jemalloc with mtag's patches
#   image           the arm64 VM image the VM suites boot
#   release-image   the dpkg-installed disk image for real machines
# The runs that drive them (compat, reliability, demo, the release check,
# jemalloc's full tests) are in mk/runs.mk.

# --- kernel -------------------------------------------------------------
# The patched arm64 kernel: build/kernel/Image and build/debs/linux-image-*-mtag*.
# tools/build-kernel unpacks linux-source-6.1, applies patches/linux/series,
# merges patches/linux/mtag-virt.config onto allnoconfig and builds with
# ccache; results are cached in $(MTAG_CACHE)/kernel/<hash of the inputs>/.
# FLAVOUR=cloud-arm64 or arm64: Debian's configuration of that name with
# patches/linux/mtag-debian.config, for real machines (UEFI, GRUB,
# initramfs, modules): build/kernel-FLAVOUR/ (see release-image below).
# SUITE=trixie: linux-source-6.12 and patches/linux/trixie/series, cached
# in $(MTAG_CACHE)/kernel-trixie/; the products land in the same places.
# Default (SUITE unset or empty): bookworm.

.PHONY: kernel kernel-force
kernel:
	@SUITE=$(SUITE) tools/build-kernel

# Rebuild even if the result cache has these inputs (still incremental).
kernel-force:
	@SUITE=$(SUITE) KERNEL_FORCE=1 tools/build-kernel

# --- glibc --------------------------------------------------------------
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
# Suite "glibc" (tests/ts/glibc/run): the build, the DEP-3 headers, mtebug
# under qemu-aarch64 with the rebuilt and with the stock libc, and glibc's
# own tst-memtag-enable* tests (tools/build-glibc test misc/tst-...).

GLIBC_SUITE = $(or $(SUITE),bookworm)

.PHONY: glibc
glibc:
	SUITE=$(GLIBC_SUITE) tools/build-glibc

# --- jemalloc -----------------------------------------------------------
# Debian's jemalloc for arm64 with mtag's patches (patches/jemalloc/).
#
# make jemalloc [SUITE=bookworm|trixie]
#   SUITE (default bookworm for now): bookworm builds Debian's 5.3.0-1 on
#   the host; trixie builds 5.3.0-3 (same five patches) inside the trixie
#   build chroot, cached in $(MTAG_CACHE)/jemalloc-trixie/ (the archive has
#   no .dsc for it: tools/build-jemalloc checks the tarballs against the
#   Sources index and unpacks them without it).
#   tools/build-jemalloc fetches Debian's jemalloc source package
#   (apt-get source, into $(MTAG_CACHE)/jemalloc/src), appends the patches
#   listed in patches/jemalloc/series to Debian's series, sets the version
#   to 5.3.0-1+mtag1, cross-builds the arm64 packages with
#   dpkg-buildpackage -aarm64 -B and jemalloc's own test programs (make
#   tests) in the same tree.  Cached in $(MTAG_CACHE)/jemalloc/<hash>/
#   (hash of the source version, patches/jemalloc/ and the script).  It
#   leaves libjemalloc2 and libjemalloc-dev (arm64) in build/debs/.
#
# What the patches do: when the process runs with MTE tag checking on at
# jemalloc's initialisation (and MALLOC_CONF has no mtag:false), memory is
# mapped PROT_MTE and every object gets a random tag unlike its
# neighbours'; freed memory is retagged at once.  See the patch headers.
#
# Suite "jemalloc" (tests/ts/jemalloc/run): the build, the DEP-3 headers,
# mtagtest (tests/ts/jemalloc/mtagtest.c, the bugs and the API run) and a
# bounded part of jemalloc's own test suite, each with tagging off and on,
# under qemu-aarch64 -cpu max.  make jemalloc-check-full runs all of
# jemalloc's tests (unit, integration; JEMALLOC_STRESS=1: stress) in both
# modes (mk/runs.mk).  make bench-jemalloc (mk/tests.mk): redis-benchmark in
# the VM, stock libjemalloc2 against +mtag1.

JEMALLOC_ROOT := $(BUILD)/jemalloc/root

.PHONY: jemalloc
JEMALLOC_SUITE = $(or $(SUITE),bookworm)

jemalloc:
	SUITE=$(JEMALLOC_SUITE) tools/build-jemalloc

# The built packages unpacked: headers and library for mtagtest.
$(JEMALLOC_ROOT)/stamp: $(BUILD)/jemalloc/inputs-hash
	rm -rf $(JEMALLOC_ROOT)
	mkdir -p $(JEMALLOC_ROOT)
	for d in $(BUILD)/debs/libjemalloc2_*+mtag1_arm64.deb $(BUILD)/debs/libjemalloc-dev_*+mtag1_arm64.deb; do \
		dpkg-deb -x $$d $(JEMALLOC_ROOT) || exit 1; done
	touch $@

$(BUILD)/jemalloc/inputs-hash:
	SUITE=$(JEMALLOC_SUITE) tools/build-jemalloc

# mtagtest (tests/ts/jemalloc/mtagtest.c), the suite's test program, linked
# against the built jemalloc.
$(BUILD)/arm64/tests/mtagtest: tests/ts/jemalloc/mtagtest.c $(JEMALLOC_ROOT)/stamp
	mkdir -p $(dir $@)
	$(ARM64_CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror \
		-I$(JEMALLOC_ROOT)/usr/include -o $@ $< \
		-L$(JEMALLOC_ROOT)/usr/lib/aarch64-linux-gnu -ljemalloc

# --- image --------------------------------------------------------------
# The Debian 12 arm64 disk image (cached by a hash of its inputs), from
# whatever mtag .debs build/debs/ holds, with the fault injection library
# (mk/tests.mk).  EXTRA_PACKAGES="pkg ..." adds Debian packages.  See
# tools/build-image; the VM suite is tests/ts/vm/run, its boot and guest side tests/helpers/vm/.
.PHONY: image
image: $(INJECT_SO) $(BUILD)/arm64/tests/mtebug
	tools/build-image

# --- release image ------------------------------------------------------
# The real-hardware kernel flavours' disk image (not part of "make check":
# the flavour takes about an hour to build cold on 2 cores); its release
# test, make check-release, is in mk/runs.mk.
#   make kernel FLAVOUR=cloud-arm64     build/kernel-cloud-arm64/*.deb
#   make release-image                  build/release/disk.img (dpkg-installed)
#   make check-release                  UEFI -> GRUB -> initramfs -> systemd boot
# FLAVOUR defaults to cloud-arm64 here (arm64: Debian's full configuration).
# sh tools/install-deps release first.

.PHONY: release-image
release-image:
	@FLAVOUR=$(or $(FLAVOUR),cloud-arm64) tools/build-release-image
