# Debian's glibc for arm64 with mtag's patches (patches/glibc/): accepts
# glibc.memtag.enable and its _MTAG_ENABLE alias.  tools/build-glibc does
# the work and caches it under $(MTAG_CACHE)/glibc/; results land in
# build/debs/ (libc6, libc6-dev, libc-bin, libc-dev-bin for arm64) and
# build/glibc/sysroot/ (libc6 unpacked, for running programs under qemu).

.PHONY: glibc
glibc:
	tools/build-glibc

CHECK_SUITES += glibc
