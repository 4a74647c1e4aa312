#!/bin/bash
# vm: --hide-hypervisor --cxl --cxl-volatile --numa --mem 2G
# kernels: 6.12 7.3
# cxlvctl RAM regions on QEMU 10's type-3 device with a volatile memdev
# (512 MiB ram + 512 MiB pmem; Linux 6.12; the CFMWS window becomes CPU-less
# node 1): region create --type ram onlines the memory movable (MemTotal
# grows by the region, auto_online_blocks restored), list --json agrees with
# daxctl list and numactl -H, a 16 MiB pattern under numactl --membind reads
# back from the node (QEMU's memory is emulated MMIO: kept small), destroy
# offlines and gives it back (MemTotal as before); --online none and normal;
# a destroy that cannot offline fails with one line and changes nothing.
#   cxlvctl-region-ram-qemu.sh [CXLVCTL]  (default: bin/cxlvctl)
. "$CXLV/test/vm/guest/lib.sh"
# shellcheck source=test/vm/guest/region-state.sh
. "$CXLV/test/vm/guest/region-state.sh"
# shellcheck source=test/e2e/cxlvctl-region-ram-lib.sh
. "$CXLV/test/e2e/cxlvctl-region-ram-lib.sh"

ram_setup "${1:-}"
step "load the CXL stack with dax_cxl and kmem" load_stack --qemu --ram
step "mem0 has a volatile partition" json_has '.[0].ram_size > 0' cxl list -M
ram_scenarios --memdev mem0
