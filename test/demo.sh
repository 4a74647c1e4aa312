#!/usr/bin/env bash
# make demo: boots the test VM on the stock Debian kernel with a memmap=
# reservation and shows cxl_virt and cxlvctl working end to end (the guest
# half is test/vm/guest/demo.sh). Needs bin/cxlvctl and kmod/cxl_virt.ko:
# the Makefile's demo target builds both first.
set -euo pipefail
cd "$(dirname "$0")/.."

vm_opts=(--mem 3G --memmap '1G$0x100000000' --timeout 600)

echo "cxlv demo: booting linux-image-amd64 $(dpkg-query -W -f='${Version}' linux-image-amd64) in QEMU (TCG, about a minute)..."
exec bash test/vm/run-vm.sh "${vm_opts[@]}" --out test/vm/out/demo -- test/vm/guest/demo.sh
