#!/bin/bash
# vm: --hide-hypervisor --cxl --cxl-volatile --numa --mem 2G
# kernels: 6.12
# QEMU 10's type-3 device with a volatile memdev (512M ram + 512M pmem; its
# window is CPU-less node 1) and a RAM region over all the ram, made with
# the plain sysfs sequence under auto_online_blocks online_movable, which
# is then put back: dax0.0 held by kmem, its blocks online movable.
# shellcheck source=test/vm/fixture-setup/qemu-ram-bare.sh
. "$CXLV/test/vm/fixture-setup/qemu-ram-bare.sh"
# shellcheck source=test/vm/fixture-setup/ram-region.sh
. "$CXLV/test/vm/fixture-setup/ram-region.sh"
step "RAM region, memory online movable" ram_region
step "dax0.0 is system-ram, all blocks online, movable" json_has \
	'.[0].mode == "system-ram" and .[0].online_memblocks == .[0].total_memblocks and .[0].movable' daxctl list
