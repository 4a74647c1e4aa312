#!/bin/bash
# vm: --mem 3G --numa-split 2G --memmap 1G$0x100000000
# kernels: 6.1
# Linux 6.1 (no RAM regions): one cxl_virt device, pmem=1, 1G of the
# memmap= range at 4 GiB (node 1), memdev bound, no region; the drivers
# that make a pmem region's memory RAM (dax_pmem, device_dax, kmem) loaded.
step "load the CXL, nvdimm and dax drivers (kmem too)" /sbin/modprobe -a cxl_acpi cxl_pci cxl_mem cxl_pmem libnvdimm nd_pmem dax_pmem device_dax kmem
step "insmod cxl_virt" insmod "$CXLV/kmod/build/$KVER/cxl_virt.ko"
step "create cxlv0" sh -c 'echo memstart=0x100000000,memsize=0x40000000,cxltype=3,pmem=1 >/sys/kernel/debug/cxl/cxlv/create'
step "wait for the memdev" wait_for 30 all_memdevs_bound
