# The four programs: mtag-launcher, mtag-generator (mtag-launcher/src/launcher/,
# src/generator/), mtagctl (src/mtagctl/) and mtag-faultd (src/faultd/), each
# in three variants: build/host/NAME, build/arm64/NAME (cross) and
# build/asan/NAME (ASan+UBSan).  Their sources, the compiler flags and
# ARM64_CC are set here once; mk/tests.mk, mk/packages.mk and mk/heavy.mk use
# them.  The Debian builds of the same programs are in mk/packages.mk.

LAUNCHER_DIR := mtag-launcher
SRC_DIR := $(LAUNCHER_DIR)/src
# A folder per program and per library (docs/ARCHITECTURE.md), each one
# wildcard.  A program links the folders it needs; where a program's folder
# is linked as a library (tests, mtagctl's use of the generator's unit
# files), its main() is left out.  A folder's test-*.c are its unit tests,
# never linked into a program.
SRC_FOLDERS := shared proc unit policy fault upgrade launcher generator faultd mtagctl
# The unit tests beside a library (FOLDER/test-*.c, built by mk/tests.mk)
# are not part of it: $(call srcs,FOLDER) leaves them out.
srcs = $(filter-out $(wildcard $(SRC_DIR)/$(1)/test-*.c),$(wildcard $(SRC_DIR)/$(1)/*.c))
SHARED_SRCS := $(call srcs,shared)
PROC_SRCS := $(call srcs,proc)
UNIT_SRCS := $(call srcs,unit)
POLICY_SRCS := $(call srcs,policy)
FAULT_SRCS := $(call srcs,fault)
UPGRADE_SRCS := $(call srcs,upgrade)
LAUNCHER_SRCS := $(call srcs,launcher)
GENERATOR_SRCS := $(call srcs,generator)
FAULTD_SRCS := $(call srcs,faultd)
MTAGCTL_SRCS := $(call srcs,mtagctl)
SRC_HDRS := $(wildcard $(SRC_DIR)/*/*.h)
MAIN_SRCS := $(SRC_DIR)/launcher/main.c $(SRC_DIR)/generator/generator-main.c \
             $(SRC_DIR)/faultd/faultd-main.c $(SRC_DIR)/mtagctl/mtagctl-main.c
nomain = $(filter-out $(MAIN_SRCS),$(1))

# What each program links.  The upgrade folder reads the kernel's fault
# line as mtag-faultd does: the fault folder's parser of it goes wherever
# the upgrade folder goes without the rest of the fault folder (the core
# reader needs libzstd).
FAULTLINE_SRCS := $(SRC_DIR)/fault/faultline.c
LAUNCHER_BIN_SRCS := $(SHARED_SRCS) $(PROC_SRCS) $(POLICY_SRCS) $(UPGRADE_SRCS) $(FAULTLINE_SRCS) $(LAUNCHER_SRCS)
GENERATOR_BIN_SRCS := $(SHARED_SRCS) $(PROC_SRCS) $(UNIT_SRCS) $(POLICY_SRCS) $(GENERATOR_SRCS)
MTAGCTL_BIN_SRCS := $(SHARED_SRCS) $(PROC_SRCS) $(UNIT_SRCS) $(POLICY_SRCS) $(FAULT_SRCS) \
                    $(UPGRADE_SRCS) $(MTAGCTL_SRCS)
FAULTD_BIN_SRCS := $(SHARED_SRCS) $(PROC_SRCS) $(POLICY_SRCS) $(FAULT_SRCS) $(UPGRADE_SRCS) $(FAULTD_SRCS)
# The libraries the launcher and the generator use, and the launcher
# without its main(): unit tests, the policy fuzzers.
LAUNCHER_LIB_SRCS := $(SHARED_SRCS) $(PROC_SRCS) $(UNIT_SRCS) $(POLICY_SRCS) $(UPGRADE_SRCS) \
                     $(FAULTLINE_SRCS) $(call nomain,$(LAUNCHER_SRCS))
LAUNCHER_VERSION := $(shell sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog 2>/dev/null)

WARN_CFLAGS := -std=c11 -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wpointer-arith \
               -Wstrict-prototypes -Wmissing-prototypes -Wvla -Wno-unused-parameter
# The systemd the programs are built for (its unit search path, its
# ExecStart= prefixes): the build environment's libsystemd, which is the
# suite's (the host's for bookworm, the chroot's for trixie).
# Without libsystemd-dev it stays unset and src/unit/unitfile.c says so.
# A package build asks the pkg-config of its host architecture (debhelper
# passes PKG_CONFIG; a cross build in a chroot may have only the target's
# libsystemd-dev).
SYSTEMD_VERSION := $(shell $(or $(PKG_CONFIG),pkg-config) --modversion libsystemd 2>/dev/null | sed 's/[^0-9].*//')
LAUNCHER_CPPFLAGS := -D_GNU_SOURCE -DMTAG_VERSION='"$(LAUNCHER_VERSION)"' \
                     $(if $(SYSTEMD_VERSION),-DMTAG_SYSTEMD_VERSION=$(SYSTEMD_VERSION)) \
                     $(addprefix -I$(SRC_DIR)/,$(SRC_FOLDERS))
HOST_CC ?= cc
HOST_CFLAGS ?= -O2 -g -D_FORTIFY_SOURCE=2 -fstack-protector-strong
SAN_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
              -fno-sanitize-recover=all
ARM64_CC ?= aarch64-linux-gnu-gcc
ARM64_PKG_CONFIG := PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig pkg-config
# The include paths of the libraries the programs use (libsystemd;
# libsmartcols: mtagctl's table).
SYSTEMD_CFLAGS = $(shell pkg-config --cflags libsystemd smartcols 2>/dev/null)
SYSTEMD_CFLAGS_ARM64 = $(shell $(ARM64_PKG_CONFIG) --cflags libsystemd smartcols 2>/dev/null)
SYSTEMD_LIBS = $(shell pkg-config --libs libsystemd 2>/dev/null)
SYSTEMD_LIBS_ARM64 = $(shell $(ARM64_PKG_CONFIG) --libs libsystemd 2>/dev/null)

.PHONY: launcher launcher-arm64 launcher-asan mtagctl mtagctl-arm64 mtagctl-asan \
        faultd faultd-arm64 faultd-asan

# $(call program,NAME,SRCS,LIBS,LIBS_ARM64): the program NAME from SRCS in
# three variants, build/host/NAME, build/arm64/NAME (cross) and
# build/asan/NAME (ASan+UBSan), linked with LIBS (LIBS_ARM64 for arm64).
define program_variant
$(BUILD)/$(1)/$(6): $(7) $(SRC_HDRS) debian/changelog
	@mkdir -p $$(@D)
	$(2) $(WARN_CFLAGS) $(3) $(LAUNCHER_CPPFLAGS) $(4) -o $$@ $(7) $(5)
endef
program = $(eval $(call program_variant,host,$(HOST_CC),$(HOST_CFLAGS),$(SYSTEMD_CFLAGS),$(3),$(1),$(2)))$\
          $(eval $(call program_variant,arm64,$(ARM64_CC),$(HOST_CFLAGS),$(SYSTEMD_CFLAGS_ARM64),$(4),$(1),$(2)))$\
          $(eval $(call program_variant,asan,clang,$(SAN_CFLAGS),$(SYSTEMD_CFLAGS),$(3),$(1),$(2)))

# mtag-launcher and mtag-generator: libsystemd is dlopen()ed (sdlib.c).
# launcher-asan also builds the launcher's unit tests (mk/tests.mk).
launcher: $(BUILD)/host/mtag-launcher $(BUILD)/host/mtag-generator
launcher-arm64: $(BUILD)/arm64/mtag-launcher $(BUILD)/arm64/mtag-generator
launcher-asan: $(BUILD)/asan/mtag-launcher $(BUILD)/asan/mtag-generator $(BUILD)/asan/unit-tests
$(call program,mtag-launcher,$(LAUNCHER_BIN_SRCS),,)
$(call program,mtag-generator,$(GENERATOR_BIN_SRCS),,)

# mtagctl links the shared base, the policy, the unit files, the fault
# readers (fault line, cause, /proc/PID/status and smaps, cgroups, core
# files), libsystemd (sd-bus, sd-journal) and libsmartcols (the status table).
mtagctl: $(BUILD)/host/mtagctl
mtagctl-arm64: $(BUILD)/arm64/mtagctl
mtagctl-asan: $(BUILD)/asan/mtagctl
$(call program,mtagctl,$(MTAGCTL_BIN_SRCS),$(SYSTEMD_LIBS) -lsmartcols -ldw -lelf -lm -lzstd,$(SYSTEMD_LIBS_ARM64) -lsmartcols -ldw -lelf -lm -lzstd)

# mtag-faultd links the shared base, the policy (upgraded starts), the fault
# readers (fault line, cause, /proc/PID/maps and status, cgroups) and
# libsystemd (sd-journal, sd-daemon), directly.
faultd: $(BUILD)/host/mtag-faultd
faultd-arm64: $(BUILD)/arm64/mtag-faultd
faultd-asan: $(BUILD)/asan/mtag-faultd
$(call program,mtag-faultd,$(FAULTD_BIN_SRCS),$(SYSTEMD_LIBS) -ldw -lelf -lm -lzstd,$(SYSTEMD_LIBS_ARM64) -ldw -lelf -lm -lzstd)
