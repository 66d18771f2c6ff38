# The compatibility run: common Debian server daemons under mtag (issue 11).
# See tests/compat/run, tests/compat/daemons.list, docs/compatibility.md.
#
# make compat
#   builds what the image needs (kernel, glibc, launcher .debs: cached),
#   an image with every daemon of tests/compat/daemons.list (cached under
#   $(MTAG_CACHE)/image*/ like the VM suite's), boots it once, runs each
#   daemon under off and sync, writes the results to docs/compat/ and
#   regenerates docs/compatibility.md and the vendor defaults
#   (mtag-launcher/conf/policy.d/debian-daemons.conf) from them.  Prints its time.
# Suite "compat" (make check): the fast subset, in the VM suite's image, and
# the published table and vendor defaults checked against the results.

COMPAT_DEPS := $(if $(wildcard mk/kernel.mk),kernel) $(if $(wildcard mk/glibc.mk),glibc) \
               $(if $(wildcard mk/jemalloc.mk),jemalloc) launcher-debs inject

.PHONY: compat
compat:
	@s=$$(date +%s); for t in $(COMPAT_DEPS); do \
	  printf 'compat: make %s ... ' $$t; \
	  if $(MAKE) --no-print-directory $$t >$(BUILD)/compat-$$t.log 2>&1; then echo "ok"; \
	  else echo "failed (see $(BUILD)/compat-$$t.log)"; exit 1; fi; \
	done; \
	tests/compat/run --full; rc=$$?; \
	echo "make compat: $$(( $$(date +%s) - s ))s"; exit $$rc

CHECK_SUITES += compat
