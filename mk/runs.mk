# Long runs: each drives the heavy builds (mk/heavy.mk) and the image, or a
# tool over the tree, and builds nothing of its own.  None is part of
# "make check"; the cheap parts of compat, reliability and ansible are
# suites (tests/ts/compat, tests/ts/reliability, tests/ts/ansible) in CHECK_SUITES.

.PHONY: compat reliability demo vm-boot ansible-lint jemalloc-check-full check-release

# --- compat -------------------------------------------------------------
# The compatibility run: common Debian server daemons under mtag (issue 11).
# See tests/ts/compat/run, tests/ts/compat/daemons.list, docs/compatibility.md.
#
# make compat
#   builds what the image needs (kernel, glibc, launcher .debs: cached),
#   an image with every daemon of tests/ts/compat/daemons.list (cached under
#   $(MTAG_CACHE)/image*/ like the VM suite's), boots it once, runs each
#   daemon under off and sync, writes the results to docs/compat/ and
#   regenerates docs/compatibility.md and the vendor defaults
#   (mtag-launcher/conf/policy.d/debian-daemons.conf) from them.  Prints its time.
# Suite "compat" (make check): the fast subset, in the VM suite's image, and
# the published table and vendor defaults checked against the results.

COMPAT_DEPS := kernel glibc jemalloc launcher-debs inject

compat:
	@s=$$(date +%s); for t in $(COMPAT_DEPS); do \
	  printf 'compat: make %s ... ' $$t; \
	  if $(MAKE) --no-print-directory $$t >$(BUILD)/compat-$$t.log 2>&1; then echo "ok"; \
	  else echo "failed (see $(BUILD)/compat-$$t.log)"; exit 1; fi; \
	done; \
	tests/ts/compat/run --full; rc=$$?; \
	echo "make compat: $$(( $$(date +%s) - s ))s"; exit $$rc

# --- reliability --------------------------------------------------------
# Reliability figures (issue 22): see docs/reliability.md, tests/ts/reliability/.
#
# make reliability   boots the image (with apache2-utils) and measures load
#                    with faults, fault bursts, a glob boot and policy
#                    rewrites; figures into docs/reliability/*.tsv; then
#                    tools/reliability-table writes docs/reliability.md
# (make fuzz-long, the other half of the figures, is in mk/tests.mk.)
# Suite "reliability" (make check): the cheap part, no VM (the table is what
# the recorded figures make, the counting and the burst accounting on the
# host, the generator on 1000 units).

RELIABILITY_DEPS := kernel glibc launcher-debs inject

reliability:
	@s=$$(date +%s); for t in $(RELIABILITY_DEPS); do \
	  printf 'reliability: make %s ... ' $$t; \
	  if $(MAKE) --no-print-directory $$t >$(BUILD)/reliability-$$t.log 2>&1; then echo "ok"; \
	  else echo "failed (see $(BUILD)/reliability-$$t.log)"; exit 1; fi; \
	done; \
	tests/ts/reliability/run --full; rc=$$?; \
	echo "make reliability: $$(( $$(date +%s) - s ))s"; exit $$rc

# --- demo and the VM by hand --------------------------------------------
# The demo (tools/demo) builds what is missing first (each of those is cached).
DEMO_DEPS := kernel glibc launcher-debs
demo:
	@mkdir -p $(BUILD); for t in $(DEMO_DEPS) image; do \
	  s=$$(date +%s); printf 'demo: make %s ... ' $$t; \
	  if $(MAKE) --no-print-directory $$t >$(BUILD)/demo-$$t.log 2>&1; then \
	    echo "ok ($$(( $$(date +%s) - s ))s)"; \
	  elif [ $$t = image ]; then echo "failed:"; tail -20 $(BUILD)/demo-$$t.log; exit 1; \
	  else echo "failed (see $(BUILD)/demo-$$t.log); going on with what build/ has"; fi; \
	done
	@tools/demo

# Boot the image for a person: root shell on the serial console.
vm-boot:
	tests/helpers/vm/boot --interactive

# --- ansible ------------------------------------------------------------
# The Ansible role (ansible/roles/mtag) and example playbook: suite
# "ansible" (tests/ts/ansible/run): ansible-lint (production profile),
# ansible-playbook --syntax-check, the role's apt step against local
# signed repositories, and the role run by ansible-playbook inside the
# booted image, as root and as an unprivileged user with become.
ansible-lint:
	cd ansible && ansible-lint --offline --profile production site.yml roles/mtag inventory

# --- jemalloc's full tests and the release check ------------------------
# All of jemalloc's tests (unit, integration; JEMALLOC_STRESS=1: stress),
# tagging off and on, under qemu-aarch64 (mk/heavy.mk builds jemalloc).
jemalloc-check-full: $(BUILD)/arm64/tests/mtagtest
	JEMALLOC_FULL=1 tests/ts/jemalloc/run

# The release image booted UEFI -> GRUB -> initramfs -> systemd (suite
# "release"; make release-image and the flavours are in mk/heavy.mk).
check-release:
	@FLAVOUR=$(or $(FLAVOUR),cloud-arm64) tests/run-suites release

# --- follow-debian --------------------------------------------------------
# make follow-debian SUITE=bookworm: rebuild what Debian updated (glibc,
# linux, jemalloc of the suite and its -security suite), test, publish with
# make repo (tools/follow-debian; units/build-host/ runs it daily).
.PHONY: follow-debian
follow-debian:
	@SUITE=$(or $(SUITE),bookworm) tools/follow-debian

# --- lifecycle ------------------------------------------------------------
# make lifecycle [SUITE=trixie]: suite "lifecycle" alone (make check runs it
# for both suites): install from the signed repository in a fresh guest,
# Debian's libc6 update, follow-debian's rebuild, launcher N -> N+1, purge
# (tests/ts/lifecycle/run, docs/repository.md).
.PHONY: lifecycle
lifecycle:
	@tests/run-suites lifecycle
