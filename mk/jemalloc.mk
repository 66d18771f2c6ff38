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
# Suite "jemalloc" (tests/jemalloc/run): the build, the DEP-3 headers,
# mtagtest (tests/jemalloc/mtagtest.c, the bugs and the API run) and a
# bounded part of jemalloc's own test suite, each with tagging off and on,
# under qemu-aarch64 -cpu max.  make jemalloc-check-full runs all of
# jemalloc's tests (unit, integration; JEMALLOC_STRESS=1: stress) in both modes.
#
# make bench-jemalloc (tools/bench-jemalloc): redis-benchmark in the VM,
# stock libjemalloc2 against +mtag1 under off and sync, and redis's
# resident memory; docs/jemalloc-bench.md.

JEMALLOC_ROOT := $(BUILD)/jemalloc/root

.PHONY: jemalloc jemalloc-check-full bench-jemalloc
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

$(BUILD)/arm64/tests/mtagtest: tests/jemalloc/mtagtest.c $(JEMALLOC_ROOT)/stamp
	mkdir -p $(dir $@)
	$(ARM64_CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror \
		-I$(JEMALLOC_ROOT)/usr/include -o $@ $< \
		-L$(JEMALLOC_ROOT)/usr/lib/aarch64-linux-gnu -ljemalloc

jemalloc-check-full: $(BUILD)/arm64/tests/mtagtest
	JEMALLOC_FULL=1 tests/jemalloc/run

# The benchmark (not part of make check): redis-server in the VM on stock
# libjemalloc2, on +mtag1 under off and under sync; writes
# docs/jemalloc-bench.md from docs/jemalloc-bench/results.txt.
bench-jemalloc:
	tools/bench-jemalloc

CHECK_SUITES += jemalloc
