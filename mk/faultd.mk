# mtag-faultd (mtag-launcher/ctl/faultd-main.c): host, arm64 (cross) and
# sanitizer builds.  It links the ctl library
# (CTL_LIB_SRCS, mk/ctl-tests.mk: fault line, cause, /proc/PID/maps, and
# faultd.c itself) and libsystemd (sd-journal, sd-daemon), directly.
#
# mk/ctl-tests.mk is included after this file: CTL_LIB_SRCS, CTL_HDRS and
# CTL_CPPFLAGS are only used where make expands late, in recipes and (with
# .SECONDEXPANSION) in prerequisite lists.

FAULTD_DIR := $(LAUNCHER_DIR)/ctl
FAULTD_MAIN := $(FAULTD_DIR)/faultd-main.c
FAULTD_SYSTEMD_LIBS = $(shell pkg-config --libs libsystemd 2>/dev/null)
FAULTD_SYSTEMD_LIBS_ARM64 = $(shell $(ARM64_PKG_CONFIG) --libs libsystemd 2>/dev/null)
FAULTD_CPPFLAGS = $(CTL_CPPFLAGS) -DMTAG_VERSION='"$(LAUNCHER_VERSION)"'

.PHONY: faultd faultd-arm64 faultd-asan
faultd: $(BUILD)/host/mtag-faultd
faultd-arm64: $(BUILD)/arm64/mtag-faultd
faultd-asan: $(BUILD)/asan/mtag-faultd

.SECONDEXPANSION:

# $(call faultd_build,VARIANT,CC,CFLAGS,SYSTEMD_CFLAGS,SYSTEMD_LIBS)
define faultd_build
$(BUILD)/$(1)/mtag-faultd: $(FAULTD_MAIN) $$$$(CTL_LIB_SRCS) $$$$(CTL_HDRS) $(LAUNCHER_LIB_SRCS) $(LAUNCHER_HDRS) debian/changelog
	@mkdir -p $$(@D)
	$(2) $(WARN_CFLAGS) $(3) $$(FAULTD_CPPFLAGS) -I$(LAUNCHER_DIR) $(4) -o $$@ \
	  $(FAULTD_MAIN) $$(CTL_LIB_SRCS) $(LAUNCHER_LIB_SRCS) $(5) -lm -lzstd
endef

$(eval $(call faultd_build,host,$(HOST_CC),$(HOST_CFLAGS),$(SYSTEMD_CFLAGS),$(FAULTD_SYSTEMD_LIBS)))
$(eval $(call faultd_build,arm64,$(ARM64_CC),$(HOST_CFLAGS),$(SYSTEMD_CFLAGS_ARM64),$(FAULTD_SYSTEMD_LIBS_ARM64)))
$(eval $(call faultd_build,asan,clang,$(SAN_CFLAGS),$(SYSTEMD_CFLAGS),$(FAULTD_SYSTEMD_LIBS)))

# The distribution build and install (build-pkg, install) of mtag-faultd,
# its units, catalog and completions are in mk/mtagctl.mk.

CHECK_SUITES += faultd completion
