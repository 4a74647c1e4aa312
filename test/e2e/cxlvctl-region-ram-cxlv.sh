#!/bin/bash
# vm: --mem 3G --numa-split 2G --memmap 1G$0x100000000
# kernels: 6.1 6.12 7.3
# cxlvctl RAM regions on a cxl_virt pmem=0 device (Linux 6.12; node 1 is the
# memmap'd high RAM, so the region's memory becomes CPU-less node 1), or on
# a kernel without RAM regions (6.1: no create_ram_region) on a pmem=1
# device through a pmem region, a devdax namespace and kmem, after a pmem=0
# device's --type ram is refused with one line naming the fix:
# region create --type ram onlines the memory movable (MemTotal grows by the
# region, auto_online_blocks is restored), list --json agrees with daxctl
# list and numactl -H, a pattern written under numactl --membind reads back
# from the node, a plain remove is refused with the advice, destroy offlines
# and gives the memory back (MemTotal as before); --online none and normal;
# a destroy that cannot offline (kernel slab on a ZONE_NORMAL block) fails
# with one line and changes nothing. Prints TIME lines for create/destroy.
#   cxlvctl-region-ram-cxlv.sh [CXLVCTL]  (default: bin/cxlvctl)
# shellcheck source=test/vm/guest/cxlv.sh
. "$CXLV/test/vm/guest/cxlv.sh"
# shellcheck source=test/vm/guest/region-state.sh
. "$CXLV/test/vm/guest/region-state.sh"
# shellcheck source=test/e2e/cxlvctl-region-ram-lib.sh
. "$CXLV/test/e2e/cxlvctl-region-ram-lib.sh"

ram_setup "${1:-}"
step "load the CXL stack with dax_cxl and kmem" load_stack --ram
step "cxlvctl create a pmem=0 device" "$CXLVCTL" create --memstart 0x100000000 --size 1G --wait
step "mem0 has volatile capacity only" json_has '.[0].ram_size > 0 and (.[0].pmem_size // 0) == 0' cxl list -M

# refused_without_ram_regions DEV: exit 4, one line: the kernel lacks RAM
# regions and only a pmem device's memory becomes RAM here.
refused_without_ram_regions() {
	local out rc=0
	out=$("$CXLVCTL" region create --device "$1" --type ram 2>&1) || rc=$?
	echo "$out"
	[ "$rc" = 4 ] && [ "$(grep -c . <<<"$out")" = 1 ] &&
		has 'kernel too old: RAM regions need Linux 6.3+ (create_ram_region missing)' <<<"$out" && has -e '--pmem' <<<"$out"
}
if ! has_ram_regions; then
	before=$(ram_state)
	step "no RAM regions: --type ram on a pmem=0 device is refused" refused_without_ram_regions cxlv0
	step "and changed nothing" ram_state_is "$before"
	step "remove the pmem=0 device" "$CXLVCTL" remove cxlv0
	step "cxlvctl create a pmem=1 device" "$CXLVCTL" create --memstart 0x100000000 --size 1G --pmem --wait
fi
dev=$(ls /sys/bus/cxl_virt/devices)

ram_scenarios --device "$dev"
if [ -z "$RAM_REGION_LEFT" ]; then
	step "remove $dev after the regions are gone" "$CXLVCTL" remove "$dev"
fi
