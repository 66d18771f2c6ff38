#!/bin/bash
# guest-install.sh -- the release disk's install boot (tools/build-release-image),
# inside the guest: what an admin (or the Debian installer) does on an arm64
# machine, then the mtag kernel package installed with dpkg.
#   /dev/vda1  EFI system partition (FAT32, empty)
#   /dev/vda2  root (this system)
# The share has the flavour's linux-image .deb and its kernelrelease.
# Writes results/install.log and, when everything worked, results/install.done.
set -euo pipefail
S=/mnt/mtagtest
R=$S/results
mkdir -p "$R"
exec >"$R/install.log" 2>&1
set -x
T0=$(date +%s)
step() { set +x; echo "install-time $1 $(($(date +%s) - T0))s"; set -x; }
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
KREL=$(cat "$S/kernelrelease")
DEB=$(ls "$S"/linux-image-"$KREL"_*_arm64.deb)

# fstab by UUID, as the installer writes it; the ESP on /boot/efi.
root_uuid=$(blkid -s UUID -o value /dev/vda2)
esp_uuid=$(blkid -s UUID -o value /dev/vda1)
[ -n "$root_uuid" ] && [ -n "$esp_uuid" ]
cat >/etc/fstab <<EOF
# <file system> <mount point> <type> <options> <dump> <pass>
UUID=$root_uuid / ext4 errors=remount-ro 0 1
UUID=$esp_uuid /boot/efi vfat umask=0077 0 1
EOF
mkdir -p /boot/efi
mount /boot/efi

# initramfs-tools as Debian ships it (MODULES=most): the test image's
# MODULES=list set-up is for its -kernel boots only.
rm -f /etc/initramfs-tools/conf.d/mtag /usr/share/initramfs-tools/modules.d/mtag

# GRUB on the serial console (QEMU's PL011, as on many servers' BMC
# consoles), every boot message shown (no "quiet"), a short menu timeout.
mkdir -p /etc/default/grub.d
cat >/etc/default/grub.d/mtag-release-test.cfg <<'EOF'
GRUB_TIMEOUT=2
GRUB_CMDLINE_LINUX_DEFAULT=""
GRUB_CMDLINE_LINUX="console=ttyAMA0"
GRUB_TERMINAL=console
EOF

# The boot loader on the ESP at the removable-media path (EFI/BOOT/BOOTAA64.EFI):
# firmware without boot variables finds it; --no-nvram since this boot has
# no EFI runtime services (it came through -kernel).
grub-install --target=arm64-efi --efi-directory=/boot/efi --removable --no-nvram
update-grub
step grub

# The mtag kernel, the way an admin installs it.
dpkg -i "$DEB"
step dpkg

# What the next boot will find.
ls -l /boot /boot/efi/EFI/BOOT
[ -f "/boot/vmlinuz-$KREL" ] && [ -f "/boot/initrd.img-$KREL" ]
grep -E "^\s*(menuentry|linux|initrd)\s" /boot/grub/grub.cfg
grep -q "vmlinuz-$KREL" /boot/grub/grub.cfg
lsinitramfs "/boot/initrd.img-$KREL" | grep -E 'virtio_blk|/init$|zstd' || true
du -sh "/lib/modules/$KREL"
umount /boot/efi
sync
step done
echo ok >"$R/install.done"
