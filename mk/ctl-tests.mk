# The fault readers (mtag-launcher/src/fault/: fault line, cause, /proc and
# cgroup readers, core files) and the shared base (JSON, escaping,
# Prometheus text, trust, ...), and their tests: unit tests with ASan+UBSan
# (suite "mtagctl") and libFuzzer targets on the fault-line parser, the
# classifier and the core reader (suite "fuzz").

CTL_LIB_SRCS := $(SHARED_SRCS) $(PROC_SRCS) $(FAULT_SRCS)
# The unit tests also judge verdicts (mtagctl-verdict.c, no I/O), which
# name the policy's modes, and render the status columns (table through
# libsmartcols, JSON; colours from the terminal code).
CTL_TEST_LIB_SRCS := $(CTL_LIB_SRCS) $(POLICY_SRCS) $(SRC_DIR)/mtagctl/mtagctl-verdict.c \
                     $(SRC_DIR)/mtagctl/mtagctl-columns.c $(SRC_DIR)/mtagctl/mtagctl-pager.c \
                     $(SRC_DIR)/mtagctl/mtagctl-prom.c $(SRC_DIR)/mtagctl/mtagctl-bugcols.c
CTL_CPPFLAGS := $(LAUNCHER_CPPFLAGS)

CTL_TEST_DIR := tests/mtagctl
CTL_TEST_SRCS := $(CTL_TEST_DIR)/unit-main.c $(CTL_TEST_DIR)/testcore.c $(wildcard $(CTL_TEST_DIR)/test-*.c) tests/lib/unit.c
CTL_TEST_HDRS := $(wildcard $(CTL_TEST_DIR)/*.h) tests/lib/unit.h

.PHONY: ctl-unit-tests fuzz-faultline fuzz-corefile fuzz-faultcount ctl-lib-arm64
ctl-unit-tests: $(BUILD)/asan/ctl-unit-tests
fuzz-faultline: $(BUILD)/fuzz/fuzz-faultline
fuzz-corefile: $(BUILD)/fuzz/fuzz-corefile
fuzz-faultcount: $(BUILD)/fuzz/fuzz-faultcount
# Compile-only check of the library with the arm64 cross compiler.
ctl-lib-arm64: $(BUILD)/arm64/ctl-lib.stamp

$(BUILD)/asan/ctl-unit-tests: $(CTL_TEST_SRCS) $(CTL_TEST_HDRS) $(CTL_TEST_LIB_SRCS) $(SRC_HDRS)
	@mkdir -p $(@D)
	clang $(WARN_CFLAGS) $(SAN_CFLAGS) $(CTL_CPPFLAGS) $(SYSTEMD_CFLAGS) -I$(CTL_TEST_DIR) -o $@ \
	  $(CTL_TEST_SRCS) $(CTL_TEST_LIB_SRCS) $(SYSTEMD_LIBS) -lsmartcols -ldw -lelf -lm -lzstd

$(BUILD)/fuzz/fuzz-faultline: tests/fuzz/fuzz-faultline.c $(CTL_LIB_SRCS) $(SRC_HDRS)
	@mkdir -p $(@D)
	clang $(WARN_CFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  $(CTL_CPPFLAGS) -o $@ tests/fuzz/fuzz-faultline.c $(CTL_LIB_SRCS) -ldw -lelf -lm -lzstd

# The core-file reader and the classifier over a core's memory.
$(BUILD)/fuzz/fuzz-corefile: tests/fuzz/fuzz-corefile.c $(CTL_LIB_SRCS) $(SRC_HDRS)
	@mkdir -p $(@D)
	clang $(WARN_CFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  $(CTL_CPPFLAGS) -o $@ tests/fuzz/fuzz-corefile.c $(CTL_LIB_SRCS) -ldw -lelf -lm -lzstd

# mtag-faultd's state file, as mtagctl reads it.
$(BUILD)/fuzz/fuzz-faultcount: tests/fuzz/fuzz-faultcount.c $(CTL_LIB_SRCS) $(SRC_HDRS)
	@mkdir -p $(@D)
	clang $(WARN_CFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  $(CTL_CPPFLAGS) -o $@ tests/fuzz/fuzz-faultcount.c $(CTL_LIB_SRCS) -ldw -lelf -lm -lzstd

$(BUILD)/arm64/ctl-lib.stamp: $(CTL_LIB_SRCS) $(SRC_HDRS)
	@mkdir -p $(@D)/ctl-lib
	for f in $(CTL_LIB_SRCS); do \
	  $(ARM64_CC) $(WARN_CFLAGS) $(HOST_CFLAGS) $(CTL_CPPFLAGS) -c -o $(@D)/ctl-lib/$$(basename $$f .c).o $$f || exit 1; \
	done
	touch $@

CHECK_SUITES += mtagctl
