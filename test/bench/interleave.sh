#!/usr/bin/env bash
# The interleave half of `make bench` (issue 18): ONE boot of BENCH_KVER
# (default: Debian 12's 6.1) holding an x1 cxl_virt device and x2 (one host
# bridge) and x4 (2 host bridges x 2 root ports) interleave sets, a devdax
# region over each, measured against anonymous RAM in the same boot
# (test/bench/guest/interleave.sh), and writes results/bench-interleave.md:
# 1 KiB random write/read IOPS (memiops: memcpy over the mmap, 256 MiB
# working set), medians of BENCH_RUNS (default 5) with min and max, and each
# device's ratio to anonymous RAM (the target: x4 >= 0.95x). Raw output stays
# in results/tmp/.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=test/vm/common.sh
. "$repo/test/vm/common.sh"
runs=${BENCH_RUNS:-5} seconds=${BENCH_MEMCPY_SECONDS:-2} kver=${BENCH_KVER:-$(guest_kver)}
out=${BENCH_OUT:-$repo/results/tmp/interleave-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out" "$repo/results/tmp/bin"
gcc -static -O2 -Wall -Wextra -Werror -o "$repo/results/tmp/bin/memiops" "$here/memiops.c"
# shellcheck source=test/bench/stats.sh
. "$here/stats.sh"

load_before=$(cut -d' ' -f1-3 /proc/loadavg) vms_before=$(pgrep -c qemu-system || true) date=$(date -u +%Y-%m-%d\ %H:%M)
# 8G: q35 puts 2G low and 6G from 4G on, of which 5G are reserved: the
# three devices at 4G, 5G and 7G (test/bench/guest/interleave.sh).
bash "$repo/test/vm/run-vm.sh" --kver "$kver" --mem 8G --memmap '5G$0x100000000' --timeout 1200 \
	--out "$out/vm" -- test/bench/guest/interleave.sh runs="$runs" seconds="$seconds" >"$out/vm.log"
samples=$out/vm/samples.tsv

# row OP: one line of the table, IOPS of OP on each target and the ratios.
row() {
	echo "| $1 IOPS, median (min-max) | $(stat "memiops_$1_anon") | $(stat "memiops_$1_x1") | $(stat "memiops_$1_x2") |" \
		"$(stat "memiops_$1_x4") | $(ratio "memiops_$1_x1" "memiops_$1_anon") | $(ratio "memiops_$1_x2" "memiops_$1_anon") |" \
		"$(ratio "memiops_$1_x4" "memiops_$1_anon") |"
}
{
	echo "# Interleaved cxl_virt devdax against anonymous RAM (TCG, one boot)"
	echo
	echo "Linux $kver ($(guest_userspace "$kver") user space), $date UTC, $runs runs of $seconds s each, interleaved;"
	echo "host load before: $load_before with $vms_before other QEMU processes running."
	echo "memiops: 1 KiB random memcpy over the mmap of each devdax (256 MiB working set, one thread);"
	echo "x1: one device; x2: 2 endpoints behind one host bridge; x4: 2 host bridges x 2 root ports, 4K granularity."
	echo
	echo "| 1 KiB random | anonymous RAM | x1 devdax | x2 devdax | x4 devdax | x1 / anon | x2 / anon | x4 / anon |"
	echo "|---|---|---|---|---|---|---|---|"
	row write
	row read
} >"$repo/results/bench-interleave.md"
cat "$repo/results/bench-interleave.md"
