#!/bin/bash
# vm: --mem 3G --numa-split 2G --memmap 1G$0x100000000
# kernels: 6.12
# One cxl_virt pmem=0 device over the memmap'd 1G at 4 GiB (node 1 of
# --numa-split: CPU-less), its memdev bound, dax_cxl and kmem loaded, no
# region. Captured for the RAM region tests of region/ and cmd/cxlvctl
# (make fixtures).
ram_memdev_bound() { [ -n "$(cat /sys/bus/cxl_virt/devices/cxlv0/memdev)" ] && all_memdevs_bound; }
step "load the CXL stack with dax_cxl and kmem" /sbin/modprobe -a cxl_acpi cxl_pci cxl_mem dax_cxl kmem device_dax
step "insmod cxl_virt" insmod "$CXLV/kmod/build/$KVER/cxl_virt.ko"
step "create cxlv0 (pmem=0)" sh -c 'echo memstart=0x100000000,memsize=0x40000000,cxltype=3,pmem=0 >/sys/kernel/debug/cxl/cxlv/create'
step "wait for the memdev" wait_for 30 ram_memdev_bound
