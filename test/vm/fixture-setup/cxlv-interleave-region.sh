#!/bin/bash
# vm: --mem 4G --memmap 2G$0x100000000
# An x4 cxl_virt interleave set (ways=4, host_bridges=2: 2 host bridges x 2
# root ports, 4K granularity) on 2G of the memmap= range at 4 GiB, all four
# memdevs bound, with a pmem region over the whole set (its memdevs in the
# module's position order) and an fsdax namespace, made with the stock tools.
set_ready() { [ -n "$(cat /sys/bus/cxl_virt/devices/cxlv0/memdev)" ] && all_memdevs_bound 4; }
step "load the CXL stack and cxl_virt" load_stack
step "create the x4 set" sh -c 'echo memstart=0x100000000,memsize=0x80000000,cxltype=3,pmem=1,ways=4,host_bridges=2 >/sys/kernel/debug/cxl/cxlv/create'
step "wait for the four memdevs" wait_for 60 set_ready
set_region() {
	local d=/sys/bus/cxl_virt/devices/cxlv0
	# shellcheck disable=SC2046 # the memdevs, one word each, in position order
	cxl create-region -m -d "$(cat $d/decoder)" -t pmem -w 4 -g "$(cat $d/granularity)" $(cat $d/memdev)
}
step "create the pmem region over the set" set_region
step "create fsdax namespace" ndctl create-namespace -r region0 -m fsdax
