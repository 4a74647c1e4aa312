#!/bin/bash
# vm: --cxl-drop-writes --mem 2G
# kernels: 6.1
# Negative control: QEMU's device on a read-only backing file drops every
# write to its memory without telling the guest. The commands all succeed;
# the data check must notice. If this test fails, the data checks the other
# scenarios rely on cannot see lost writes. (It used to be 6.1's trap with
# one root port under QEMU 7.2, where the host bridge decoder was never
# programmed; QEMU 10 decodes through it.)
. "$CXLV/test/vm/guest/lib.sh"

step "load CXL stack" load_stack --qemu
step "create pmem region" cxl create-region -m -d decoder0.0 -t pmem mem0
step "create devdax namespace" ndctl create-namespace -r region0 -m devdax
step "write pattern" "$PATCHECK" write --mmap --seed 7 --size 2M /dev/dax0.0
if "$PATCHECK" verify --mmap --seed 7 --size 2M /dev/dax0.0; then
	fail "patcheck verified data that QEMU dropped: the data checks are blind"
fi
echo "patcheck caught the lost writes, as it must"
