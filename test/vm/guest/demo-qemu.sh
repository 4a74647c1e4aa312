#!/bin/bash
# Guest half of test/demo.sh: the user-visible flow on QEMU's emulated CXL
# type-3 device with the stock tools (until cxl_virt exists): enumerate,
# region, fsdax namespace, xfs mounted with -o dax, a file written and read
# back after a remount.
. "$CXLV/test/vm/guest/lib.sh"

say() { printf '\n==> %s\n' "$*"; }
# show CMD...: prints the command line, then runs it (failure ends the demo).
show() {
	printf '$ %s\n' "$*"
	"$@"
}

say "Device: QEMU's emulated CXL type-3 device (512 MiB persistent memory, serial 0x5157)."
echo "    (The cxl_virt module is not there yet: this demo uses QEMU's device and the stock tools.)"

say "1. Load the stock CXL stack of $(uname -r) and enumerate the device"
show load_cxl_stack
show cxl list -M -D

say "2. Create a persistent-memory region on the root decoder"
show cxl create-region -m -d decoder0.0 -t pmem mem0

say "3. Create an fsdax namespace on it: a /dev/pmem block device"
show ndctl create-namespace -r region0 -m fsdax
show ls -l /dev/pmem0

say "4. Make an XFS filesystem and mount it with -o dax (loads and stores go straight to the device)"
show mkfs.xfs -q -f -m reflink=0 /dev/pmem0
mkdir -p /mnt/cxl
show mount -o dax /dev/pmem0 /mnt/cxl
show grep /mnt/cxl /proc/mounts

say "5. Write a file, unmount, drop caches, remount, read it back"
echo "hello from CXL memory, written at $(date -u +%T)" >/mnt/cxl/hello.txt
show "$PATCHECK" write --seed 42 --size 32M /mnt/cxl/data.bin
show sync
show umount /mnt/cxl
echo 3 >/proc/sys/vm/drop_caches
show mount -o dax /dev/pmem0 /mnt/cxl
show cat /mnt/cxl/hello.txt
show "$PATCHECK" verify --seed 42 /mnt/cxl/data.bin
show df -h /mnt/cxl

say "6. The resulting topology"
show cxl list -R -u
show ndctl list -N -u
show umount /mnt/cxl
say "Demo done: region, namespace and a DAX filesystem on CXL memory, data read back intact."
