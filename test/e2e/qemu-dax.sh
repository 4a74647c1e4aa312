#!/bin/bash
# vm: --cxl --hide-hypervisor --mem 2G
# sets: smoke
# QEMU's emulated CXL type-3 device with the stock tools: enumerate, create a
# pmem region and a devdax namespace, and check data written through
# /dev/daxX.Y reads back; then reconfigure the namespace to fsdax
# (/dev/pmemN): raw block data check, xfs and ext4 mounted with -o dax: files
# written, synced, unmounted, remounted and read back.
. "$CXLV/test/vm/guest/lib.sh"

step "load CXL stack" load_stack --qemu
step "cxl list shows mem0 and root decoder0.0" json_has \
	'(.. | objects | select(.memdev? == "mem0")) and (.. | objects | select(.decoder? == "decoder0.0"))' \
	cxl list -M -D
step "create pmem region" cxl create-region -m -d decoder0.0 -t pmem mem0
region=$(cxl list -R | jq -r '.[0].region')
[ "$region" = region0 ] || fail "expected region0, cxl list -R says $region"
step "create devdax namespace" ndctl create-namespace -r "$region" -m devdax
step "dax0.0 exists" test -c /dev/dax0.0
check_devdax /dev/dax0.0
namespace=$(ndctl list -N -r "$region" | jq -r '.[0].dev')
step "reconfigure $namespace to fsdax" ndctl create-namespace -f -e "$namespace" -m fsdax
step "pmem0 exists" test -b /dev/pmem0
step "block pattern on /dev/pmem0" check_pattern /dev/pmem0 21 --size 16M
check_dax_fs /dev/pmem0 xfs
check_dax_fs /dev/pmem0 ext4
