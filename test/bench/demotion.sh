#!/usr/bin/env bash
# The demotion half of `make bench` (issue 19): on each suite kernel
# (scripts/guest-kernels.sh) whose series test/e2e/cxlv-cdat.sh runs on (its
# '# kernels:' line: the kernels that tier CXL memory), one boot of that
# scenario's VM (its '# vm:' line: node 0 RAM that HMAT describes, a
# memmap'd range for the device) running test/bench/guest/demotion.sh: a
# cxl_virt RAM region as a lower tier, demotion enabled, BENCH_RUNS (default
# 5) tmpfs fills that fit in node 0 and that overfill it, each read back
# verified. Writes results/bench-demotion.md: pages demoted per second and
# MiB/s over the overfill's wall time, the fill rate against the fill that
# fits (same boot), node 1's Shmem after; medians with min and max, and the
# host's load. Raw output stays in results/tmp/.
#   [KVERS="KVER..."] [BENCH_RUNS=N] test/bench/demotion.sh
# KVERS: the kernels to run on (default: the suite kernels above); one
# outside the scenario's series is an error.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=test/vm/common.sh
. "$repo/test/vm/common.sh"
# shellcheck source=test/bench/stats.sh
. "$here/stats.sh"
runs=${BENCH_RUNS:-5}
out=${BENCH_OUT:-$repo/results/tmp/demotion-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
scenario=$repo/test/e2e/cxlv-cdat.sh
read -ra vm <<<"$(vm_options "$scenario")"
memmap=
for i in "${!vm[@]}"; do
	[ "${vm[i]}" != --memmap ] || memmap=${vm[i + 1]}
done
[ -n "$memmap" ] || die "$scenario's '# vm:' line has no --memmap"

kvers=()
if [ -n "${KVERS:-}" ]; then
	for k in $KVERS; do
		runs_on_kernel "$scenario" "$k" || die "$k: not a kernel that tiers CXL memory ($scenario's '# kernels:' line)"
		kvers+=("$k")
	done
else
	for k in $(bash "$repo/scripts/guest-kernels.sh" --suite); do
		runs_on_kernel "$scenario" "$k" && kvers+=("$k")
	done
fi
[ ${#kvers[@]} -gt 0 ] || die "no suite kernel of $scenario's series installed: run 'make deps'"

for k in "${kvers[@]}"; do
	record_host "$k"
	bash "$repo/test/vm/run-vm.sh" --kver "$k" "${vm[@]}" --timeout 1200 --out "$out/vm-$k" -- \
		test/bench/guest/demotion.sh runs="$runs" memmap="$memmap" >"$out/vm-$k.log"
done

# Every run's pattern read back, or the guest would have failed: a missing
# run means the bench did not finish, and nothing is reported as verified.
for k in "${kvers[@]}"; do
	n=$(awk -F'\t' '$1 == "verified_runs"' "$out/vm-$k/samples.tsv" | wc -l)
	[ "$n" = "$runs" ] || die "$k: $n of $runs fills read back verified"
done

# summary_row KVER: one kernel's row of the summary.
summary_row() {
	echo "| $1 | $(median demoted) | $(median demoted_per_s) | $(median demoted_mibps) |" \
		"$(ratio over_mibps fit_mibps) | $(($(median node_shmem_kb) >> 10)) MiB | yes |"
}

# section KVER: the run on one kernel, a section of the report.
section() {
	section_head "$1"
	echo "Node 0: $(value node0_mib) MiB, memory tier $(value tier_node0); the RAM region: node $(value node), memory tier"
	echo "$(value "tier_node$(value node)"); pages of $(value page_kb) KiB. Each run writes a fitting pattern, then an overfilling one;"
	echo "each read back by a second process (patcheck verify) before the next."
	echo
	echo "| per run, median (min-max) | fits in node 0 ($(value fit_mib) MiB) | overfills node 0 ($(value over_mib) MiB) |"
	echo "|---|---|---|"
	echo "| fill rate, MiB/s | $(stat fit_mibps) | $(stat over_mibps) |"
	echo "| pages demoted (pgdemote_*) | $(stat fit_demoted) | $(stat demoted) |"
	echo "| of which by kswapd | - | $(stat demoted_kswapd) |"
	echo "| pages promoted (pgpromote_success) | - | $(stat promoted) |"
	echo "| fill wall time, ms | - | $(stat over_ms) |"
	echo "| pages demoted per second of the fill | - | $(stat demoted_per_s) |"
	echo "| MiB/s demoted | - | $(stat demoted_mibps) |"
	echo "| node $(value node) Shmem after the fill, kB | - | $(stat node_shmem_kb) |"
	echo
	echo "Data verified: yes, all $((2 * runs)) patterns read back equal."
	echo
}

{
	echo "# Demotion to a cxl_virt RAM node (TCG)"
	echo
	echo "## Summary"
	echo
	echo "Medians of $runs runs, one boot per kernel of \`cxlv-cdat\`'s VM (\`$(vm_options "$scenario")\`):"
	echo "a tmpfs pattern overfilling node 0 by 256 MiB while kswapd demotes to the cxl_virt RAM node,"
	echo "counted over the fill's guest wall time; its fill rate against a fill that fits in node 0."
	echo
	echo "| kernel | pages demoted per fill | pages demoted/s | MiB/s demoted | fill rate, demoting / fitting | RAM node's Shmem after | data verified |"
	echo "|---|---|---|---|---|---|---|"
	each_kernel summary_row
	echo
	each_kernel section
} >"$out/bench-demotion.md"
mv "$out/bench-demotion.md" "$repo/results/bench-demotion.md"
cat "$repo/results/bench-demotion.md"
