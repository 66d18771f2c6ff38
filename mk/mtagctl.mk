# mtagctl (mtag-launcher/src/mtagctl/): host, arm64 (cross) and sanitizer
# builds.  It links the shared base, the policy, the generator's unit files
# (not its main), the fault readers (fault line, cause, /proc/PID/status and
# smaps, cgroups, core files), libsystemd (sd-bus, sd-journal) and
# libsmartcols (the status table).

.PHONY: mtagctl mtagctl-arm64 mtagctl-asan
mtagctl: $(BUILD)/host/mtagctl
mtagctl-arm64: $(BUILD)/arm64/mtagctl
mtagctl-asan: $(BUILD)/asan/mtagctl

$(call program,mtagctl,$(MTAGCTL_BIN_SRCS),$(SYSTEMD_LIBS) -lsmartcols -ldw -lelf -lm -lzstd,$(SYSTEMD_LIBS_ARM64) -lsmartcols -ldw -lelf -lm -lzstd)

# --- Distribution build (debian/rules: make build-pkg / install) --------
PKG_SYSTEMD_LIBS = $(shell $(PKG_CONFIG) --libs libsystemd)
PKG_BINS += $(BUILD)/pkg/mtagctl $(BUILD)/pkg/mtag-faultd
build-pkg: $(BUILD)/pkg/mtagctl $(BUILD)/pkg/mtag-faultd
$(BUILD)/pkg/mtagctl: $(MTAGCTL_BIN_SRCS) $(SRC_HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN_CFLAGS) $(CPPFLAGS) $(LAUNCHER_CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	  $(MTAGCTL_BIN_SRCS) $(PKG_SYSTEMD_CFLAGS) $(PKG_SYSTEMD_LIBS) -lsmartcols -ldw -lelf -lm -lzstd
$(BUILD)/pkg/mtag-faultd: $(FAULTD_BIN_SRCS) $(SRC_HDRS)
	@mkdir -p $(@D)
	$(CC) $(WARN_CFLAGS) $(CPPFLAGS) $(LAUNCHER_CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	  $(FAULTD_BIN_SRCS) $(PKG_SYSTEMD_CFLAGS) $(PKG_SYSTEMD_LIBS) -ldw -lelf -lm -lzstd

BINDIR ?= /usr/bin
LIBEXECDIR ?= /usr/lib/mtag
CATALOGDIR ?= /usr/lib/systemd/catalog
BASHCOMPDIR ?= /usr/share/bash-completion/completions
.PHONY: install-mtagctl
install: install-mtagctl
install-mtagctl: build-pkg
	install -D -m 0755 $(BUILD)/pkg/mtagctl $(DESTDIR)$(BINDIR)/mtagctl
	install -D -m 0755 $(BUILD)/pkg/mtag-faultd $(DESTDIR)$(LIBEXECDIR)/mtag-faultd
	install -D -m 0644 units/mtag-faultd.service $(DESTDIR)$(UNITDIR)/mtag-faultd.service
	install -D -m 0644 units/mtag-prometheus.service $(DESTDIR)$(UNITDIR)/mtag-prometheus.service
	install -D -m 0644 units/mtag-prometheus.timer $(DESTDIR)$(UNITDIR)/mtag-prometheus.timer
	install -D -m 0644 units/mtag-prometheus.path $(DESTDIR)$(UNITDIR)/mtag-prometheus.path
	install -D -m 0644 units/catalog/mtag.catalog $(DESTDIR)$(CATALOGDIR)/mtag.catalog
	install -D -m 0644 units/bash-completion/mtagctl $(DESTDIR)$(BASHCOMPDIR)/mtagctl
	install -D -m 0644 units/bash-completion/mtag-launcher $(DESTDIR)$(BASHCOMPDIR)/mtag-launcher
