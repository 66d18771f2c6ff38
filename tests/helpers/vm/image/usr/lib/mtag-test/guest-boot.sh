#!/bin/sh
# guest-boot.sh -- mtag-test.service: mount the host's share, wait for the
# boot to finish, run the share's "run" script, power off.
S=/mnt/mtagtest
mkdir -p $S
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 mtagtest $S 2>/dev/null; then
	modprobe -q 9pnet_virtio 2>/dev/null; modprobe -q 9p 2>/dev/null
	if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 mtagtest $S; then
		echo "mtag-test: no 9p share 'mtagtest': nothing to run"
		exit 0
	fi
fi
if [ ! -x $S/run ]; then
	echo "mtag-test: share has no executable 'run': nothing to run"
	exit 0
fi
timeout 120 systemctl is-system-running --wait >/dev/null 2>&1
echo "mtag-test: boot finished after $(cut -d' ' -f1 /proc/uptime)s: $(systemctl is-system-running 2>&1)"
mkdir -p $S/results
$S/run
echo "mtag-test: run exited with status $? at $(cut -d' ' -f1 /proc/uptime)s"
sync
[ -e $S/keep-running ] && exit 0
# The root disk is a throw-away snapshot and the results are on the share:
# power off at once.
systemctl poweroff -ff
