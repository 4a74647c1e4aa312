#!/bin/bash
# vm: --mem 3G --numa-split 2G --memmap 1G$0x100000000
# kernels: 6.1
# cxlv-kmem-bare plus its memory as RAM the way ndctl users do it on 6.1,
# with the stock tools (not cxlvctl): a pmem region, a devdax namespace and
# daxctl reconfigure-device --mode=system-ram: dax0.0 held by kmem, its
# blocks online in ZONE_MOVABLE on node 1.
# shellcheck source=test/vm/fixture-setup/cxlv-kmem-bare.sh
. "$CXLV/test/vm/fixture-setup/cxlv-kmem-bare.sh"
step "create pmem region" cxl create-region -m -d decoder0.0 -t pmem mem0
step "create devdax namespace" ndctl create-namespace -r region0 -m devdax
step "dax0.0 to system-ram, movable" daxctl reconfigure-device --mode=system-ram dax0.0
step "dax0.0 is system-ram, all blocks online, movable" json_has \
	'.[0].mode == "system-ram" and .[0].online_memblocks == .[0].total_memblocks and .[0].movable' daxctl list
