# Guest-side scenarios for cxlvctl RAM regions (sourced, not run; no vm
# header, so run-suite.sh skips it), shared by cxlvctl-region-ram-cxlv.sh
# (cxl_virt pmem=0 device) and cxlvctl-region-ram-qemu.sh (QEMU 10's
# volatile type-3 device). Needs lib.sh and region-state.sh.
# shellcheck shell=bash

MEMDIR=/sys/devices/system/memory

# ram_setup [CXLVCTL]: the binary under test, run from the initramfs's
# memory (loading it over 9p on every call dominates the times), and
# patcheck likewise: exec'd from 9p under --membind to a CXL node, its page
# cache would land in QEMU's CXL window, which virtio cannot DMA into.
ram_setup() {
	region_setup "${1:-}"
	cp "$PATCHECK" /tmp/patcheck && PATCHECK=/tmp/patcheck
}

# has_ram_regions: a root decoder offers create_ram_region (6.3+).
has_ram_regions() { compgen -G '/sys/bus/cxl/devices/decoder*/create_ram_region' >/dev/null; }

# memory_path: the path region create --type ram must take on this kernel.
memory_path() {
	if has_ram_regions; then echo cxl-ram-region; else echo pmem-devdax-kmem; fi
}

memtotal_kb() { awk '/^MemTotal:/ {print $2}' /proc/meminfo; }

# ram_state: cxl_state plus the memory blocks and the online policy.
ram_state() {
	cxl_state
	ls "$MEMDIR" | grep -c '^memory[0-9]'
	cat "$MEMDIR/auto_online_blocks"
	memtotal_kb
}

# timed NAME CMD...: a step that prints "TIME NAME: N ms".
timed() {
	local name=$1 t0 t1
	shift
	t0=$(uptime_ms)
	step "$name" "$@"
	t1=$(uptime_ms)
	echo "TIME $name: $((t1 - t0)) ms"
}

# blocks_of DAX: the memory blocks wholly inside a dax device's range (what
# kmem adds: a devdax namespace's range starts past its metadata, not on a
# block boundary), one per line.
blocks_of() {
	local d=/sys/bus/dax/devices/$1 start size bs id
	start=$(cat "$d/resource") size=$(cat "$d/size") bs=$((0x$(cat $MEMDIR/block_size_bytes)))
	for ((id = (start + bs - 1) / bs; id < (start + size) / bs; id++)); do
		echo "memory$id"
	done
}

# blocks_in STATE DAX: every memory block of the dax device is in STATE.
blocks_in() {
	local b
	for b in $(blocks_of "$2"); do
		[ "$(cat "$MEMDIR/$b/state")" = "$1" ] || return 1
	done
}

# drop_partitioned NS PREGION DAX RREGION DEV: what a partitioned device's
# two regions leave goes, in reverse order: the namespace (its JSON NS), the
# pmem region, the RAM region's memory (offline) and region, then DEV.
drop_partitioned() {
	local b
	step "destroy the namespace" ndctl destroy-namespace -f "$(jq -r .dev <<<"$1")"
	drop_region "$2"
	for b in $(blocks_of "$3"); do
		sysw offline "$MEMDIR/$b/state"
	done
	drop_region "$4"
	remove "$5"
}

# zones_of DAX: "state zone" of each of its blocks, counted.
zones_of() {
	local b
	for b in $(blocks_of "$1"); do
		echo "$(cat "$MEMDIR/$b/state") $(cat "$MEMDIR/$b/valid_zones")"
	done | sort | uniq -c
}

# same_as_daxctl: cxlvctl list --json's dax object equals daxctl list's
# device (the keys daxctl prints).
same_as_daxctl() {
	local ours theirs
	ours=$("$CXLVCTL" list --json | jq -S '[.[].regions[]?.dax | select(.) |
		{chardev, size, target_node, align, mode, online_memblocks, total_memblocks, movable} | with_entries(select(.value != null))]')
	theirs=$(daxctl list | jq -S '[.[] | {chardev, size, target_node, align, mode, online_memblocks, total_memblocks, movable} |
		with_entries(select(.value != null))]')
	echo "cxlvctl: $ours"
	echo "daxctl:  $theirs"
	[ "$ours" = "$theirs" ]
}

# node_matches NODE MIB: numactl -H shows NODE with no CPU and MIB MiB.
node_matches() {
	numactl -H
	numactl -H | has -x "node $1 cpus: *" || { echo "node $1 has CPUs or is missing"; return 1; }
	numactl -H | has "^node $1 size: $2 MB" || { echo "node $1 is not $2 MB"; return 1; }
}

