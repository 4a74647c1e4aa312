#!/usr/bin/env bash
# The RAM-node half of `make bench`, on each suite kernel with RAM regions
# (6.3 and later: Debian 13's 6.12 and trixie-backports' 7.3,
# scripts/guest-kernels.sh): boots a guest whose node 1 is a memmap'd range,
# makes it a cxl_virt RAM region (test/bench/guest/ram-node.sh) and writes
# results/bench-ram-node.md: region create/online and offline/destroy times,
# MemTotal, and 1 KiB random write/read IOPS of memory bound to node 1
# (cxl_virt) against node 0 (ordinary RAM), medians of BENCH_RUNS (default 5)
# with min and max; plus a no-op boot of each suite kernel. Raw output stays
# in results/tmp/.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=test/vm/common.sh
. "$repo/test/vm/common.sh"
runs=${BENCH_RUNS:-5} seconds=${BENCH_MEMCPY_SECONDS:-2}
out=${BENCH_OUT:-$repo/results/tmp/ram-node-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out" "$repo/results/tmp/bin"
gcc -static -O2 -Wall -Wextra -Werror -o "$repo/results/tmp/bin/memiops" "$here/memiops.c"
mapfile -t kvers < <(bash "$repo/scripts/guest-kernels.sh" --suite)
ram_kvers=()
for k in "${kvers[@]}"; do
	kernel_at_least 6.3 "$k" && ram_kvers+=("$k")
done
[ ${#ram_kvers[@]} -gt 0 ] || die "no suite kernel with RAM regions installed: run 'make deps'"

# boot KVER: wall seconds of a no-op VM round trip.
boot() {
	local t0=$SECONDS
	bash "$repo/test/vm/run-vm.sh" --kver "$1" --out "$out/boot-$1" -- test/vm/guest/noop.sh >/dev/null
	echo $((SECONDS - t0))
}
boots=()
for k in "${kvers[@]}"; do
	boots+=("$k $(boot "$k") s")
done

# stat NAME: "median (min-max)" of the samples called NAME.
stat() {
	awk -v k="$1" -F'\t' '$1 == k {print $2}' "$samples" | sort -n |
		awk '{v[NR] = $1} END {
			if (NR == 0) { print "-"; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.0f (%.0f-%.0f)\n", m, v[1], v[NR] }'
}
value() { awk -v k="$1" -F'\t' '$1 == k {print $2; exit}' "$samples"; }
median() { stat "$1" | cut -d' ' -f1; }
ratio() { awk -v a="$(median "$1")" -v b="$(median "$2")" 'BEGIN {printf "%.2fx", a / b}'; }

# bench KVER: the RAM-node run on one kernel, as a section of the report.
bench() {
	local kver=$1 load_before vms_before
	load_before=$(cut -d' ' -f1-3 /proc/loadavg) vms_before=$(pgrep -c qemu-system || true)
	bash "$repo/test/vm/run-vm.sh" --kver "$kver" --mem 4G --numa-split 2G \
		--memmap '2G$0x100000000' --timeout 1200 --out "$out/vm-$kver" -- \
		test/bench/guest/ram-node.sh runs="$runs" seconds="$seconds" memsize=$((2 << 30)) >"$out/vm-$kver.log"
	samples=$out/vm-$kver/samples.tsv
	echo "## Linux $kver ($(guest_userspace "$kver") user space)"
	echo
	echo "$(date -u +%Y-%m-%d\ %H:%M) UTC, $runs runs of $seconds s each, interleaved; host load before: $load_before"
	echo "with $vms_before other QEMU processes running (the host is shared, so absolute numbers move between runs)."
	echo "A $((($(value capacity_bytes)) >> 20)) MiB cxl_virt RAM region is the guest's CPU-less node 1;"
	echo "node 0 is ordinary guest RAM. Working set 256 MiB of anonymous memory, memiops 1 KiB random, one thread."
	echo
	echo "| 1 KiB random, anonymous memory | node 0 (RAM) | node 1 (cxl_virt) | node 1 / node 0 |"
	echo "|---|---|---|---|"
	echo "| write IOPS, median (min-max) | $(stat memiops_write_node0) | $(stat memiops_write_node1) | $(ratio memiops_write_node1 memiops_write_node0) |"
	echo "| read IOPS, median (min-max) | $(stat memiops_read_node0) | $(stat memiops_read_node1) | $(ratio memiops_read_node1 memiops_read_node0) |"
	echo
	echo "| step | time |"
	echo "|---|---|"
	echo "| \`cxlvctl region create --type ram\` (commit to all blocks online movable) | $(value region_create_ms) ms |"
	echo "| of which: memory added after the bind / onlining | $(value memory_added_after_bind_ms) ms / $(value memory_online_ms) ms |"
	echo "| \`cxlvctl region destroy\`: offlining every block | $(value region_destroy_offline_ms) ms |"
	echo "| guest uptime when the bench started | $(value boot_uptime_s) s |"
	echo
	echo "MemTotal: $(value memtotal_before_kb) kB before, $(value memtotal_online_kb) kB with the region online, $(value memtotal_after_kb) kB after destroy."
	echo
}

{
	echo "# RAM node benchmark (TCG)"
	echo
	echo "No-op VM round trip: $(printf '%s, ' "${boots[@]}" | sed 's/, $//')."
	echo
	for k in "${ram_kvers[@]}"; do
		bench "$k"
	done
} >"$repo/results/bench-ram-node.md"
cat "$repo/results/bench-ram-node.md"
