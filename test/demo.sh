#!/usr/bin/env bash
# make demo: boots the test VM on the stock Debian kernel with a memmap=
# reservation and shows cxl_virt and cxlvctl working end to end (the guest
# half is test/vm/guest/demo.sh), then boots Debian's 6.12 kernel and shows a
# RAM region becoming NUMA memory (test/vm/guest/demo-ram.sh). Needs
# bin/cxlvctl and kmod/build/<KVER>/cxl_virt.ko: the Makefile's demo target
# builds them first.
set -euo pipefail
cd "$(dirname "$0")/.."

vm_opts=(--mem 3G --memmap '1G$0x100000000' --timeout 600)

read -r kver61 kver612 < <(bash scripts/guest-kernels.sh | xargs)
echo "cxlv demo 1/2: booting $kver61 in QEMU (TCG, about a minute)..."
bash test/vm/run-vm.sh --kver "$kver61" "${vm_opts[@]}" --out test/vm/out/demo -- test/vm/guest/demo.sh
echo "cxlv demo 2/2: booting $kver612 with node 1 = the reserved range (about a minute)..."
exec bash test/vm/run-vm.sh --kver "$kver612" "${vm_opts[@]}" --numa-split 2G \
	--out test/vm/out/demo-ram -- test/vm/guest/demo-ram.sh
