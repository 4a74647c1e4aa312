#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000
# kernels: 6.12
# One-node firmware (no SRAT) with a memmap= range at 4 GiB and nothing
# loaded: the MADT and memory map that cxlvctl node-tables reads.
step "one-node firmware: no SRAT" test ! -e /sys/firmware/acpi/tables/SRAT
