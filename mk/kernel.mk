# The patched arm64 kernel: build/kernel/Image and build/debs/linux-image-*-mtag*.
# tools/build-kernel unpacks linux-source-6.1, applies patches/linux/series,
# merges patches/linux/mtag-virt.config onto allnoconfig and builds with
# ccache; results are cached in $(MTAG_CACHE)/kernel/<hash of the inputs>/.
# FLAVOUR=cloud-arm64 or arm64: Debian's configuration of that name with
# patches/linux/mtag-debian.config, for real machines (UEFI, GRUB,
# initramfs, modules): build/kernel-FLAVOUR/ (see mk/release.mk).
# SUITE=trixie: linux-source-6.12 and patches/linux/trixie/series, cached
# in $(MTAG_CACHE)/kernel-trixie/; the products land in the same places.
# Default (SUITE unset or empty): bookworm.

.PHONY: kernel kernel-force
kernel:
	@SUITE=$(SUITE) tools/build-kernel

# Rebuild even if the result cache has these inputs (still incremental).
kernel-force:
	@SUITE=$(SUITE) KERNEL_FORCE=1 tools/build-kernel

CHECK_SUITES += kernel
