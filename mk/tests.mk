# What the test suites build and run: the list of suites, the unit-test
# binaries (ASan+UBSan), every libFuzzer target, the small test programs,
# the benchmarks.  The suites themselves are tests/ts/SUITE/run
# (tests/run-suites runs them); docs/testing.md says what each checks.

# Test suites run by "make check", in this order; each names tests/ts/NAME/run.
# CHECK_SUITES run for the host's Debian suite (bookworm: the host-only
# suites need it once); CHECK_SUITES_trixie run again for trixie, with its
# own builds in build/trixie/ (tests/run-suites trixie:NAME): what differs
# between the suites (the kernel series on 6.12, glibc 2.41, jemalloc
# 5.3.0-3, the launcher built in the trixie chroot, the booted trixie image
# with systemd 257).
CHECK_SUITES := lint launcher fuzz arm64 systemd debs kernel glibc jemalloc vm \
                faultd completion mtagctl compat reliability ansible repo lifecycle
CHECK_SUITES_trixie := kernel glibc jemalloc vm lifecycle

check:
	@SUITE=bookworm BUILD=$(BUILD_ROOT)/bookworm \
	  tests/run-suites $(CHECK_SUITES) $(addprefix trixie:,$(CHECK_SUITES_trixie))

# --- Unit tests (suites "launcher" and "mtagctl") -----------------------
# The unit tests are beside the library each tests
# (mtag-launcher/src/FOLDER/test-*.c); the harness (unit.c, unit.h), the
# two runners and the synthetic cores (testcore.c) are in tests/helpers/unit.
UNIT_DIR := tests/helpers/unit
UNIT_HDRS := $(wildcard $(UNIT_DIR)/*.h)

# build/asan/unit-tests: the policy, the unit files, the upgrade and the
# launcher without its main() (LAUNCHER_LIB_SRCS).
LAUNCHER_TESTS := $(addprefix $(SRC_DIR)/,policy/test-conffiles.c launcher/test-execdef.c \
                  proc/test-mte.c policy/test-policy.c shared/test-systemd-time.c \
                  launcher/test-tunables.c unit/test-unitfile.c upgrade/test-upgrade.c)
UNIT_TEST_SRCS := $(UNIT_DIR)/launcher-main.c $(LAUNCHER_TESTS) $(UNIT_DIR)/unit.c
$(BUILD)/asan/unit-tests: $(UNIT_TEST_SRCS) $(LAUNCHER_LIB_SRCS) $(SRC_HDRS) $(UNIT_HDRS)
	@mkdir -p $(@D)
	clang $(WARN_CFLAGS) $(SAN_CFLAGS) $(LAUNCHER_CPPFLAGS) -I$(UNIT_DIR) -o $@ $(UNIT_TEST_SRCS) $(LAUNCHER_LIB_SRCS) $(SYSTEMD_CFLAGS)

# build/asan/ctl-unit-tests: every other test-*.c: the fault readers
# (mtag-launcher/src/fault/: fault line, cause, /proc and cgroup readers,
# core files) and the shared base (JSON, escaping, Prometheus text, trust,
# ...).  The unit tests also judge verdicts (mtagctl-verdict.c, no I/O),
# which name the policy's modes, and render the status columns (table
# through libsmartcols, JSON; colours from the terminal code).
CTL_LIB_SRCS := $(SHARED_SRCS) $(PROC_SRCS) $(FAULT_SRCS)
CTL_TEST_LIB_SRCS := $(CTL_LIB_SRCS) $(POLICY_SRCS) $(SRC_DIR)/mtagctl/mtagctl-verdict.c \
                     $(SRC_DIR)/mtagctl/mtagctl-columns.c $(SRC_DIR)/mtagctl/mtagctl-pager.c \
                     $(SRC_DIR)/mtagctl/mtagctl-prom.c $(SRC_DIR)/mtagctl/mtagctl-bugcols.c \
                     $(SRC_DIR)/mtagctl/mtagctl-packages.c
CTL_CPPFLAGS := $(LAUNCHER_CPPFLAGS)

CTL_TESTS := $(filter-out $(LAUNCHER_TESTS),$(wildcard $(SRC_DIR)/*/test-*.c))
CTL_TEST_SRCS := $(UNIT_DIR)/ctl-main.c $(UNIT_DIR)/testcore.c $(CTL_TESTS) $(UNIT_DIR)/unit.c

.PHONY: ctl-unit-tests ctl-lib-arm64
ctl-unit-tests: $(BUILD)/asan/ctl-unit-tests
$(BUILD)/asan/ctl-unit-tests: $(CTL_TEST_SRCS) $(UNIT_HDRS) $(CTL_TEST_LIB_SRCS) $(SRC_HDRS)
	@mkdir -p $(@D)
	clang $(WARN_CFLAGS) $(SAN_CFLAGS) $(CTL_CPPFLAGS) $(SYSTEMD_CFLAGS) -I$(UNIT_DIR) -o $@ \
	  $(CTL_TEST_SRCS) $(CTL_TEST_LIB_SRCS) $(SYSTEMD_LIBS) -lsmartcols -ldw -lelf -lm -lzstd

