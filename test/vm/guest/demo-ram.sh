#!/bin/bash
# Guest half of test/demo.sh's last boot, on Debian 13's 6.12 kernel: the same
# module and CLI, and what 6.1 cannot do: a volatile cxl_virt device becomes
# a RAM region that kmem onlines as system memory, here the guest's
# memory-only NUMA node 1 (the memmap= range is that node's whole RAM).
# shellcheck source=test/vm/guest/cxlv.sh
. "$CXLV/test/vm/guest/cxlv.sh"

say "0. Debian's $(uname -r), booted with $(grep -o 'memmap=[^ ]*' /proc/cmdline); node 1 has no memory yet"
show numactl -H

say "1. Load the stock CXL stack, dax_cxl and kmem, and the cxl_virt module built for this kernel"
load_stack --ram --pmem

say "2. A volatile (pmem=0) device on the reserved range"
show cxlvctl create --memstart 0x100000000 --size 1G
show cxl list -M -u

say "3. A RAM region: dax_cxl makes a dax device, kmem onlines it (movable, so it can be given back)"
show grep MemTotal /proc/meminfo
show cxlvctl region create --device cxlv0 --type ram
show grep MemTotal /proc/meminfo
show numactl -H
show cxlvctl list
show daxctl list -u

say "4. A program bound to node 1 writes 64 MiB and another reads it back"
mkdir -p /mnt/n1 && mount -t tmpfs -o size=80m tmpfs /mnt/n1
show numactl --membind=1 "$PATCHECK" write --seed 5 --size 64M /mnt/n1/data
show numactl --membind=1 "$PATCHECK" verify --seed 5 --size 64M /mnt/n1/data
show grep -E 'MemUsed|Shmem:' /sys/devices/system/node/node1/meminfo
umount /mnt/n1

say "5. The device is busy while its memory is online; destroy offlines it and gives it back"
printf '$ cxlvctl remove cxlv0\n'
if cxlvctl remove cxlv0; then
	fail "remove of a device with online memory succeeded"
fi
region=$(cxlvctl list --json | jq -r '[.. | .region? // empty][0]')
show cxlvctl region destroy --force "$region"
show grep MemTotal /proc/meminfo
show cxlvctl remove cxlv0
show rmmod cxl_virt
say "Demo done on $(uname -r): a cxl_virt RAM region as NUMA node 1, data read back, memory given back."
