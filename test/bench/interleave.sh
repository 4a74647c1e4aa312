#!/usr/bin/env bash
# The interleave half of `make bench` (issue 18): on each suite kernel
# (scripts/guest-kernels.sh), one boot with 4.5 GiB memmap'd at 4 GiB running
# test/bench/guest/interleave.sh: an x1 device, an x2 set and an x4 set (two
# host bridges of two root ports), each a devdax region by cxlvctl, and
# memiops' 1 KiB random writes and reads through each mmap against anonymous
# memory, interleaved, BENCH_RUNS (default 5) rounds of BENCH_MEMCPY_SECONDS
# (default 2). Writes results/bench-interleave.md: IOPS medians with min and
# max, the ratios to anonymous RAM and the issue's target (x4 >= 0.95 x
# anonymous RAM). Raw output stays in results/tmp/.
#   [KVERS="KVER..."] test/bench/interleave.sh
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=test/vm/common.sh
. "$repo/test/vm/common.sh"
# shellcheck source=test/bench/stats.sh
. "$here/stats.sh"
runs=${BENCH_RUNS:-5} seconds=${BENCH_MEMCPY_SECONDS:-2}
out=${BENCH_OUT:-$repo/results/tmp/interleave-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out" "$repo/results/tmp/bin"
gcc -static -O2 -Wall -Wextra -Werror -o "$repo/results/tmp/bin/memiops" "$here/memiops.c"
read -ra kvers <<<"${KVERS:-$(bash "$repo/scripts/guest-kernels.sh" --suite | tr '\n' ' ')}"
[ ${#kvers[@]} -gt 0 ] || die "no suite kernel installed: run 'make deps'"

# A 7 GiB q35 guest has 2 GiB low and 5 GiB from 4 GiB: the three devices
# take 4.5 GiB of it (1 GiB, 1.5 GiB, 2 GiB: each a window of at least 768
# MiB after its metadata), the guest keeps 2.5 GiB.
for k in "${kvers[@]}"; do
	record_host "$k"
	bash "$repo/test/vm/run-vm.sh" --kver "$k" --mem 7G --memmap '4608M$0x100000000' --timeout 1200 \
		--out "$out/vm-$k" -- test/bench/guest/interleave.sh runs="$runs" seconds="$seconds" \
		base=$((4 << 30)) >"$out/vm-$k.log"
done

# target_row KVER: the issue's target on one kernel.
target_row() {
	local r
	r=$(ratio memiops_write_x4 memiops_write_anon)
	echo "| $1 | $r | $(ratio memiops_read_x4 memiops_read_anon) |" \
		"$(awk -v w="${r%x}" -v r="$(ratio memiops_read_x4 memiops_read_anon | tr -d x)" \
			'BEGIN {print (w >= 0.95 && r >= 0.95) ? "**met**" : "**not met**"}') |"
}

{
	echo "# Interleaved regions against anonymous RAM (TCG)"
	echo
	echo "## Summary"
	echo
	echo "Medians of $runs rounds of $seconds s, one boot per kernel: memiops, 1 KiB at random offsets of a 256 MiB"
	echo "working set, one thread, through the mmap of a devdax namespace on each region and of anonymous memory,"
	echo "targets interleaved round by round. Target (issue 18): x4 >= 0.95 x anonymous RAM, write and read."
	echo
	echo "| kernel | x4 / anonymous, write | read | target |"
	echo "|---|---|---|---|"
	for k in "${kvers[@]}"; do
		samples=$out/vm-$k/samples.tsv
		target_row "$k"
	done
	echo
	for k in "${kvers[@]}"; do
		samples=$out/vm-$k/samples.tsv
		echo "## Linux $k ($(guest_userspace "$k") user space)"
		echo
		echo "$(host "$k" date) UTC; host load before: $(host "$k" load_before) with $(host "$k" vms_before) other QEMU"
		echo "processes running (the host is shared, so absolute numbers move between runs)."
		echo "Region sizes (MiB) x1 $(value x1_region_mib), x2 $(value x2_region_mib), x4 $(value x4_region_mib); host bridges"
		echo "x2 $(value x2_host_bridges), x4 $(value x4_host_bridges); granularity $(value x4_granularity) (cxlvctl's pick)."
		echo "Each region's devdax pattern was read back before and after the rounds."
		echo
		echo "| 1 KiB random, IOPS median (min-max) | anonymous RAM | x1 | x2 | x4 |"
		echo "|---|---|---|---|---|"
		for op in write read; do
			echo "| $op | $(stat "memiops_${op}_anon") | $(stat "memiops_${op}_x1") | $(stat "memiops_${op}_x2") |" \
				"$(stat "memiops_${op}_x4") |"
			echo "| $op, / anonymous | 1.00x | $(ratio "memiops_${op}_x1" "memiops_${op}_anon") |" \
				"$(ratio "memiops_${op}_x2" "memiops_${op}_anon") | $(ratio "memiops_${op}_x4" "memiops_${op}_anon") |"
		done
		echo
	done
} >"$out/bench-interleave.md"
mv "$out/bench-interleave.md" "$repo/results/bench-interleave.md"
cat "$repo/results/bench-interleave.md"
