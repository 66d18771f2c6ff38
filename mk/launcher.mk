# mtag-launcher and mtag-generator: host, arm64 (cross) and sanitizer builds,
# plus the small test programs the suites run.

LAUNCHER_DIR := mtag-launcher
LAUNCHER_LIB_SRCS := $(filter-out $(LAUNCHER_DIR)/main.c $(LAUNCHER_DIR)/generator-main.c,\
                       $(wildcard $(LAUNCHER_DIR)/*.c))
LAUNCHER_HDRS := $(wildcard $(LAUNCHER_DIR)/*.h)
# The shared base every program links (mtag-faultd, which links none of the
# rest of the launcher's library, too): allocation, file reading and
# atomic writing, the logger (stderr and the journal, libsystemd loaded
# on first use), exit codes.
SHARED_SRCS := $(addprefix $(LAUNCHER_DIR)/,util.c fileio.c log.c sdlib.c)
SHARED_HDRS := $(addprefix $(LAUNCHER_DIR)/,util.h fileio.h log.h sdlib.h exitcodes.h)
LAUNCHER_VERSION := $(shell sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog 2>/dev/null)

WARN_CFLAGS := -std=c11 -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wpointer-arith \
               -Wstrict-prototypes -Wmissing-prototypes -Wvla -Wno-unused-parameter
LAUNCHER_CPPFLAGS := -D_GNU_SOURCE -DMTAG_VERSION='"$(LAUNCHER_VERSION)"' -I$(LAUNCHER_DIR)
HOST_CC ?= cc
HOST_CFLAGS ?= -O2 -g -D_FORTIFY_SOURCE=2 -fstack-protector-strong
SAN_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
              -fno-sanitize-recover=all
ARM64_CC ?= aarch64-linux-gnu-gcc
ARM64_PKG_CONFIG := PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig pkg-config
SYSTEMD_CFLAGS = $(shell pkg-config --cflags libsystemd 2>/dev/null)
SYSTEMD_CFLAGS_ARM64 = $(shell $(ARM64_PKG_CONFIG) --cflags libsystemd 2>/dev/null)

.PHONY: launcher launcher-arm64 launcher-asan test-progs-arm64 fuzz-policy

launcher: $(BUILD)/host/mtag-launcher $(BUILD)/host/mtag-generator
launcher-arm64: $(BUILD)/arm64/mtag-launcher $(BUILD)/arm64/mtag-generator
launcher-asan: $(BUILD)/asan/mtag-launcher $(BUILD)/asan/mtag-generator $(BUILD)/asan/unit-tests
fuzz-policy: $(BUILD)/fuzz/fuzz-policy
test-progs-arm64: $(BUILD)/arm64/tests/mtebug

# $(call launcher_build,VARIANT,CC,CFLAGS,LIBS)
define launcher_build
$(BUILD)/$(1)/mtag-launcher: $(LAUNCHER_DIR)/main.c $(LAUNCHER_LIB_SRCS) $(LAUNCHER_HDRS) debian/changelog
	@mkdir -p $$(@D)
	$(2) $(WARN_CFLAGS) $(3) $(LAUNCHER_CPPFLAGS) -o $$@ $(LAUNCHER_DIR)/main.c $(LAUNCHER_LIB_SRCS) $(4)
$(BUILD)/$(1)/mtag-generator: $(LAUNCHER_DIR)/generator-main.c $(LAUNCHER_LIB_SRCS) $(LAUNCHER_HDRS) debian/changelog
	@mkdir -p $$(@D)
	$(2) $(WARN_CFLAGS) $(3) $(LAUNCHER_CPPFLAGS) -o $$@ $(LAUNCHER_DIR)/generator-main.c $(LAUNCHER_LIB_SRCS) $(4)
endef

$(eval $(call launcher_build,host,$(HOST_CC),$(HOST_CFLAGS),$(SYSTEMD_CFLAGS)))
$(eval $(call launcher_build,arm64,$(ARM64_CC),$(HOST_CFLAGS),$(SYSTEMD_CFLAGS_ARM64)))
$(eval $(call launcher_build,asan,clang,$(SAN_CFLAGS),$(SYSTEMD_CFLAGS)))

UNIT_TEST_SRCS := $(wildcard tests/launcher/*.c) tests/lib/unit.c
$(BUILD)/asan/unit-tests: $(UNIT_TEST_SRCS) $(LAUNCHER_LIB_SRCS) $(LAUNCHER_HDRS) tests/launcher/unit.h tests/lib/unit.h
	@mkdir -p $(@D)
	clang $(WARN_CFLAGS) $(SAN_CFLAGS) $(LAUNCHER_CPPFLAGS) -o $@ $(UNIT_TEST_SRCS) $(LAUNCHER_LIB_SRCS) $(SYSTEMD_CFLAGS)

# libFuzzer target for the policy parser.
$(BUILD)/fuzz/fuzz-policy: tests/fuzz/fuzz-policy.c $(LAUNCHER_LIB_SRCS) $(LAUNCHER_HDRS)
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
PKG_SYSTEMD_CFLAGS = $(shell $(PKG_CONFIG) --cflags libsystemd)
PKG_BINS := $(BUILD)/pkg/mtag-launcher $(BUILD)/pkg/mtag-generator

.PHONY: build-pkg install
build-pkg: $(PKG_BINS)
$(BUILD)/pkg/mtag-launcher: $(LAUNCHER_DIR)/main.c $(LAUNCHER_LIB_SRCS) $(LAUNCHER_HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN_CFLAGS) $(CPPFLAGS) $(LAUNCHER_CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	  $(LAUNCHER_DIR)/main.c $(LAUNCHER_LIB_SRCS) $(PKG_SYSTEMD_CFLAGS)
$(BUILD)/pkg/mtag-generator: $(LAUNCHER_DIR)/generator-main.c $(LAUNCHER_LIB_SRCS) $(LAUNCHER_HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN_CFLAGS) $(CPPFLAGS) $(LAUNCHER_CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	  $(LAUNCHER_DIR)/generator-main.c $(LAUNCHER_LIB_SRCS) $(PKG_SYSTEMD_CFLAGS)

install: build-pkg
	install -D -m 0755 $(BUILD)/pkg/mtag-launcher $(DESTDIR)$(SBINDIR)/mtag-launcher
	install -D -m 0755 $(BUILD)/pkg/mtag-generator $(DESTDIR)$(GENERATORDIR)/mtag-generator
	install -D -m 0644 units/mtag-cpu-preferred.service $(DESTDIR)$(UNITDIR)/mtag-cpu-preferred.service
	install -D -m 0644 $(LAUNCHER_DIR)/policy.conf $(DESTDIR)/etc/mtag/policy.conf
	install -d -m 0755 $(DESTDIR)/etc/mtag/policy.d $(DESTDIR)/usr/lib/mtag/policy.d
	install -m 0644 $(LAUNCHER_DIR)/policy.d/debian-daemons.conf $(DESTDIR)/usr/lib/mtag/policy.d/debian-daemons.conf
