#!/bin/bash
# vm: --mem 4G --memmap 2G$0x100000000
# kernels: 7.3
# A partitioned interleave set on 7.3: cxlv0, an x2 set across two host
# bridges (2G at 4 GiB, granularity 4096) born with ram_size=1G, so each
# memdev has 512 MiB of RAM then 256 MiB of pmem and the window splits into
# a volatile and a persistent root window, a root decoder each. A RAM region
# from the first (its dax device as the kernel leaves it) and a pmem region
# from the second with an fsdax namespace, both made with the stock tools.
set_dir=/sys/bus/cxl_virt/devices/cxlv0
set_bound() { [ "$(wc -w <$set_dir/memdev)" = 2 ] && all_memdevs_bound; }
step "load the CXL drivers" /sbin/modprobe -a cxl_acpi cxl_pci cxl_mem cxl_pmem libnvdimm nd_pmem dax_pmem device_dax dax_cxl
step "insmod cxl_virt" insmod "$CXLV/kmod/build/$KVER/cxl_virt.ko"
step "create cxlv0 (x2 across 2, ram_size=1G)" sh -c 'echo memstart=0x100000000,memsize=0x80000000,cxltype=3,pmem=1,ways=2,host_bridges=2,granularity=4096,ram_size=0x40000000 >/sys/kernel/debug/cxl/cxlv/create'
step "wait for the two memdevs" wait_for 30 set_bound
read -ra mems <$set_dir/memdev
read -r rroot proot <$set_dir/decoder
step "create the RAM region" cxl create-region -m -t ram -d "$rroot" -w 2 -g 4096 "${mems[@]}"
step "create the pmem region" cxl create-region -m -t pmem -d "$proot" -w 2 -g 4096 "${mems[@]}"
step "create an fsdax namespace" ndctl create-namespace -r region1 -m fsdax