# Compile-only check of the fault library with the arm64 cross compiler.
ctl-lib-arm64: $(BUILD)/arm64/ctl-lib.stamp
$(BUILD)/arm64/ctl-lib.stamp: $(CTL_LIB_SRCS) $(SRC_HDRS)
	@mkdir -p $(@D)/ctl-lib
	for f in $(CTL_LIB_SRCS); do \
	  $(ARM64_CC) $(WARN_CFLAGS) $(HOST_CFLAGS) $(CTL_CPPFLAGS) -c -o $(@D)/ctl-lib/$$(basename $$f .c).o $$f || exit 1; \
	done
	touch $@

# --- Fuzzers (suite "fuzz"; make fuzz-long) -----------------------------
# $(call fuzzer,NAME,LIB_SRCS,LIBS): build/fuzz/fuzz-NAME, a libFuzzer
# target (ASan+UBSan) from tests/ts/fuzz/fuzz-NAME.c and LIB_SRCS, and the
# phony target fuzz-NAME that builds it.
FUZZ_CC := clang $(WARN_CFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
define fuzzer_rule
.PHONY: fuzz-$(1)
fuzz-$(1): $(BUILD)/fuzz/fuzz-$(1)
$(BUILD)/fuzz/fuzz-$(1): tests/ts/fuzz/fuzz-$(1).c $(2) $(SRC_HDRS)
	@mkdir -p $$(@D)
	$(FUZZ_CC) $(LAUNCHER_CPPFLAGS) -o $$@ $$< $(2) $(3)
endef
fuzzer = $(eval $(call fuzzer_rule,$(1),$(2),$(3)))

# One parser of the launcher library each: the policy, the tunables, the
# ExecStart rewriting, the unit files.
$(foreach f,policy tunables execstart unitfile,$(call fuzzer,$(f),$(LAUNCHER_LIB_SRCS),$(SYSTEMD_CFLAGS)))
# The fault library: the fault line, the core-file reader and the
# classifier over a core's memory, mtag-faultd's state file as mtagctl
# reads it.
$(foreach f,faultline corefile faultcount,$(call fuzzer,$(f),$(CTL_LIB_SRCS),-ldw -lelf -lm -lzstd))

# Every fuzz target for FUZZ_SECONDS (default 600) each, ASan+UBSan; figures
# into docs/reliability/fuzz.tsv, what added coverage merged into the kept
# tests/ts/fuzz/corpus* (docs/reliability.md).
.PHONY: fuzz-long
FUZZ_SECONDS ?= 600
fuzz-long:
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/ts/fuzz/long

# --- Test programs ------------------------------------------------------
# tests/helpers/progs (mtebug and its bugs), dynamic and -static, for
# arm64; the fault injection library and its trigger (tests/helpers/inject/),
# which the image carries.  jemalloc's mtagtest is in mk/heavy.mk, beside the jemalloc it links.
.PHONY: test-progs-arm64 inject
test-progs-arm64: $(BUILD)/arm64/tests/mtebug

$(BUILD)/arm64/tests/%: tests/helpers/progs/%.c tests/helpers/progs/mtebug-bugs.h
	@mkdir -p $(@D)
	$(ARM64_CC) -std=c11 -O2 -g -Wall -Wextra -Werror -o $@ $<

$(BUILD)/arm64/tests/%-static: tests/helpers/progs/%.c tests/helpers/progs/mtebug-bugs.h
	@mkdir -p $(@D)
	$(ARM64_CC) -std=c11 -O2 -g -Wall -Wextra -Werror -static -o $@ $<

INJECT_SO := $(BUILD)/arm64/inject/libmtaginject.so
INJECT_TEST := $(BUILD)/arm64/inject/trigger-test
inject: $(INJECT_SO) $(INJECT_TEST)

$(INJECT_SO): tests/helpers/inject/mtaginject.c tests/helpers/progs/mtebug-bugs.h
	@mkdir -p $(@D)
	$(ARM64_CC) -std=gnu11 -shared -fPIC -O1 -g -Wall -Wextra -Werror -o $@ $< -ldl

$(INJECT_TEST): tests/helpers/inject/trigger-test.c
	@mkdir -p $(@D)
	$(ARM64_CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -o $@ $<

# --- Benchmarks (not part of make check) --------------------------------
.PHONY: bench-generator bench-jemalloc
bench: $(BUILD)/host/mtag-launcher
	tests/helpers/bench/run

# mtag-generator against the number of units, next to systemd's own
# generators (BENCH_GEN_BEFORE=PATH adds a build).
bench-generator: $(BUILD)/host/mtag-generator
	tests/helpers/bench/generator

# redis-server in the VM on stock libjemalloc2, on +mtag1 under off and
# under sync, and redis's resident memory (tools/bench-jemalloc); writes
# docs/jemalloc-bench.md from docs/jemalloc-bench/results.txt.
bench-jemalloc:
	tools/bench-jemalloc
