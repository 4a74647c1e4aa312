#!/bin/bash
# vm: --mem 3G --numa-split 2G --memmap 1G$0x100000000
# kernels: 6.12
# cxlvctl RAM regions on a cxl_virt pmem=0 device (Linux 6.12; node 1 is the
# memmap'd high RAM, so the region's memory becomes CPU-less node 1):
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
step "load the CXL stack with dax_cxl and kmem" load_ram_stack insmod "$CXLV_KO"
step "cxlvctl create a pmem=0 device" "$CXLVCTL" create --memstart 0x100000000 --size 1G --wait
step "mem0 has volatile capacity only" json_has '.[0].ram_size > 0 and (.[0].pmem_size // 0) == 0' cxl list -M

ram_scenarios --device cxlv0
if [ -z "$RAM_REGION_LEFT" ]; then
	step "remove cxlv0 after the regions are gone" "$CXLVCTL" remove cxlv0
fi
