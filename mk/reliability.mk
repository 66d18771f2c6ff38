# Reliability figures (issue 22): see docs/reliability.md, tests/reliability/.
#
# make fuzz-long     every fuzz target for FUZZ_SECONDS (default 600) each,
#                    ASan+UBSan; figures into docs/reliability/fuzz.tsv, what
#                    added coverage merged into the kept tests/fuzz/corpus*
# make reliability   boots the image (with apache2-utils) and measures load
#                    with faults, fault bursts, a glob boot and policy
#                    rewrites; figures into docs/reliability/*.tsv; then
#                    tools/reliability-table writes docs/reliability.md
# Suite "reliability" (make check): the cheap part, no VM (the table is what
# the recorded figures make, the counting and the burst accounting on the
# host, the generator on 1000 units).

FUZZ_CC := clang $(WARN_CFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all

.PHONY: fuzz-tunables fuzz-execstart fuzz-unitfile fuzz-long reliability
fuzz-tunables: $(BUILD)/fuzz/fuzz-tunables
fuzz-execstart: $(BUILD)/fuzz/fuzz-execstart
fuzz-unitfile: $(BUILD)/fuzz/fuzz-unitfile

# One parser of the launcher library each.
$(BUILD)/fuzz/fuzz-tunables $(BUILD)/fuzz/fuzz-execstart $(BUILD)/fuzz/fuzz-unitfile: \
  $(BUILD)/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(LAUNCHER_LIB_SRCS) $(SRC_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(LAUNCHER_CPPFLAGS) -o $@ $< $(LAUNCHER_LIB_SRCS) $(SYSTEMD_CFLAGS)

FUZZ_SECONDS ?= 600
fuzz-long:
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/long

RELIABILITY_DEPS := $(if $(wildcard mk/kernel.mk),kernel) $(if $(wildcard mk/glibc.mk),glibc) launcher-debs inject

reliability:
	@s=$$(date +%s); for t in $(RELIABILITY_DEPS); do \
	  printf 'reliability: make %s ... ' $$t; \
	  if $(MAKE) --no-print-directory $$t >$(BUILD)/reliability-$$t.log 2>&1; then echo "ok"; \
	  else echo "failed (see $(BUILD)/reliability-$$t.log)"; exit 1; fi; \
	done; \
	tests/reliability/run --full; rc=$$?; \
	echo "make reliability: $$(( $$(date +%s) - s ))s"; exit $$rc

CHECK_SUITES += reliability
