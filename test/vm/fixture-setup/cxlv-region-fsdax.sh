#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000
# cxlv-bare (one cxl_virt device, pmem=1, 512M of the memmap= range at
# 4 GiB, memdev bound) plus a pmem region over all its 256M and an fsdax
# namespace (/dev/pmem0), made with the stock tools.
# shellcheck source=test/vm/fixture-setup/cxlv-bare.sh
. "$CXLV/test/vm/fixture-setup/cxlv-bare.sh"
step "create pmem region" cxl create-region -m -d decoder0.0 -t pmem mem0
step "create fsdax namespace" ndctl create-namespace -r region0 -m fsdax
