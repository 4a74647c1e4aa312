#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000
# Teardown while the stock drivers are still probing: remove right after
# create (cxl_pci probes asynchronously and talks to the emulator), rmmod
# right after create, and remove just as cxl_mem binds. Each must leave no
# device, iomem resource or PCI domain behind, and a later create must work.
. /cxlv/test/vm/guest/cxlv.sh

spec="memstart=0x100000000,memsize=$((1 << 30)),cxltype=3,pmem=1"

assert_gone() {
	expect_eq "devices after $1" "$(ls /sys/bus/cxl_virt/devices 2>/dev/null | wc -l)" 0
	grep -q "cxlv\|cxl_virt" /proc/iomem && fail "iomem not clean after $1"
	ls /sys/bus/pci/devices | has '^1[0-9a-f]\{4\}:' && fail "PCI domain left after $1"
	expect_eq "memdevs after $1" "$(cxl_count -M)" 0
}

load_stack
for i in 1 2 3 4 5; do
	dev=$(create "$spec")
	remove "$dev"
	assert_gone "immediate remove $i"
done
for delay in 0.05 0.1 0.2 0.3; do
	dev=$(create "$spec")
	sleep "$delay"
	remove "$dev"
	assert_gone "remove after ${delay}s"
done
for i in 1 2 3; do
	create "$spec" >/dev/null
	rmmod cxl_virt
	assert_gone "rmmod right after create $i"
	insmod "$CXLV_KO"
done
dev=$(create "$spec")
wait_ready "$dev"
expect_eq state "$(attr "$dev" state)" ready
remove "$dev"
rmmod cxl_virt
no_kernel_complaints
say PASS
