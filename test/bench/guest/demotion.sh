#!/bin/bash
# Guest half of test/bench/demotion.sh, in cxlv-cdat's VM (node 0: RAM
# described by HMAT; the memmap'd range MEMMAP, SIZE$START, for the device).
# A volatile cxl_virt device there becomes a RAM region (cxlvctl region
# create --type ram), the guest's CPU-less node in a lower memory tier than
# node 0; demotion enabled. Then RUNS times, a tmpfs pattern that fits in
# node 0 (a quarter of it) and one that overfills it by 256 MiB
# (demotion_fill: timed, demotion counters over the write, read back
# verified; a mismatch fails). Writes "name<TAB>value" lines to
# /out/samples.tsv.
#   demotion.sh runs=N memmap=SIZE$START
. /cxlv/test/vm/guest/cxlv.sh

runs=5 memmap=
# shellcheck source=test/bench/guest/samples.sh
. /cxlv/test/bench/guest/samples.sh
# shellcheck source=test/vm/guest/demotion.sh
. /cxlv/test/vm/guest/demotion.sh
[ -n "$memmap" ] || fail "demotion.sh needs memmap=SIZE\$START"

mkdir -p /tmp/bench-bin
cp /cxlv/bin/cxlvctl /cxlv/bin/cxlvctl-info "$PATCHECK" /tmp/bench-bin/
PATH=/tmp/bench-bin:$PATH PATCHECK=/tmp/bench-bin/patcheck

load_stack --ram
step "volatile device on the memmap'd range" cxlvctl create --memstart "${memmap#*\$}" --size "${memmap%\$*}"
out=$(cxlvctl region create --device cxlv0 --type ram) || fail "region create: $out"
echo "$out"
node=$(daxctl list | jq -r '.[0].target_node')
sample node "$node"
tier() { cxlvctl info --json | jq -r --argjson n "$1" '.nodes[$n].memory_tier // "none"'; }
sample tier_node0 "$(tier 0)"
sample tier_node$node "$(tier "$node")"
numactl -H
sysw 1 /sys/kernel/mm/numa/demotion_enabled

node0_mib=$(($(node_kb 0 MemTotal) >> 10))
fit_mib=$((node0_mib / 4)) over_mib=$((node0_mib + 256))
sample node0_mib "$node0_mib"
sample fit_mib "$fit_mib"
sample over_mib "$over_mib"
page_kb=$(awk '/^KernelPageSize:/ {print $2; exit}' /proc/self/smaps)
sample page_kb "$page_kb"
# rate MIB MS: MiB/s
rate() { awk -v m="$1" -v t="$2" 'BEGIN {printf "%.1f\n", m * 1000 / t}'; }
for ((run = 1; run <= runs; run++)); do
	demotion_fill "$fit_mib" "$run" "$node"
	sample fit_mibps "$(rate "$fit_mib" "$fill_ms")"
	sample fit_demoted "$demoted"
	demotion_fill "$over_mib" "$run" "$node"
	[ "$demoted" -gt 0 ] || fail "no page demoted to node $node while filling $over_mib MiB"
	sample over_mibps "$(rate "$over_mib" "$fill_ms")"
	sample over_ms "$fill_ms"
	sample demoted "$demoted"
	sample demoted_kswapd "$demoted_kswapd"
	sample promoted "$promoted"
	sample demoted_per_s $((demoted * 1000 / fill_ms))
	sample demoted_mibps "$(rate $((demoted * page_kb / 1024)) "$fill_ms")"
	sample node_shmem_kb "$node_shmem_kb"
	# demotion_fill failed the script on a mismatch
	sample verified_runs "$run"
done

region=$(cxlvctl list --json | jq -r '[.. | .region? // empty][0]')
step "region destroy" cxlvctl region destroy "$region"
step "remove" cxlvctl remove cxlv0
rmmod cxl_virt
no_kernel_complaints
