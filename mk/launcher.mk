# mtag-launcher and mtag-generator: host, arm64 (cross) and sanitizer builds,
# plus the small test programs the suites run.

LAUNCHER_DIR := mtag-launcher
SRC_DIR := $(LAUNCHER_DIR)/src
# A folder per program and per library (docs/ARCHITECTURE.md), each one
# wildcard.  A program links the folders it needs; where a program's folder
# is linked as a library (tests, mtagctl's use of the generator's unit
# files), its main() is left out.
SRC_FOLDERS := shared proc unit policy fault upgrade launcher generator faultd mtagctl
SHARED_SRCS := $(wildcard $(SRC_DIR)/shared/*.c)
PROC_SRCS := $(wildcard $(SRC_DIR)/proc/*.c)
UNIT_SRCS := $(wildcard $(SRC_DIR)/unit/*.c)
POLICY_SRCS := $(wildcard $(SRC_DIR)/policy/*.c)
FAULT_SRCS := $(wildcard $(SRC_DIR)/fault/*.c)
UPGRADE_SRCS := $(wildcard $(SRC_DIR)/upgrade/*.c)
LAUNCHER_SRCS := $(wildcard $(SRC_DIR)/launcher/*.c)
GENERATOR_SRCS := $(wildcard $(SRC_DIR)/generator/*.c)
FAULTD_SRCS := $(wildcard $(SRC_DIR)/faultd/*.c)
MTAGCTL_SRCS := $(wildcard $(SRC_DIR)/mtagctl/*.c)
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
LAUNCHER_CPPFLAGS := -D_GNU_SOURCE -DMTAG_VERSION='"$(LAUNCHER_VERSION)"' $(addprefix -I$(SRC_DIR)/,$(SRC_FOLDERS))
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

.PHONY: launcher launcher-arm64 launcher-asan test-progs-arm64 fuzz-policy

launcher: $(BUILD)/host/mtag-launcher $(BUILD)/host/mtag-generator
launcher-arm64: $(BUILD)/arm64/mtag-launcher $(BUILD)/arm64/mtag-generator
launcher-asan: $(BUILD)/asan/mtag-launcher $(BUILD)/asan/mtag-generator $(BUILD)/asan/unit-tests
fuzz-policy: $(BUILD)/fuzz/fuzz-policy
test-progs-arm64: $(BUILD)/arm64/tests/mtebug

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

# libsystemd is dlopen()ed by the launcher and the generator (sdlib.c).
$(call program,mtag-launcher,$(LAUNCHER_BIN_SRCS),,)
$(call program,mtag-generator,$(GENERATOR_BIN_SRCS),,)

UNIT_TEST_SRCS := $(wildcard tests/launcher/*.c) tests/lib/unit.c
$(BUILD)/asan/unit-tests: $(UNIT_TEST_SRCS) $(LAUNCHER_LIB_SRCS) $(SRC_HDRS) tests/launcher/unit.h tests/lib/unit.h
	@mkdir -p $(@D)
	clang $(WARN_CFLAGS) $(SAN_CFLAGS) $(LAUNCHER_CPPFLAGS) -o $@ $(UNIT_TEST_SRCS) $(LAUNCHER_LIB_SRCS) $(SYSTEMD_CFLAGS)

# libFuzzer target for the policy parser.
$(BUILD)/fuzz/fuzz-policy: tests/fuzz/fuzz-policy.c $(LAUNCHER_LIB_SRCS) $(SRC_HDRS)
	@mkdir -p $(@D)
	clang $(WARN_CFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  $(LAUNCHER_CPPFLAGS) -o $@ tests/fuzz/fuzz-policy.c $(LAUNCHER_LIB_SRCS) $(SYSTEMD_CFLAGS)

$(BUILD)/arm64/tests/%: tests/progs/%.c tests/progs/mtebug-bugs.h
	@mkdir -p $(@D)
	$(ARM64_CC) -std=c11 -O2 -g -Wall -Wextra -Werror -o $@ $<

$(BUILD)/arm64/tests/%-static: tests/progs/%.c tests/progs/mtebug-bugs.h
	@mkdir -p $(@D)
	$(ARM64_CC) -std=c11 -O2 -g -Wall -Wextra -Werror -static -o $@ $<

# Debian packages of this source (the launcher), native and arm64.
.PHONY: launcher-debs
launcher-debs:
	tools/build-launcher-debs
debs: launcher-debs

bench: $(BUILD)/host/mtag-launcher
	tests/bench/run

# mtag-generator against the number of units, next to systemd's own
# generators (not part of make check; BENCH_GEN_BEFORE=PATH adds a build).
.PHONY: bench-generator
bench-generator: $(BUILD)/host/mtag-generator
	tests/bench/generator

# --- Distribution build and install (used by debian/rules) --------------
# Honours CC, CFLAGS, CPPFLAGS, LDFLAGS and PKG_CONFIG as dpkg-buildflags
# and debhelper set them (also when cross-building).
PKG_CONFIG ?= pkg-config
DESTDIR ?=
SBINDIR ?= /usr/sbin
GENERATORDIR ?= /lib/systemd/system-generators
UNITDIR ?= /lib/systemd/system
PKG_SYSTEMD_CFLAGS = $(shell $(PKG_CONFIG) --cflags libsystemd smartcols)
PKG_BINS := $(BUILD)/pkg/mtag-launcher $(BUILD)/pkg/mtag-generator

.PHONY: build-pkg install
build-pkg: $(PKG_BINS)
$(BUILD)/pkg/mtag-launcher: $(LAUNCHER_BIN_SRCS) $(SRC_HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN_CFLAGS) $(CPPFLAGS) $(LAUNCHER_CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	  $(LAUNCHER_BIN_SRCS) $(PKG_SYSTEMD_CFLAGS)
$(BUILD)/pkg/mtag-generator: $(GENERATOR_BIN_SRCS) $(SRC_HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN_CFLAGS) $(CPPFLAGS) $(LAUNCHER_CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	  $(GENERATOR_BIN_SRCS) $(PKG_SYSTEMD_CFLAGS)

install: build-pkg
	install -D -m 0755 $(BUILD)/pkg/mtag-launcher $(DESTDIR)$(SBINDIR)/mtag-launcher
	install -D -m 0755 $(BUILD)/pkg/mtag-generator $(DESTDIR)$(GENERATORDIR)/mtag-generator
	install -D -m 0644 units/mtag-cpu-preferred.service $(DESTDIR)$(UNITDIR)/mtag-cpu-preferred.service
	install -D -m 0644 $(LAUNCHER_DIR)/conf/policy.conf $(DESTDIR)/etc/mtag/policy.conf
	install -d -m 0755 $(DESTDIR)/etc/mtag/policy.d $(DESTDIR)/usr/lib/mtag/policy.d
	install -m 0644 $(LAUNCHER_DIR)/conf/policy.d/debian-daemons.conf $(DESTDIR)/usr/lib/mtag/policy.d/debian-daemons.conf