# membind_pattern NODE MIB: a pattern written to tmpfs under numactl
# --membind=NODE lands on NODE (its Shmem grows) and reads back in a second
# process (on QEMU's device every access is emulated MMIO: ~2.5 MB/s).
membind_pattern() {
	local node=$1 size=$(($2 << 20)) before after
	mkdir -p /mnt/ram && { grep -q ' /mnt/ram ' /proc/mounts || mount -t tmpfs tmpfs /mnt/ram; } || return
	before=$(node_kb "$node" Shmem)
	numactl --membind="$node" "$PATCHECK" write --seed 4343 --size "$size" /mnt/ram/pat || return
	after=$(node_kb "$node" Shmem)
	echo "node $node Shmem: $before kB -> $after kB"
	# Node counters lag by the per-CPU batches: 90% is the bar.
	[ $((after - before)) -ge $(((size >> 10) * 9 / 10)) ] || { echo "the pattern did not land on node $node"; return 1; }
	numactl --membind="$node" "$PATCHECK" verify --seed 4343 --size "$size" /mnt/ram/pat || return
	rm /mnt/ram/pat
}

# ram_scenarios --device cxlvN | --memdev memN: the scenarios, on a device
# whose free volatile capacity becomes a CPU-less node. Sets
# RAM_REGION_LEFT to the region when the last one (ZONE_NORMAL) could not
# be given back.
RAM_REGION_LEFT=
ram_scenarios() {
	local target=("$@") initial mt0 auto0 json node dax bytes region dev=${2} before out
	initial=$(ram_state)
	mt0=$(memtotal_kb) auto0=$(cat $MEMDIR/auto_online_blocks)
	echo "$initial"

	# --dry-run prints the sequence and changes nothing.
	step "dry run" "$CXLVCTL" --dry-run region create "${target[@]}" --type ram
	step "dry run changed nothing" ram_state_is "$initial"

	# 1. Default: movable.
	timed "region create --type ram" sh -c "'$CXLVCTL' region create ${target[*]} --type ram --json >$OUT/create.json"
	json=$(cat "$OUT/create.json")
	echo "$json"
	region=$(jq -r .region <<<"$json") dax=$(jq -r .dax.chardev <<<"$json") node=$(jq -r .target_node <<<"$json")
	bytes=$(jq -r .memory_bytes <<<"$json")
	echo "TIME memory added after the bind: $(($(jq -r .add_ns <<<"$json") / 1000000)) ms, online: $(($(jq -r .online_ns <<<"$json") / 1000000)) ms"
	echo "memory path: $(jq -r .memory_path <<<"$json")"
	step "the result names this kernel's path ($(memory_path))" jq -e --arg path "$(memory_path)" '.memory_path == $path' <<<"$json"
	# Through devdax, kmem adds the whole blocks inside the namespace's data.
	step "the result says movable, all online" jq -e '.online == "movable" and .zones == ["Movable"] and .online_bytes == .memory_bytes and
		if .memory_path == "pmem-devdax-kmem" then .memory_bytes > 0 and .memory_bytes < .size else .memory_bytes == .size end' <<<"$json"
	step "auto_online_blocks restored" test "$(cat $MEMDIR/auto_online_blocks)" = "$auto0"
	step "MemTotal grew by the region" test "$(memtotal_kb)" = "$((mt0 + bytes / 1024))"
	step "every block online movable" all_blocks "$dax" "online Movable"
	zones_of "$dax"
	step "list --json agrees with daxctl list" same_as_daxctl
	step "list --json names node $node for $dax" json_has \
		"[.[].regions[]? | select(.region == \"$region\") | .dax | .target_node == $node and .memory_nodes == [$node] and .zones == [\"Movable\"]] | any" \
		"$CXLVCTL" list --json
	"$CXLVCTL" list
	"$CXLVCTL" region list
	step "info shows node $node memory-only with $region" json_has \
		"[.nodes[] | select(.id == $node) | .memory_only and .cxl_regions == [\"$region\"]] | any" "$CXLVCTL" info --json
	"$CXLVCTL" info
	step "numactl -H shows node $node" node_matches "$node" $((bytes >> 20))
	timed "pattern under numactl --membind=$node" membind_pattern "$node" 16
	if [ "${1}" = --device ]; then
		expect_busy "$CXLVCTL" remove "$dev"
	fi
	timed "region destroy --force (movable)" "$CXLVCTL" region destroy --force "$region"
	step "MemTotal back" test "$(memtotal_kb)" = "$mt0"
	step "state as before" ram_state_is "$initial"

	# 1b. Ctrl-C in the middle rolls back: in the region steps, and in the
	# bind, as kmem adds the memory (the rollback offlines it and unbinds).
	step "SIGINT during the region steps rolls back" \
		interrupted_create region_made ram_state "${target[@]}" --type ram
	step "SIGINT once the region is committed (in the bind) rolls back" \
		interrupted_create region_committed ram_state "${target[@]}" --type ram
	step "state as before" ram_state_is "$initial"

	# 2. --online none: added, not onlined.
	timed "region create --online none" "$CXLVCTL" region create "${target[@]}" --type ram --online none
	dax=$(daxctl list | jq -r '.[0].chardev')
	zones_of "$dax"
	step "no block online" all_blocks "$dax" "offline"
	step "MemTotal unchanged" test "$(memtotal_kb)" = "$mt0"
	step "list --json agrees with daxctl list (offline)" same_as_daxctl
	timed "region destroy (offline)" "$CXLVCTL" region destroy "$region"
	step "state as before" ram_state_is "$initial"

	# 3. --online normal; a destroy that cannot offline changes nothing.
	timed "region create --online normal" "$CXLVCTL" region create "${target[@]}" --type ram --online normal
	dax=$(daxctl list | jq -r '.[0].chardev')
	step "every block online normal" all_blocks "$dax" "online Normal"
	timed "pin kernel memory on node $node" pin_slab "$node"
	before=$(ram_state)
	if out=$("$CXLVCTL" region destroy --force "$region" 2>&1); then
		echo "$out"
		fail "the slab allocations did not pin node $node: destroy went through, the cannot-offline case is untested"
	fi
	echo "$out"
	step "the refusal is one line that names the block" one_line_refusal "$out"
	step "a refused destroy changed nothing" ram_state_is "$before"
	step "every block still online normal" all_blocks "$dax" "online Normal"
	if [ "${1}" = --device ]; then
		if out=$("$CXLVCTL" remove --force "$dev" 2>&1); then
			fail "remove --force went through with memory that cannot be offlined: $out"
		fi
		echo "$out"
		step "remove --force: one line" one_line_refusal "$out"
		step "and changed nothing" ram_state_is "$before"
	fi
	# Unpinned, whether the blocks can go offline is the kernel's to decide
	# (a slab page stays while any object on it lives, and every boot so far
	# kept some): either way cxlvctl must leave a whole state behind.
	unpin_slab
	before=$(ram_state)
	if out=$("$CXLVCTL" region destroy --force "$region" 2>&1); then
		echo "$out"
		step "unpinned: MemTotal back" test "$(memtotal_kb)" = "$mt0"
		step "unpinned: state as before" ram_state_is "$initial"
		return 0
	fi
	echo "$out"
	step "unpinned, still refused: one line that names the block" one_line_refusal "$out"
	step "unpinned, still refused: nothing changed" ram_state_is "$before"
	RAM_REGION_LEFT=$region
}

