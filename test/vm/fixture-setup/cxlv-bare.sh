#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000
# One cxl_virt device (pmem=1, 512M of the memmap= range at 4 GiB) with its
# memdev bound by cxl_mem and no region.
load_drivers() {
	local m
	for m in cxl_acpi cxl_pci cxl_mem cxl_pmem libnvdimm nd_pmem dax_pmem device_dax; do
		/sbin/modprobe "$m" || return
	done
}
cxlv0_memdev_bound() { [ -n "$(cat /sys/bus/cxl_virt/devices/cxlv0/memdev)" ] && all_memdevs_bound; }
step "load the CXL drivers (no CXL device yet)" load_drivers
step "insmod cxl_virt" insmod "$CXLV/kmod/build/$KVER/cxl_virt.ko"
step "create cxlv0" sh -c 'echo memstart=0x100000000,memsize=0x20000000,cxltype=3,pmem=1 >/sys/kernel/debug/cxl/cxlv/create'
step "wait for the memdev" wait_for 30 cxlv0_memdev_bound
