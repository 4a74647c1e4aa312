#!/bin/bash
# Guest half of test/bench/interleave.sh (issue 18): three cxl_virt devices on
# the memmap'd range, an x1 device, an x2 set and an x4 set of two host
# bridges (two root ports each), each with a region and a devdax namespace
# made by cxlvctl (which picks ways and granularity); a pattern written and
# read back on each; then memiops' 1 KiB random writes and reads through each
# mmap and through anonymous memory, interleaved round by round, RUNS times.
# Writes "name<TAB>value" lines to /out/samples.tsv.
#   interleave.sh runs=N seconds=S base=ADDR
. /cxlv/test/vm/guest/cxlv.sh

runs=5 seconds=2 base=$((4 << 30))
# shellcheck source=test/bench/guest/samples.sh
. /cxlv/test/bench/guest/samples.sh

mkdir -p /tmp/bench-bin
cp /cxlv/bin/cxlvctl /cxlv/results/tmp/bin/memiops /tmp/bench-bin/
PATH=/tmp/bench-bin:$PATH
load_stack

# target NAME OFFSET SIZE [FLAGS]: a device made on SIZE bytes at base +
# OFFSET with FLAGS, its region and devdax namespace; DAX[NAME] is the
# namespace's character device, DEV[NAME] the device. Records its ways, host
# bridges, granularity and the region's size.
declare -A DAX DEV
target() {
	local name=$1 json dev
	json=$(cxlvctl create --memstart $((base + $2)) --size "$3" --pmem "${@:4}" --json) ||
		fail "$name: create: $json"
	dev=$(jq -r .device <<<"$json")
	DEV[$name]=$dev
	json=$(cxlvctl region create --device "$dev" --namespace devdax --json) || fail "$name: region create: $json"
	printf '%s\n' "$json"
	sample "${name}_ways" "$(jq .interleave_ways <<<"$json")"
	sample "${name}_host_bridges" "$(attr "$dev" host_bridges)"
	sample "${name}_granularity" "$(jq .interleave_granularity <<<"$json")"
	sample "${name}_region_mib" $(($(cat "/sys/bus/cxl/devices/$(jq -r .region <<<"$json")/size") >> 20))
	DAX[$name]=/dev/$(jq -r '.namespaces[0].chardev' <<<"$json")
	check_devdax "${DAX[$name]}" 16
}
target x1 0 $((1 << 30))
target x2 $((1 << 30)) $((1536 << 20)) --ways 2
target x4 $((2560 << 20)) $((2 << 30)) --ways 4 --host-bridges 2
expect_eq "interleave ways of x1, x2, x4" "$(attr "${DEV[x1]}" ways) $(attr "${DEV[x2]}" ways) $(attr "${DEV[x4]}" ways)" "1 2 4"

for ((run = 1; run <= runs; run++)); do
	for op in write read; do
		for t in x1 x2 x4; do
			memiops_sample "memiops_${op}_$t" $op "${DAX[$t]}"
		done
		memiops_sample "memiops_${op}_anon" $op anon
	done
done
# The numbers came from memory that kept its data: a pattern read back again.
for t in x1 x2 x4; do
	check_devdax "${DAX[$t]}" 16
done
for t in x1 x2 x4; do
	step "$t: remove" cxlvctl remove --force "${DEV[$t]}"
done
rmmod cxl_virt
no_kernel_complaints
