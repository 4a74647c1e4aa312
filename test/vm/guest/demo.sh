#!/bin/bash
# Guest half of test/demo.sh: what a user does with cxlv, narrated. A
# memmap= range, or on a guest booted without one 1 GiB of System RAM
# borrowed from the running kernel, becomes a cxl_virt device; cxlvctl makes a region, an fsdax
# namespace and a DAX-mounted XFS in one command; data goes in and comes back
# after a remount; a devdax namespace takes a pattern through mmap; the
# stock tools show the same device; everything is taken down in order.
# shellcheck source=test/vm/guest/cxlv.sh
. "$CXLV/test/vm/guest/cxlv.sh"

MNT=/mnt/cxl

memmap=$(grep -o 'memmap=[^ ]*' /proc/cmdline || true)
if [ -n "$memmap" ]; then
	say "0. This guest runs the stock Debian kernel $(uname -r), booted with $memmap"
else
	say "0. This guest runs the stock Debian kernel $(uname -r), booted with no kernel argument: nothing reserved, so cxlvctl borrows RAM"
fi
show cxlvctl ranges
show grep MemTotal /proc/meminfo

say "1. Load the stock CXL stack and the cxl_virt module"
load_stack
show lsmod

say "2. Make a CXL type-3 device (pmem) on 1 GiB (the reserved range, else borrowed), and wait for cxl_pci/cxl_mem to bind it"
show cxlvctl create --size 1G --pmem
show cxl list -M -u
show grep MemTotal /proc/meminfo

say "3. Region, fsdax namespace, XFS and a DAX mount, in one command"
mkdir -p "$MNT"
show cxlvctl region create --device cxlv0 --namespace fsdax --fs xfs --mount "$MNT"
show grep "$MNT" /proc/mounts

say "4. Write data, unmount, drop caches, mount again, read it back"
echo "hello from cxl_virt memory, written at $(date -u +%T)" >"$MNT/hello.txt"
show "$PATCHECK" write --seed 42 --size 64M "$MNT/data.bin"
show sync
show umount "$MNT"
echo 3 >/proc/sys/vm/drop_caches
show mount -o dax "/dev/$(cxlvctl list --json | jq -r '.. | .blockdev? // empty' | head -1)" "$MNT"
show cat "$MNT/hello.txt"
show "$PATCHECK" verify --seed 42 "$MNT/data.bin"
show df -h "$MNT"

say "5. The linked view: device -> memdev -> root decoder -> region -> nd region -> namespace -> /dev"
show cxlvctl list
say "   ...and what the stock tools see"
show cxl list -R -D -u
show ndctl list -N -u

say "6. Take it down in order, then a devdax namespace on a new region with a pattern through mmap"
show umount "$MNT"
show cxlvctl region destroy --force region0
show cxlvctl region create --device cxlv0 --namespace devdax
dax=/dev/$(cxlvctl list --json | jq -r '.. | .chardev? // empty' | head -1)
show "$PATCHECK" write --mmap --seed 7 --size 256M "$dax"
show "$PATCHECK" verify --mmap --seed 7 --size 256M "$dax"

say "7. A device with a region is refused, remove --force tears down namespace, region and DPA first"
printf '$ cxlvctl remove cxlv0\n'
if cxlvctl remove cxlv0; then
	fail "remove of a busy device succeeded"
fi
if [ -n "$memmap" ]; then
	show cxlvctl remove --force cxlv0
else
	say "8. The borrowed range stays out of the kernel's hands until asked: remove --release gives it back"
	show cxlvctl remove --force --release cxlv0
	show grep MemTotal /proc/meminfo
fi
show cxlvctl ranges
show cxlvctl list
say "Demo done: a cxl_virt device, a region, fsdax + XFS with DAX and devdax, data read back intact."
