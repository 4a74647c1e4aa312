#!/bin/bash
# vm: --cxl --mem 2G
# QEMU's emulated CXL type-3 device: pmem region, fsdax namespace (/dev/pmemN),
# raw block data check, then xfs and ext4 mounted with -o dax: files written,
# synced, unmounted, remounted and read back.
. "$CXLV/test/vm/guest/lib.sh"

step "load CXL stack" load_cxl_stack
step "create pmem region" cxl create-region -m -d decoder0.0 -t pmem mem0
step "create fsdax namespace" ndctl create-namespace -r region0 -m fsdax
step "pmem0 exists" test -b /dev/pmem0
step "block pattern on /dev/pmem0" check_pattern /dev/pmem0 21 --size 16M
check_dax_fs /dev/pmem0 xfs
check_dax_fs /dev/pmem0 ext4
