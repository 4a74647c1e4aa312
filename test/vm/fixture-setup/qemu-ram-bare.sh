#!/bin/bash
# vm: --hide-hypervisor --cxl --cxl-volatile --numa --mem 2G
# kernels: 6.12
# QEMU 10's type-3 device with a volatile memdev (512M ram + 512M pmem),
# enumerated, dax_cxl and kmem loaded, no region.
step "load the CXL stack with dax_cxl and kmem" /sbin/modprobe -a cxl_acpi cxl_pci cxl_mem dax_cxl kmem device_dax
step "wait for mem0" wait_for 30 all_memdevs_bound
