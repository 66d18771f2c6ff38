# mtag top-level build.  Everything built lands under build/ (git-ignored);
# heavy builds (kernel, glibc, jemalloc, images) are cached under
# $(MTAG_CACHE) keyed by a hash of their inputs.  See README.md.
#
# The fragments under mk/ are cut by what they hold, not by the issue that
# added them, and each is always included:
#   mk/programs.mk  the four programs (mtag-launcher, mtag-generator,
#                   mtagctl, mtag-faultd): their sources, the compiler
#                   flags, ARM64_CC, and one template for the host, arm64
#                   and asan variants of each.
#   mk/tests.mk     what the suites build and run: CHECK_SUITES (the one
#                   list, in make check's order), the unit-test binaries,
#                   every fuzzer through one template, the small test
#                   programs (tests/helpers/progs, tests/helpers/inject, jemalloc's
#                   mtagtest), the benchmarks.
#   mk/packages.mk  the Debian packages: launcher .debs, and the
#                   distribution build and install that debian/rules calls
#                   (build-pkg, install: the one set of install rules).
#   mk/heavy.mk     the cached builds that take minutes to hours: kernel,
#                   glibc, jemalloc, the VM image, the release image.
#   mk/runs.mk      long runs that drive the heavy builds and the image and
#                   build nothing of their own: compat, reliability, demo,
#                   ansible-lint, the interactive VM, jemalloc's full test
#                   run, the release check.
# A target goes where a newcomer asking "what builds X?" would look: a
# program's variants in programs.mk, anything only a test needs in
# tests.mk, anything cached in heavy.mk; a run is apart from what it runs.
# The order of the includes matters only where a rule's prerequisites name
# another fragment's variable (make expands them as it reads): programs.mk
# first (source lists, flags), tests.mk before heavy.mk (the image carries
# tests.mk's INJECT_SO).

MTAG_CACHE ?= /var/cache/mtag
export MTAG_CACHE
# SUITE=bookworm|trixie: the Debian suite to build and test for (the
# default and the list are tools/lib/suite.sh's, which the scripts share).
# Each suite's products go to $(BUILD) = $(BUILD_ROOT)/$(SUITE)/ (kernel/,
# debs/, image/, test-logs/); BUILD=DIR puts one suite's elsewhere.
MTAG_SUITES := $(shell sed -n 's/^MTAG_SUITES="\(.*\)"$$/\1/p' tools/lib/suite.sh)
ifndef SUITE
SUITE := $(shell sed -n 's/^MTAG_DEFAULT_SUITE=//p' tools/lib/suite.sh)
endif
ifeq ($(filter $(SUITE),$(MTAG_SUITES)),)
$(error unknown SUITE '$(SUITE)' (one of: $(MTAG_SUITES)))
endif
BUILD_ROOT ?= $(CURDIR)/build
BUILD ?= $(BUILD_ROOT)/$(SUITE)
export SUITE BUILD_ROOT BUILD

.PHONY: all check bench debs clean distclean
all: launcher

include mk/programs.mk
include mk/tests.mk
include mk/packages.mk
include mk/heavy.mk
include mk/runs.mk

clean:
	rm -rf $(BUILD_ROOT)

# Also drops the caches of the heavy builds.
distclean: clean
	rm -rf $(MTAG_CACHE)
