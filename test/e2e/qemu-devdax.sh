#!/bin/bash
# vm: --hide-hypervisor --cxl --mem 2G
# QEMU's emulated CXL type-3 device: enumerate, create a pmem region, a devdax
# namespace, and check data written through /dev/daxX.Y reads back.
. "$CXLV/test/vm/guest/lib.sh"

step "load CXL stack" load_cxl_stack
step "cxl list shows mem0 and root decoder0.0" json_has \
	'(.. | objects | select(.memdev? == "mem0")) and (.. | objects | select(.decoder? == "decoder0.0"))' \
	cxl list -M -D
step "create pmem region" cxl create-region -m -d decoder0.0 -t pmem mem0
region=$(cxl list -R | jq -r '.[0].region')
[ "$region" = region0 ] || fail "expected region0, cxl list -R says $region"
step "create devdax namespace" ndctl create-namespace -r "$region" -m devdax
step "dax0.0 exists" test -c /dev/dax0.0
check_devdax /dev/dax0.0
