#!/bin/bash
# vm: --mem 4G --memmap 2G$0x100000000
# kernels: 7.3
# An interleave set on 7.3: cxlv0, an x4 set across two host bridges of two
# root ports each (2G at 4 GiB, granularity 4096), its four memdevs bound;
# a pmem region over the set's window made with the stock tools in position
# order and a devdax namespace. One poisoned line injected on each memdev
# through debugfs (DPA 0x1000 + 0x40 x position), each memdev's poison list
# triggered with cxl_poison enabled in the global trace: the kernel's
# cxl_poison records give each DPA's HPA (its own interleave arithmetic),
# captured in debugfs/tracing/trace.
set_dir=/sys/bus/cxl_virt/devices/cxlv0
set_bound() { [ "$(wc -w <$set_dir/memdev)" = 4 ] && all_memdevs_bound; }
step "load the CXL drivers" /sbin/modprobe -a cxl_acpi cxl_pci cxl_mem cxl_pmem libnvdimm nd_pmem dax_pmem device_dax
step "insmod cxl_virt" insmod "$CXLV/kmod/build/$KVER/cxl_virt.ko"
step "create cxlv0 (x4 across 2)" sh -c 'echo memstart=0x100000000,memsize=0x80000000,cxltype=3,pmem=1,ways=4,host_bridges=2,granularity=4096 >/sys/kernel/debug/cxl/cxlv/create'
step "wait for the four memdevs" wait_for 30 set_bound
read -ra mems <$set_dir/memdev
step "create the pmem region" cxl create-region -m -t pmem -d "$(cat $set_dir/decoder)" -w 4 -g 4096 "${mems[@]}"
step "create a devdax namespace" ndctl create-namespace -r region0 -m devdax
trace=/sys/kernel/tracing
[ -e $trace/events ] || mount -t tracefs nodev $trace
step "enable cxl_poison" sh -c "echo 1 > $trace/events/cxl/cxl_poison/enable"
for p in 0 1 2 3; do
	dpa=$(printf '%#x' $((0x1000 + 0x40 * p)))
	step "inject DPA $dpa on ${mems[p]}" sh -c "echo $dpa > /sys/kernel/debug/cxl/${mems[p]}/inject_poison"
	step "trigger ${mems[p]}'s poison list" sh -c "echo 1 > /sys/bus/cxl/devices/${mems[p]}/trigger_poison_list"
done
mkdir -p "$OUT/fixture/debugfs/tracing"
step "capture the trace" cp $trace/trace "$OUT/fixture/debugfs/tracing/trace"
