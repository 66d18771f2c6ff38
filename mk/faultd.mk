# mtag-faultd (mtag-launcher/src/faultd/): host, arm64 (cross) and
# sanitizer builds.  It links the shared base, the fault readers (fault
# line, cause, /proc/PID/maps and status, cgroups) and libsystemd
# (sd-journal, sd-daemon), directly.

FAULTD_SYSTEMD_LIBS = $(shell pkg-config --libs libsystemd 2>/dev/null)
FAULTD_SYSTEMD_LIBS_ARM64 = $(shell $(ARM64_PKG_CONFIG) --libs libsystemd 2>/dev/null)

.PHONY: faultd faultd-arm64 faultd-asan
faultd: $(BUILD)/host/mtag-faultd
faultd-arm64: $(BUILD)/arm64/mtag-faultd
faultd-asan: $(BUILD)/asan/mtag-faultd

# $(call faultd_build,VARIANT,CC,CFLAGS,SYSTEMD_CFLAGS,SYSTEMD_LIBS)
define faultd_build
$(BUILD)/$(1)/mtag-faultd: $(FAULTD_BIN_SRCS) $(SRC_HDRS) debian/changelog
	@mkdir -p $$(@D)
	$(2) $(WARN_CFLAGS) $(3) $(LAUNCHER_CPPFLAGS) $(4) -o $$@ \
	  $(FAULTD_BIN_SRCS) $(5) -lm -lzstd
endef

$(eval $(call faultd_build,host,$(HOST_CC),$(HOST_CFLAGS),$(SYSTEMD_CFLAGS),$(FAULTD_SYSTEMD_LIBS)))
$(eval $(call faultd_build,arm64,$(ARM64_CC),$(HOST_CFLAGS),$(SYSTEMD_CFLAGS_ARM64),$(FAULTD_SYSTEMD_LIBS_ARM64)))
$(eval $(call faultd_build,asan,clang,$(SAN_CFLAGS),$(SYSTEMD_CFLAGS),$(FAULTD_SYSTEMD_LIBS)))

# The distribution build and install (build-pkg, install) of mtag-faultd,
# its units, catalog and completions are in mk/mtagctl.mk.

CHECK_SUITES += faultd completion
