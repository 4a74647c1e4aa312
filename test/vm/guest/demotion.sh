# Demotion to a lower memory tier (sourced, not run), shared by
# test/e2e/cxlv-cdat.sh (it happens) and test/bench/guest/demotion.sh (how
# fast). Needs lib.sh; the caller sets /sys/kernel/mm/numa/demotion_enabled.
# shellcheck shell=bash

# vmstat_sum REGEX: the sum of the /proc/vmstat counters whose whole name
# matches REGEX.
vmstat_sum() { awk -v re="^($1)\$" '$1 ~ re {n += $2} END {print n + 0}' /proc/vmstat; }

# demotion_fill MIB SEED NODE: writes a patcheck pattern of MIB MiB, seeded
# SEED, to a file on a fresh tmpfs, then verifies it in a second process
# (a mismatch fails the script) and unmounts. Sets, over the write alone:
# fill_ms (guest wall time), demoted_kswapd, demoted (every pgdemote_
# counter: kswapd, direct reclaim, khugepaged where the kernel has it),
# promoted (pgpromote_success); and node_shmem_kb, NODE's Shmem right after
# the write (the pattern's pages that sit there).
demotion_fill() {
	local mib=$1 seed=$2 node=$3 mnt=/mnt/demotion t0 kswapd0 demoted0 promoted0
	mkdir -p $mnt
	mount -t tmpfs -o size=$((mib + 64))M tmpfs $mnt || fail "tmpfs of $((mib + 64)) MiB at $mnt"
	kswapd0=$(vmstat_sum pgdemote_kswapd) demoted0=$(vmstat_sum 'pgdemote_.*') promoted0=$(vmstat_sum pgpromote_success)
	t0=$(uptime_ms)
	step "tmpfs pattern of $mib MiB (node 0 has $(($(node_kb 0 MemTotal) >> 10)) MiB)" \
		"$PATCHECK" write --seed "$seed" --size "${mib}M" $mnt/pattern
	fill_ms=$(($(uptime_ms) - t0))
	demoted_kswapd=$(($(vmstat_sum pgdemote_kswapd) - kswapd0))
	demoted=$(($(vmstat_sum 'pgdemote_.*') - demoted0))
	promoted=$(($(vmstat_sum pgpromote_success) - promoted0))
	node_shmem_kb=$(node_kb "$node" Shmem)
	say "$mib MiB in $fill_ms ms: $demoted pages demoted ($demoted_kswapd by kswapd), $promoted promoted; node $node Shmem $node_shmem_kb kB"
	step "pattern reads back" "$PATCHECK" verify --seed "$seed" --size "${mib}M" $mnt/pattern
	umount $mnt
}