# all_blocks DAX "STATE [ZONE]": every block of DAX is in that state (zone).
all_blocks() {
	local got
	got=$(zones_of "$1" | awk -v n="$(echo "$2" | wc -w)" '{ if (n == 1) print $2; else print $2, $3 }' | sort -u)
	echo "$got"
	[ "$got" = "$2" ]
}

# one_line_refusal OUTPUT: one error line (besides progress lines), naming
# the block that would not go offline, saying that nothing was changed.
one_line_refusal() {
	local err
	err=$(grep '^cxlvctl: ' <<<"$1")
	[ "$(wc -l <<<"$err")" = 1 ] && grep -q 'cannot be offlined' <<<"$err" && grep -q 'nothing was changed' <<<"$err"
}

# ram_state_is BEFORE: ram_state equals BEFORE.
ram_state_is() { same_state "$1" ram_state; }

# expect_busy CMD...: exits 5 with one line that gives the advice.
expect_busy() {
	local out rc=0
	out=$("$@" 2>&1) || rc=$?
	echo "$out"
	[ "$rc" = 5 ] || fail "$*: exit $rc, want 5 (busy)"
	[ "$(grep -c . <<<"$out")" = 1 ] || fail "$*: not one line"
	grep -q "cxlvctl region destroy" <<<"$out" || fail "$*: no advice"
}

# pin_slab NODE: kernel objects (dentries and inodes of 400 tmpfs files)
# allocated under --membind=NODE: slab pages, which cannot be migrated. One
# process, few files: under --membind everything the process touches is on
# NODE, which is emulated MMIO on QEMU's device.
pin_slab() {
	mkdir -p /mnt/pin && mount -t tmpfs -o nr_inodes=0 tmpfs /mnt/pin || return
	# shellcheck disable=SC2046 # one name per number
	(cd /mnt/pin && numactl --membind="$1" touch $(seq 400)) || return
	grep -E 'Slab|SUnreclaim' "/sys/devices/system/node/node$1/meminfo"
}

unpin_slab() {
	umount /mnt/pin
	echo 3 >/proc/sys/vm/drop_caches
}
