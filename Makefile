# mtag top-level build.  Everything built lands under build/ (git-ignored);
# heavy builds (kernel, glibc, image) are cached under $(MTAG_CACHE) keyed by
# a hash of their inputs.  See README.md.

MTAG_CACHE ?= /var/cache/mtag
export MTAG_CACHE
BUILD := $(CURDIR)/build
export BUILD

# Test suites run by "make check", in order; each names tests/NAME/run.
# The mk/*.mk fragments append theirs.
CHECK_SUITES := lint launcher fuzz arm64 systemd debs

.PHONY: all check bench debs clean distclean
all: launcher

include mk/launcher.mk
-include mk/kernel.mk
-include mk/glibc.mk
-include mk/jemalloc.mk
-include mk/image.mk
-include mk/release.mk
# mtagctl and mtag-faultd (mtag-launcher/src/mtagctl/, src/faultd/), their tests.
-include mk/mtagctl.mk
-include mk/faultd.mk
-include mk/ctl-tests.mk
# The compatibility run of Debian daemons (make compat, suite compat).
-include mk/compat.mk
# Reliability figures: make reliability, make fuzz-long (issue 22).
-include mk/reliability.mk
# The apt repository and following Debian: make repo, make follow-debian (issue 36).
-include mk/repo.mk

check:
	@tests/run-suites $(CHECK_SUITES)

clean:
	rm -rf $(BUILD)

# Also drops the caches of the heavy builds.
distclean: clean
	rm -rf $(MTAG_CACHE)
