#!/bin/bash
# Guest half of test/bench/interleave.sh: in one boot, three pmem cxl_virt
# devices on the memmap'd range, an x1 device and x2 (one host bridge) and
# x4 (two host bridges) interleave sets, a devdax region over each (cxlvctl
# region create --device: all members), then memiops' 1 KiB random writes
# and reads through each mmap and on anonymous RAM, interleaved, RUNS times;
# a pattern through each at the end. Writes "name<TAB>value" lines to
# /out/samples.tsv: memiops_{write,read}_{anon,x1,x2,x4}.
#   interleave.sh runs=N seconds=S
. /cxlv/test/vm/guest/cxlv.sh

runs=5 seconds=2
# shellcheck source=test/bench/guest/samples.sh
. /cxlv/test/bench/guest/samples.sh

mkdir -p /tmp/bench-bin
cp /cxlv/bin/cxlvctl /cxlv/results/tmp/bin/memiops "$PATCHECK" /tmp/bench-bin/
PATH=/tmp/bench-bin:$PATH
load_stack

# devdax_on NAME ARGS...: a device made with cxlvctl create ARGS and a devdax
# region over it; the dax device's node is the value of DAX[NAME].
declare -A DAX
devdax_on() {
	local name=$1 dev out
	shift
	out=$(cxlvctl create --pmem --json "$@") || fail "create $name: $out"
	dev=$(jq -r .device <<<"$out")
	out=$(cxlvctl region create --device "$dev" --namespace devdax --json) || fail "devdax region on $name: $out"
	DAX[$name]=/dev/$(jq -r '.namespaces[0].chardev' <<<"$out")
	say "$name: $dev, region $(jq -r .region <<<"$out") of $(jq -r .interleave_ways <<<"$out") ways over $(attr "$dev" memdev), ${DAX[$name]}"
	check_devdax "${DAX[$name]}"
}
# Windows of 1 GiB each (768 MiB for x1): ways MiB of metadata, then whole
# ways x 256 MiB blocks, ways x 256 MiB aligned.
devdax_on x1 --memstart 4G --size 1G
devdax_on x2 --memstart 5G --size 1536M --ways 2
devdax_on x4 --memstart 7G --size 2G --ways 4 --host-bridges 2
for ((run = 1; run <= runs; run++)); do
	for op in write read; do
		memiops_sample "memiops_${op}_anon" $op anon
		for name in x1 x2 x4; do
			memiops_sample "memiops_${op}_$name" $op "${DAX[$name]}"
		done
	done
done
for name in x1 x2 x4; do
	step "a pattern through $name after the runs" check_pattern "${DAX[$name]}" 21 --mmap --size 16M
done
