# The arm64 VM image, the fault injection library, the VM test suite and
# the demo.  See tools/build-image, tests/vm/, tests/inject/, tools/demo.

INJECT_SO := $(BUILD)/arm64/inject/libmtaginject.so
INJECT_TEST := $(BUILD)/arm64/inject/trigger-test
ARM64_CC ?= aarch64-linux-gnu-gcc

.PHONY: image inject demo vm-boot

inject: $(INJECT_SO) $(INJECT_TEST)

$(INJECT_SO): tests/inject/mtaginject.c tests/progs/mtebug-bugs.h
	@mkdir -p $(@D)
	$(ARM64_CC) -std=gnu11 -shared -fPIC -O1 -g -Wall -Wextra -Werror -o $@ $< -ldl

$(INJECT_TEST): tests/inject/trigger-test.c
	@mkdir -p $(@D)
	$(ARM64_CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -o $@ $<

# The Debian 12 arm64 disk image (cached by a hash of its inputs), from
# whatever mtag .debs build/debs/ holds.  EXTRA_PACKAGES="pkg ..." adds
# Debian packages.
image: $(INJECT_SO) $(BUILD)/arm64/tests/mtebug
	tools/build-image

# The demo builds what is missing first (each of those is cached).
DEMO_DEPS := $(if $(wildcard mk/kernel.mk),kernel) $(if $(wildcard mk/glibc.mk),glibc) launcher-debs
demo:
	@mkdir -p $(BUILD); for t in $(DEMO_DEPS) image; do \
	  s=$$(date +%s); printf 'demo: make %s ... ' $$t; \
	  if $(MAKE) --no-print-directory $$t >$(BUILD)/demo-$$t.log 2>&1; then \
	    echo "ok ($$(( $$(date +%s) - s ))s)"; \
	  elif [ $$t = image ]; then echo "failed:"; tail -20 $(BUILD)/demo-$$t.log; exit 1; \
	  else echo "failed (see $(BUILD)/demo-$$t.log); going on with what build/ has"; fi; \
	done
	@tools/demo

# Boot the image for a person: root shell on the serial console.
vm-boot:
	tests/vm/boot --interactive

CHECK_SUITES += vm
