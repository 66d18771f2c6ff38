#!/bin/bash
# guest-check.sh -- the release test inside the guest booted from UEFI
# firmware through GRUB and the initramfs (tests/ts/release/run): is this the
# dpkg-installed mtag kernel of the flavour, booted the way a machine boots,
# with the mtag patches in it?  Appends PASS/FAIL lines to results.txt
# (lib.sh); the nginx case itself is matrix.sh's, run before this.
set -u
. "$(dirname "$0")/lib.sh"
KREL=$(cat "$S/kernelrelease")

check() { # NAME WHY CMD...: PASS when CMD succeeds, else FAIL with WHY
	local name=$1 why=$2
	shift 2
	if "$@" >/dev/null 2>&1; then pass "$name"; else fail "$name" "$why"; fi
}

info "release: kernel $(uname -r), cmdline: $(cat /proc/cmdline)"
check release/kernel-release "running $(uname -r), not $KREL" test "$(uname -r)" = "$KREL"
check release/kernel-package "linux-image-$KREL is not installed (dpkg)" \
	sh -c "dpkg-query -W -f='\${Status}' linux-image-$KREL | grep -q 'install ok installed'"
check release/debian-kernel-kept "Debian's linux-image-cloud-arm64 is gone: $(dpkg -l 'linux-image-*' | grep ^ii | tr -s ' ' | cut -d' ' -f2 | tr '\n' ' ')" \
	sh -c "dpkg-query -W -f='\${Status}' linux-image-cloud-arm64 | grep -q 'install ok installed'"
# GRUB passes BOOT_IMAGE= (its linux command's path); -kernel boots have none.
check release/grub "no BOOT_IMAGE=/boot/vmlinuz-$KREL in /proc/cmdline: $(cat /proc/cmdline)" \
	grep -q "BOOT_IMAGE=/boot/vmlinuz-$KREL " /proc/cmdline
check release/grub-menu "grub.cfg lacks an entry for $KREL or for Debian's kernel" \
	sh -c "grep -q 'vmlinuz-$KREL' /boot/grub/grub.cfg && grep -E 'vmlinuz-[0-9.]+-[0-9]+-cloud-arm64' /boot/grub/grub.cfg"
check release/efi "/sys/firmware/efi missing: not booted through UEFI" test -d /sys/firmware/efi
check release/efi-runtime "no EFI runtime services (efivarfs empty)" \
	sh -c "ls /sys/firmware/efi/efivars | grep -q ."
check release/acpi "the kernel does not run on ACPI (no /sys/firmware/acpi/tables/DSDT)" \
	test -e /sys/firmware/acpi/tables/DSDT
check release/initramfs "no initramfs was unpacked (dmesg: $(dmesg | grep -i -m2 initr | tr '\n' '|'))" \
	sh -c "dmesg | grep -q 'Freeing initrd memory'"
# The root disk's driver came from the initramfs, as a module.
check release/virtio_blk-module "virtio_blk is not a loaded module: $(grep -c . /proc/modules) modules" \
	grep -q '^virtio_blk ' /proc/modules
check release/modules-signed "virtio_blk has no signature (modinfo -F signer)" \
	sh -c "modinfo -F signer virtio_blk | grep -q ."
check release/esp-mounted "/boot/efi is not mounted from the ESP" \
	sh -c "findmnt -n -o FSTYPE /boot/efi | grep -q vfat"
check release/mte-hwcap "no 'mte' in /proc/cpuinfo Features" grep -qw mte /proc/cpuinfo
check release/mte-proc-status "no MTE_TCF line in /proc/self/status (patch 0002)" \
	grep -q '^MTE_TCF:' /proc/self/status
check release/mte-report-status "no MTE_Report line in /proc/self/status (patch 0004)" \
	grep -q '^MTE_Report:' /proc/self/status
check release/mte-fault-report-sysctl "no abi.mte_fault_report sysctl (patch 0003)" \
	test "$(cat /proc/sys/abi/mte_fault_report 2>/dev/null)" = 1
check release/system-running "systemctl is-system-running: $(systemctl is-system-running 2>&1); failed: $(systemctl --failed --no-legend --plain | cut -d' ' -f1 | tr '\n' ' ')" \
	sh -c "systemctl is-system-running | grep -qx running"
info "release: $(grep -c . /proc/modules) modules loaded, /lib/modules/$KREL: $(du -sh "/lib/modules/$KREL" | cut -f1), uptime $(uptime_s)s"
journalctl -b -o short-monotonic >"$R/journal.txt" 2>&1
dmesg >"$R/dmesg.txt" 2>&1
echo done >"$R/check.done"
