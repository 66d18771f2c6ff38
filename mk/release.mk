# The real-hardware kernel flavours and their release test (not part of
# "make check": the flavour takes about an hour to build cold on 2 cores).
#   make kernel FLAVOUR=cloud-arm64     build/kernel-cloud-arm64/*.deb
#   make release-image                  build/release/disk.img (dpkg-installed)
#   make check-release                  UEFI -> GRUB -> initramfs -> systemd boot
# FLAVOUR defaults to cloud-arm64 here (arm64: Debian's full configuration).
# sh tools/install-deps release first.

.PHONY: release-image check-release
release-image:
	@FLAVOUR=$(or $(FLAVOUR),cloud-arm64) tools/build-release-image

check-release:
	@FLAVOUR=$(or $(FLAVOUR),cloud-arm64) tests/run-suites release
