#!/bin/bash
# Guest half of test/bench/ram-node.sh, on Linux 6.12: a pmem=0 cxl_virt
# device over the memmap'd range that is the guest's CPU-less node 1 becomes
# a RAM region; measures the region's create (commit to memory online) and
# destroy (offline) times through cxlvctl, and 1 KiB random writes and reads
# by memiops on anonymous memory bound to node 0 and to node 1, interleaved,
# RUNS times each. Writes "name<TAB>value" lines to /out/samples.tsv.
#   ram-node.sh runs=N seconds=S memsize=BYTES
. /cxlv/test/vm/guest/cxlv.sh

runs=5 seconds=2 memsize=$((2 << 30))
for setting in "$@"; do
	declare "${setting%%=*}=${setting#*=}"
done
samples=/out/samples.tsv
: >"$samples"
sample() { printf '%s\t%s\n' "$1" "$2" | tee -a "$samples"; }
memtotal_kb() { awk '/^MemTotal:/ {print $2}' /proc/meminfo; }
# ms_of TEXT PATTERN: the number of milliseconds after PATTERN in TEXT.
ms_of() { grep -o "$2[0-9.]*ms" <<<"$1" | head -1 | grep -o '[0-9.]*'; }

mkdir -p /tmp/bench-bin
cp /cxlv/bin/cxlvctl /cxlv/results/tmp/bin/memiops "$PATCHECK" /tmp/bench-bin/
PATH=/tmp/bench-bin:$PATH

sample boot_uptime_s "$(cut -d' ' -f1 /proc/uptime)"
load_stack
/sbin/modprobe -a dax_cxl kmem || fail "modprobe dax_cxl kmem"
step "pmem=0 device" cxlvctl create --memstart 0x100000000 --size "$memsize" --wait
cap=$(attr cxlv0 capacity)
sample capacity_bytes "$cap"
sample memtotal_before_kb "$(memtotal_kb)"

out=$(cxlvctl region create --device cxlv0 --type ram) || fail "region create: $out"
echo "$out"
sample region_create_ms "$(ms_of "$out" 'took ')"
sample memory_added_after_bind_ms "$(ms_of "$out" 'memory added ')"
sample memory_online_ms "$(ms_of "$out" 'online ')"
sample memtotal_online_kb "$(memtotal_kb)"
numactl -H

# The numbers must come from memory that works: a pattern through node 1.
mkdir -p /mnt/n1 && mount -t tmpfs -o size=80m tmpfs /mnt/n1
step "pattern on node 1" sh -c "numactl --membind=1 patcheck write --seed 3 --size 64M /mnt/n1/p &&
	numactl --membind=1 patcheck verify --seed 3 --size 64M /mnt/n1/p"
umount /mnt/n1

for ((run = 1; run <= runs; run++)); do
	for op in write read; do
		for node in 0 1; do
			r=$(numactl --membind=$node memiops $op --bs 1024 --size $((256 << 20)) --seconds "$seconds" anon) ||
				fail "memiops $op on node $node: $r"
			r=${r%% *}
			sample "memiops_${op}_node$node" "${r#iops=}"
		done
	done
done

region=$(cxlvctl list --json | jq -r '[.. | .region? // empty][0]')
out=$(cxlvctl region destroy "$region" 2>&1) || fail "region destroy: $out"
echo "$out"
sample region_destroy_offline_ms "$(ms_of "$out" 'done in ')"
sample memtotal_after_kb "$(memtotal_kb)"
step "remove" cxlvctl remove cxlv0
rmmod cxl_virt
