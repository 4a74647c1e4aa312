#!/usr/bin/env bash
# make demo: boots the test VM with a memmap= reservation on Debian 12's
# stock 6.1 kernel, then with no kernel argument at all on trixie-backports'
# 7.3 (with trixie's user space, from the trixie root), where the device is
# made on RAM borrowed from the running kernel, and shows cxl_virt and
# cxlvctl working end to end (the guest half is test/vm/guest/demo.sh); then boots Debian 13's 6.12 and
# shows a RAM region becoming NUMA memory (test/vm/guest/demo-ram.sh). Needs bin/cxlvctl and
# kmod/build/<KVER>/cxl_virt.ko: the Makefile's demo target builds them first.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=test/vm/common.sh
. test/vm/common.sh

vm_opts=(--mem 3G --memmap '1G$0x100000000' --timeout 600)

# kernel X.Y: the suite's release of series X.Y (scripts/guest-kernels.sh).
kernel() {
	bash scripts/guest-kernels.sh --suite | awk -v s="$1." 'index($0, s) == 1' | grep . ||
		die "no $1 guest kernel installed: run 'make deps'"
}
kver61=$(kernel 6.1) kver73=$(kernel 7.3) kver612=$(kernel 6.12)
echo "cxlv demo: booting $kver61 with memmap= in QEMU (TCG, about a minute)..."
bash test/vm/run-vm.sh --kver "$kver61" "${vm_opts[@]}" --out "test/vm/out/demo-$kver61" -- test/vm/guest/demo.sh
echo "cxlv demo: booting $kver73 with no kernel argument (about a minute)..."
# 8 GiB: 6 whole GiBs above 4 GiB for the borrow to try. The boot leaves
# unmovable pages (page tables) at random places there; with 5 GiB, all
# three GiBs held one in some boots.
bash test/vm/run-vm.sh --kver "$kver73" --mem 8G --timeout 600 --out "test/vm/out/demo-$kver73" -- test/vm/guest/demo.sh
echo "cxlv demo: booting $kver612 with node 1 = the reserved range (about a minute)..."
exec bash test/vm/run-vm.sh --kver "$kver612" "${vm_opts[@]}" --numa-split 2G \
	--out test/vm/out/demo-ram -- test/vm/guest/demo-ram.sh
