#!/usr/bin/env bash
# make demo: boots the test VM and shows the product working end to end.
#
# The flow runs on QEMU's emulated CXL type-3 device with the stock tools
# until the cxl_virt module and cxlvctl take over: switching means a new
# guest script and VM options below (e.g. --memmap for cxl_virt's range).
set -euo pipefail
cd "$(dirname "$0")/.."

guest_script=test/vm/guest/demo-qemu.sh
vm_opts=(--cxl --mem 2G --timeout 600)

echo "cxlv demo: booting $(dpkg-query -W -f='${Version}' linux-image-amd64 2>/dev/null | sed 's/^/linux-image-amd64 /') in QEMU (TCG, takes ~30 s)..."
out=test/vm/out/demo
exec bash test/vm/run-vm.sh "${vm_opts[@]}" --out "$out" -- "$guest_script"
