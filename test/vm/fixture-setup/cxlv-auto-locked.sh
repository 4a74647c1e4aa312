#!/bin/bash
# vm: --mem 4G --memmap 2G$0x100000000
# kernels: 7.3
# Regions committed before the OS looks, locked, on 7.3: cxlv0, an x2 set
# across two host bridges (2G at 4 GiB, granularity 4096) born with
# ram_size=1G, auto_region=1 and locked=1, so every decoder from the host
# bridges to the endpoints is committed with Lock On Commit and the kernel
# assembled a RAM region (its dax device as dax_cxl leaves it, kmem not
# loaded) and a pmem region at probe, no user step; both locked.
set_dir=/sys/bus/cxl_virt/devices/cxlv0
regions_bound() { [ "$(ls -d /sys/bus/cxl/devices/region* 2>/dev/null | wc -l)" = 2 ] && [ -e /sys/bus/dax/devices/dax0.0 ] && ndctl list -R | grep -q region; }
step "load the CXL drivers" /sbin/modprobe -a cxl_acpi cxl_pci cxl_mem cxl_pmem libnvdimm nd_pmem dax_pmem device_dax dax_cxl
step "insmod cxl_virt" insmod "$CXLV/kmod/build/$KVER/cxl_virt.ko"
step "create cxlv0 (x2 across 2, ram_size=1G, auto_region, locked)" sh -c 'echo memstart=0x100000000,memsize=0x80000000,cxltype=3,pmem=1,ways=2,host_bridges=2,granularity=4096,ram_size=0x40000000,auto_region=1,locked=1 >/sys/kernel/debug/cxl/cxlv/create'
step "wait for both regions, assembled by the kernel" wait_for 60 regions_bound
step "both regions are locked" sh -c 'for r in /sys/bus/cxl/devices/region*; do [ "$(cat $r/locked)" = 1 ] || exit 1; done'
