# The Debian packages of this source.  launcher-debs (make debs) builds them
# native and arm64 with tools/build-launcher-debs; that runs
# dpkg-buildpackage, whose debian/rules calls back into this file:
#   make build-pkg BUILD=debian/build     the four programs, build/pkg/NAME
#   make install BUILD=debian/build DESTDIR=...
# Honours CC, CFLAGS, CPPFLAGS, LDFLAGS and PKG_CONFIG as dpkg-buildflags
# and debhelper set them (also when cross-building).  Every file the
# packages install is installed here.

.PHONY: launcher-debs build-pkg install install-mtagctl
launcher-debs:
	tools/build-launcher-debs
debs: launcher-debs

# --- Distribution build -------------------------------------------------
PKG_CONFIG ?= pkg-config
PKG_SYSTEMD_CFLAGS = $(shell $(PKG_CONFIG) --cflags libsystemd smartcols)
PKG_SYSTEMD_LIBS = $(shell $(PKG_CONFIG) --libs libsystemd)
PKG_BINS := $(BUILD)/pkg/mtag-launcher $(BUILD)/pkg/mtag-generator \
            $(BUILD)/pkg/mtagctl $(BUILD)/pkg/mtag-faultd

build-pkg: $(PKG_BINS)
# libsystemd is dlopen()ed by the launcher and the generator (sdlib.c).
$(BUILD)/pkg/mtag-launcher: $(LAUNCHER_BIN_SRCS) $(SRC_HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN_CFLAGS) $(CPPFLAGS) $(LAUNCHER_CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	  $(LAUNCHER_BIN_SRCS) $(PKG_SYSTEMD_CFLAGS)
$(BUILD)/pkg/mtag-generator: $(GENERATOR_BIN_SRCS) $(SRC_HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN_CFLAGS) $(CPPFLAGS) $(LAUNCHER_CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	  $(GENERATOR_BIN_SRCS) $(PKG_SYSTEMD_CFLAGS)
$(BUILD)/pkg/mtagctl: $(MTAGCTL_BIN_SRCS) $(SRC_HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN_CFLAGS) $(CPPFLAGS) $(LAUNCHER_CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	  $(MTAGCTL_BIN_SRCS) $(PKG_SYSTEMD_CFLAGS) $(PKG_SYSTEMD_LIBS) -lsmartcols -ldw -lelf -lm -lzstd
$(BUILD)/pkg/mtag-faultd: $(FAULTD_BIN_SRCS) $(SRC_HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN_CFLAGS) $(CPPFLAGS) $(LAUNCHER_CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	  $(FAULTD_BIN_SRCS) $(PKG_SYSTEMD_CFLAGS) $(PKG_SYSTEMD_LIBS) -ldw -lelf -lm -lzstd

# --- Install ------------------------------------------------------------
# install: the launcher, the generator, policy and vendor defaults;
# install-mtagctl (also part of install): mtagctl, mtag-faultd, their
# units, the journal catalog and the bash completions.
DESTDIR ?=
SBINDIR ?= /usr/sbin
BINDIR ?= /usr/bin
LIBEXECDIR ?= /usr/lib/mtag
# systemd's own directories for the systemd built against
# (SYSTEMD_VERSION, mk/programs.mk): /lib/systemd before 255 (bookworm's
# 252, built with rootprefix=/), /usr/lib/systemd from 255 on (trixie's
# 257: merged /usr only, and /lib is an aliased location dpkg should not
# be given files in).
SYSTEMD_LIBDIR := $(if $(shell [ "0$(SYSTEMD_VERSION)" -ge 255 ] && echo y),/usr/lib/systemd,/lib/systemd)
GENERATORDIR ?= $(SYSTEMD_LIBDIR)/system-generators
UNITDIR ?= $(SYSTEMD_LIBDIR)/system
CATALOGDIR ?= /usr/lib/systemd/catalog
BASHCOMPDIR ?= /usr/share/bash-completion/completions

install: build-pkg install-mtagctl
	install -D -m 0755 $(BUILD)/pkg/mtag-launcher $(DESTDIR)$(SBINDIR)/mtag-launcher
	install -D -m 0755 $(BUILD)/pkg/mtag-generator $(DESTDIR)$(GENERATORDIR)/mtag-generator
	install -D -m 0644 units/mtag-cpu-preferred.service $(DESTDIR)$(UNITDIR)/mtag-cpu-preferred.service
	install -D -m 0644 $(LAUNCHER_DIR)/conf/policy.conf $(DESTDIR)/etc/mtag/policy.conf
	install -d -m 0755 $(DESTDIR)/etc/mtag/policy.d $(DESTDIR)/usr/lib/mtag/policy.d
	install -m 0644 $(LAUNCHER_DIR)/conf/policy.d/debian-daemons.conf $(DESTDIR)/usr/lib/mtag/policy.d/debian-daemons.conf

install-mtagctl: build-pkg
	install -D -m 0755 $(BUILD)/pkg/mtagctl $(DESTDIR)$(BINDIR)/mtagctl
	install -D -m 0755 $(BUILD)/pkg/mtag-faultd $(DESTDIR)$(LIBEXECDIR)/mtag-faultd
	install -D -m 0644 units/mtag-faultd.service $(DESTDIR)$(UNITDIR)/mtag-faultd.service
	install -D -m 0644 units/mtag-prometheus.service $(DESTDIR)$(UNITDIR)/mtag-prometheus.service
	install -D -m 0644 units/mtag-prometheus.timer $(DESTDIR)$(UNITDIR)/mtag-prometheus.timer
	install -D -m 0644 units/mtag-prometheus.path $(DESTDIR)$(UNITDIR)/mtag-prometheus.path
	install -D -m 0644 units/mtag-packages.service $(DESTDIR)$(UNITDIR)/mtag-packages.service
	install -D -m 0644 units/catalog/mtag.catalog $(DESTDIR)$(CATALOGDIR)/mtag.catalog
	install -D -m 0644 units/bash-completion/mtagctl $(DESTDIR)$(BASHCOMPDIR)/mtagctl
	install -D -m 0644 units/bash-completion/mtag-launcher $(DESTDIR)$(BASHCOMPDIR)/mtag-launcher

# --- The apt repository (issue 36, docs/repository.md) -------------------
# make repo: the metapackage mtag of each suite in REPO_SUITES, then
# build/repo/ ($(BUILD_ROOT)/repo: it spans the suites): signed, one
# distribution per suite, ready to serve.
# REPO_URL (written into the .sources files), MTAG_REPO_GNUPGHOME (the
# signing key, default /var/lib/mtag-build/repo-key): see tools/build-repo.
REPO_SUITES ?= bookworm

.PHONY: repo
repo:
	@for s in $(REPO_SUITES); do SUITE=$$s BUILD=$(BUILD_ROOT)/$$s tools/build-metapackage || exit 1; done
	@tools/build-repo
