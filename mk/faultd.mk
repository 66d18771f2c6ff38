# mtag-faultd (mtag-launcher/src/faultd/): host, arm64 (cross) and
# sanitizer builds.  It links the shared base, the policy (upgraded
# starts), the fault readers (fault
# line, cause, /proc/PID/maps and status, cgroups) and libsystemd
# (sd-journal, sd-daemon), directly.

.PHONY: faultd faultd-arm64 faultd-asan
faultd: $(BUILD)/host/mtag-faultd
faultd-arm64: $(BUILD)/arm64/mtag-faultd
faultd-asan: $(BUILD)/asan/mtag-faultd

$(call program,mtag-faultd,$(FAULTD_BIN_SRCS),$(SYSTEMD_LIBS) -ldw -lelf -lm -lzstd,$(SYSTEMD_LIBS_ARM64) -ldw -lelf -lm -lzstd)

# The distribution build and install (build-pkg, install) of mtag-faultd,
# its units, catalog and completions are in mk/mtagctl.mk.

CHECK_SUITES += faultd completion
