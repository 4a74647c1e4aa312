#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000
# kernels: 6.12.118+deb13
# cxlv-region-fsdax on Debian 13's 6.12 with trixie's user space: ndctl 81
# on 6.12, which no other fixture has. The release, not the series: a bare
# 6.12 picks Debian 12's build (+deb12), listed first.
# shellcheck source=test/vm/fixture-setup/cxlv-region-fsdax.sh
. "$CXLV/test/vm/fixture-setup/cxlv-region-fsdax.sh"
