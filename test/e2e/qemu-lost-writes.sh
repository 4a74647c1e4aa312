#!/bin/bash
# vm: --cxl-single-rp --mem 2G
# kernels: 6.1
# Negative control: with a single root port Linux 6.1 never programs the host
# bridge decoder and QEMU drops every write to the device. The commands all
# succeed; the data check must notice. If this test fails, the data checks
# the other scenarios rely on cannot see lost writes. 6.12 programs the
# decoder (its switch ports use the HDM decoders when they exist), so the
# writes arrive there and the trap does not exist.
. "$CXLV/test/vm/guest/lib.sh"

step "load CXL stack" load_stack --qemu
step "create pmem region" cxl create-region -m -d decoder0.0 -t pmem mem0
step "create devdax namespace" ndctl create-namespace -r region0 -m devdax
step "write pattern" "$PATCHECK" write --mmap --seed 7 --size 2M /dev/dax0.0
if "$PATCHECK" verify --mmap --seed 7 --size 2M /dev/dax0.0; then
	fail "patcheck verified data that QEMU dropped: the data checks are blind"
fi
echo "patcheck caught the lost writes, as it must"
