#!/bin/bash
# One boot of test/stress/borrow.sh: `cxlvctl create --size 1G --pmem` on a
# guest with no memmap= borrows 1 GiB of System RAM, a pattern written
# through a raw namespace over the device reads back, and `remove --force
# --release` gives the memory back. Exit 0 when all of it worked, 10 when
# the borrow was refused (its reason on the BORROW line), else a failure.
# shellcheck source=test/vm/guest/cxlv.sh
. "$CXLV/test/vm/guest/cxlv.sh"
# shellcheck source=test/vm/guest/region-state.sh
. "$CXLV/test/vm/guest/region-state.sh"
# shellcheck source=test/e2e/borrow-lib.sh
. "$CXLV/test/e2e/borrow-lib.sh"

region_setup
load_stack --pmem
say "DirectMap1G before: $(awk '/^DirectMap1G:/ { print $2 }' /proc/meminfo) kB"
if ! json=$("$CXLVCTL" create --size 1G --pmem --json 2>/tmp/create.err); then
	echo "BORROW refused: $(cat /tmp/create.err)"
	dmesg | grep "cxl_virt: borrow" || true
	exit 10
fi
dev=$(jq -r .device <<<"$json") start=$(jq -r .memstart <<<"$json")
echo "BORROW ok: $(jq -c '{device, memstart, memsize, borrowed}' <<<"$json")"
dmesg | grep "cxl_virt: borrow" || true
say "DirectMap1G after: $(awk '/^DirectMap1G:/ { print $2 }' /proc/meminfo) kB"
json=$("$CXLVCTL" region create --device "$dev" --namespace raw --json) || fail "region create --namespace raw"
blk=/dev/$(jq -r '.namespaces[0].blockdev' <<<"$json")
step "write 64 MiB of random data to $blk" dd if=/dev/urandom of=/tmp/pattern bs=1M count=64 status=none
step "write it at 512 MiB into $blk" dd if=/tmp/pattern of="$blk" bs=1M seek=512 oflag=direct status=none
step "read it back" dd if="$blk" of=/tmp/back bs=1M skip=512 count=64 iflag=direct status=none
step "the same" cmp /tmp/pattern /tmp/back
step "remove --force --release" "$CXLVCTL" remove --force --release "$dev"
step "System RAM again" system_ram_in "$start" $((1 << 30))
no_kernel_complaints
echo "=== borrow boot: all steps passed"
