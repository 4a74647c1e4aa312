#!/bin/bash
# Guest half of test/bench/ram-node.sh, on each suite kernel, in a VM whose
# CPU reports a hypervisor. First the data path: a pmem cxl_virt device over
# the memmap'd range gets a region and devdax namespace (cxlvctl), and
# memiops' 1 KiB random writes and reads through its mmap are measured
# against anonymous memory, interleaved. Then that range, the guest's
# CPU-less node 1, becomes a RAM region (6.3+: a RAM region of a pmem=0
# device; 6.1: a pmem region through devdax and kmem, the path cxlvctl takes
# there); measures the region's create (commit to memory online) and destroy
# (offline) times, and memiops on anonymous memory bound to node 0 and to
# node 1, interleaved. RUNS times each. Writes "name<TAB>value" lines to
# /out/samples.tsv.
#   ram-node.sh runs=N seconds=S memsize=BYTES
. /cxlv/test/vm/guest/cxlv.sh

runs=5 seconds=2 memsize=$((2 << 30))
# shellcheck source=test/bench/guest/samples.sh
. /cxlv/test/bench/guest/samples.sh
# ms_of TEXT PATTERN: the number of milliseconds after PATTERN in TEXT.
ms_of() { grep -o "$2[0-9.]*ms" <<<"$1" | head -1 | grep -o '[0-9.]*'; }

mkdir -p /tmp/bench-bin
cp /cxlv/bin/cxlvctl /cxlv/results/tmp/bin/memiops "$PATCHECK" /tmp/bench-bin/
PATH=/tmp/bench-bin:$PATH

sample boot_uptime_s "$(cut -d' ' -f1 /proc/uptime)"
load_stack
# dax_cxl binds RAM regions' dax devices (6.3+); 6.1 has device_dax only
/sbin/modprobe -a kmem device_dax || fail "modprobe kmem device_dax"
! /sbin/modinfo dax_cxl >/dev/null 2>&1 || /sbin/modprobe dax_cxl || fail "modprobe dax_cxl"
# --- data path: devdax against anonymous RAM
step "pmem device" cxlvctl create --memstart 0x100000000 --size "$memsize" --pmem
out=$(cxlvctl region create --device cxlv0 --namespace devdax) || fail "devdax region create: $out"
echo "$out"
dax=/dev/$(daxctl list | jq -r '.[0].chardev')
[ -c "$dax" ] || fail "no devdax character device after region create ($dax)"
check_devdax "$dax"
for ((run = 1; run <= runs; run++)); do
	for op in write read; do
		memiops_sample "memiops_${op}_devdax" $op "$dax"
		memiops_sample "memiops_${op}_anon" $op anon
	done
done
region=$(cxlvctl list --json | jq -r '[.. | .region? // empty][0]')
step "devdax region destroy" cxlvctl region destroy "$region"
# 6.1 has no RAM regions: there cxlvctl makes RAM of a pmem region's devdax
# through kmem, so the RAM node's device is pmem too.
ram_device=()
[ -e "/sys/bus/cxl/devices/$(attr cxlv0 decoder)/create_ram_region" ] || ram_device=(--pmem)
step "remove the pmem device" cxlvctl remove cxlv0

# --- RAM node
step "device for the RAM region" cxlvctl create --memstart 0x100000000 --size "$memsize" "${ram_device[@]}"
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
			memiops_sample "memiops_${op}_node$node" $op anon $node
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
