#!/bin/bash
# PID 1 of the bench guest (packed into the per-run overlay as /init).
# Mounts the repository (/cxlv, read-only) and the results share (/out) over
# virtio-9p, runs the guest script named in /etc/cxlv-run, stores its exit
# code, log and the kernel log in /out, and powers off.
export PATH=/cxlv/bin:/usr/sbin:/usr/bin HOME=/root TERM=dumb
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug

finish() {
	echo "$1" >/out/rc 2>/dev/null
	dmesg >/out/dmesg.txt 2>/dev/null
	echo "=== TEST-END rc=$1"
	sync
	umount /out 2>/dev/null
	poweroff -f
}

opts=trans=virtio,version=9p2000.L,msize=262144
/sbin/modprobe -a virtio_pci 9pnet_virtio 9p || finish 125
# cache=loose: pages of the read-only repository stay in the guest's page cache
# (exec'ing a 12 MB binary takes ~1-2 s per run with cache=none, ~0.05 s with).
mount -t 9p -o "$opts,ro,cache=loose" cxlv /cxlv || finish 125
mount -t 9p -o "$opts" out /out || finish 125

guest_script='' guest_args=() guest_boot=1
# shellcheck source=/dev/null
. /etc/cxlv-run # sets guest_script, guest_args and guest_boot
export OUT=/out CXLV=/cxlv KVER CXLV_BOOT=$guest_boot
KVER=$(uname -r)
cd /cxlv || finish 125
# No test runs on a CPU that corrupts RFLAGS (see the tool; run-vm.sh).
test/tools/bin/cx16-flags || finish 125
echo "=== TEST-BEGIN $guest_script ${guest_args[*]}"
bash "$guest_script" "${guest_args[@]}" </dev/null 2>&1 | tee /out/guest.log
finish "${PIPESTATUS[0]}"
