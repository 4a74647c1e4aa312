#!/bin/bash
# vm: --mem 3G --numa-split 2G --memmap 1G$0x100000000
# kernels: 6.12
# cxlv-ram-bare plus a RAM region over all its volatile capacity, made with
# the plain sysfs sequence (not cxlvctl) under auto_online_blocks
# online_movable, which is then put back: dax0.0 held by kmem, its blocks
# online in ZONE_MOVABLE on node 1.
# shellcheck source=test/vm/fixture-setup/cxlv-ram-bare.sh
. "$CXLV/test/vm/fixture-setup/cxlv-ram-bare.sh"
# shellcheck source=test/vm/fixture-setup/ram-region.sh
. "$CXLV/test/vm/fixture-setup/ram-region.sh"
step "RAM region, memory online movable" ram_region
step "dax0.0 is system-ram, all blocks online, movable" json_has \
	'.[0].mode == "system-ram" and .[0].online_memblocks == .[0].total_memblocks and .[0].movable' daxctl list
