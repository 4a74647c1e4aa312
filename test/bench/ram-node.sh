#!/usr/bin/env bash
# The per-kernel half of `make bench`, on each suite kernel
# (scripts/guest-kernels.sh), in a VM whose CPU reports a hypervisor: boots a
# guest whose node 1 is a memmap'd range, measures a cxl_virt devdax
# namespace there against anonymous RAM, then makes the range a cxl_virt RAM
# region (test/bench/guest/ram-node.sh; on 6.1 through devdax and kmem) and
# writes results/bench-ram-node.md: 1 KiB random write/read IOPS of the
# devdax against anonymous RAM and of memory bound to node 1 (cxl_virt)
# against node 0 (ordinary RAM), medians of BENCH_RUNS (default 5) with min
# and max; region create/online and offline/destroy times, MemTotal; plus a
# no-op boot of each suite kernel; and in a second boot without memmap=
# (test/bench/guest/borrow.sh) the time to borrow 2 GiB of System RAM from
# the running kernel and to give it back. Raw output stays in results/tmp/.
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
[ ${#kvers[@]} -gt 0 ] || die "no suite kernel installed: run 'make deps'"

# boot KVER: wall seconds of a no-op VM round trip.
boot() {
	local t0=$SECONDS
	bash "$repo/test/vm/run-vm.sh" --kver "$1" --out "$out/boot-$1" -- test/vm/guest/noop.sh >/dev/null
	echo $((SECONDS - t0))
}
boots=()
for k in "${kvers[@]}"; do
	boots+=("$(boot "$k") s")
done

# shellcheck source=test/bench/stats.sh
. "$here/stats.sh"

# run KVER: the guest half on one kernel; its samples and host load stay in
# $out/vm-KVER/.
run() {
	local kver=$1
	record_host "$kver"
	bash "$repo/test/vm/run-vm.sh" --kver "$kver" --mem 4G --numa-split 2G \
		--memmap '2G$0x100000000' --timeout 1200 --out "$out/vm-$kver" -- \
		test/bench/guest/ram-node.sh runs="$runs" seconds="$seconds" memsize=$((2 << 30)) >"$out/vm-$kver.log"
	# 6 GiB: a 4 GiB q35 guest has only 2 GiB above 4 GiB, whose topmost
	# block holds the boot memory map. nokaslr: see test/e2e/cxlv-borrow.sh.
	bash "$repo/test/vm/run-vm.sh" --kver "$kver" --mem 6G --append nokaslr \
		--timeout 1200 --out "$out/borrow-$kver" -- \
		test/bench/guest/borrow.sh runs="$runs" size=$((2 << 30)) >"$out/borrow-$kver.log"
}

# difference A B: the median of A minus the median of B.
difference() { echo $(($(median "$1") - $(median "$2"))); }

# with_without: the borrow alone over the borrow alone less its zeroing,
# from the medians of one boot.
with_without() {
	local with without
	with=$(difference borrow_create_ms create_ms)
	without=$((with - $(median borrow_zero_ms)))
	[ "$without" -gt 0 ] || { echo "n/a (zeroing took longer than the borrow alone)"; return; }
	awk -v a="$with" -v b="$without" 'BEGIN { printf "%d / %d ms = %.2f\n", a, b, a / b }'
}

# summary_row KVER: the ratios of one kernel, a row of the summary table.
summary_row() {
	samples=$out/vm-$1/samples.tsv
	echo "| $1 | $(ratio memiops_write_devdax memiops_write_anon) | $(ratio memiops_read_devdax memiops_read_anon) |" \
		"$(ratio memiops_write_node1 memiops_write_node0) | $(ratio memiops_read_node1 memiops_read_node0) |" \
		"$(value region_create_ms) ms |" "$(samples=$out/borrow-$1/samples.tsv difference borrow_create_ms create_ms) ms |" \
		"$(samples=$out/borrow-$1/samples.tsv difference remove_release_ms remove_ms) ms | $2 |"
}

# section KVER: the run on one kernel, as a section of the report.
section() {
	local kver=$1
	samples=$out/vm-$kver/samples.tsv
	echo "## Linux $kver ($(guest_userspace "$kver") user space)"
	echo
	echo "$(host "$kver" date) UTC, $runs runs of $seconds s each, interleaved; host load before: $(host "$kver" load_before)"
	echo "with $(host "$kver" vms_before) other QEMU processes running (the host is shared, so absolute numbers move between runs)."
	echo "The guest's CPU reports a hypervisor. Working set 256 MiB, memiops 1 KiB random, one thread."
	echo
	echo "| 1 KiB random, memcpy over the mmap | anonymous RAM | cxl_virt devdax | devdax / anonymous |"
	echo "|---|---|---|---|"
	echo "| write IOPS, median (min-max) | $(stat memiops_write_anon) | $(stat memiops_write_devdax) | $(ratio memiops_write_devdax memiops_write_anon) |"
	echo "| read IOPS, median (min-max) | $(stat memiops_read_anon) | $(stat memiops_read_devdax) | $(ratio memiops_read_devdax memiops_read_anon) |"
	echo
	echo "Then the same range, a $((($(value capacity_bytes)) >> 20)) MiB cxl_virt RAM region, is the guest's CPU-less node 1;"
	echo "node 0 is ordinary guest RAM; anonymous memory bound with numactl --membind."
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
	samples=$out/borrow-$kver/samples.tsv
	echo "A second boot of 6 GiB without memmap=: $runs times, a 2 GiB pmem device on System RAM borrowed"
	echo "from the running kernel, removed, made again on the still borrowed range, removed with release=1"
	echo "(auto_online_blocks=online, so the memory comes back online). Medians (min-max) of guest time:"
	echo
	echo "| step | time |"
	echo "|---|---|"
	echo "| create with borrow=1 (offline and remove 2 GiB, then the device) | $(stat borrow_create_ms) ms |"
	echo "| create on the borrowed range (the device alone) | $(stat create_ms) ms |"
	echo "| **borrow alone** (difference of the medians) | **$(difference borrow_create_ms create_ms) ms** |"
	echo "| of which zeroing the range (the borrow's kernel log line) | $(stat borrow_zero_ms) ms |"
	echo "| borrow alone with zeroing / without (one boot) | $(with_without) |"
	echo "| remove with release=1 (the device, then hot-add and online 2 GiB) | $(stat remove_release_ms) ms |"
	echo "| remove alone | $(stat remove_ms) ms |"
	echo "| **give-back alone** (difference of the medians) | **$(difference remove_release_ms remove_ms) ms** |"
	echo
	echo "MemTotal: $(value memtotal_before_kb) kB before, $(stat memtotal_borrowed_kb) kB borrowed, $(stat memtotal_after_kb) kB after each give-back."
	echo
}

for k in "${kvers[@]}"; do
	run "$k"
done
{
	echo "# Per-kernel benchmark: devdax and RAM node (TCG)"
	echo
	echo "## Summary"
	echo
	echo "Medians of $runs runs, ratios measured in one boot per kernel, the guest's CPU reporting a hypervisor;"
	echo "on 6.1 the RAM node is a pmem region's devdax given to kmem (no RAM regions there)."
	echo
	echo "| kernel | devdax / anonymous RAM, write | read | node 1 (cxl_virt) / node 0, write | read | RAM region create | borrow 2 GiB | give it back | no-op VM round trip |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for i in "${!kvers[@]}"; do
		summary_row "${kvers[i]}" "${boots[i]}"
	done
	echo
	for k in "${kvers[@]}"; do
		section "$k"
	done
} >"$repo/results/bench-ram-node.md"
cat "$repo/results/bench-ram-node.md"
