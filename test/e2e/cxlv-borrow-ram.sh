#!/bin/bash
# vm: --mem 5G --numa-split 3G --append nokaslr --append nogbpages
# kernels: 6.12 7.3
# A RAM region on borrowed memory (issue 17), in a guest booted without
# memmap=: borrow=1 with pmem=0 takes 1 GiB from the top of memory, node 1
# (CPU-less: the guest's top 2 GiB), the RAM region's memory comes
# online through kmem on the range's node, MemTotal grows by the capacity,
# a pattern written under numactl --membind to that node reads back; the
# memory goes offline, the region goes, remove with release=1 gives the
# range back and MemTotal returns within its struct pages. First, a borrow
# of all of node 1 is refused (issue 30): it would leave the node no memory;
# the reason names the node and how much it can give.
. /cxlv/test/vm/guest/cxlv.sh
# shellcheck source=test/e2e/borrow-lib.sh
. "$CXLV/test/e2e/borrow-lib.sh"

SIZE=$((1 << 30))
load_stack --ram --pmem
cp "$PATCHECK" /tmp/patcheck && PATCHECK=/tmp/patcheck
total0=$(memtotal_kb)
blocks1=$(ls -d /sys/devices/system/node/node1/memory[0-9]* | sed 's/.*memory//' | sort -n)
bs=$((0x$(cat $MEMDIR/block_size_bytes)))
lo=$(($(head -n 1 <<<"$blocks1") * bs)) hi=$((($(tail -n 1 <<<"$blocks1") + 1) * bs))
expect_eq "node 1 is one run of blocks" $(((hi - lo) / bs)) "$(wc -l <<<"$blocks1")"
refused "all of node 1 ($(((hi - lo) >> 20)) MiB at $lo)" "$CXLV_DBG/create" \
	"borrow=1,memstart=$lo,memsize=$((hi - lo)),cxltype=3,pmem=0" ENOMEM "node 1 can give at most"
timed "borrow 1 GiB, pmem=0" sh -c "echo borrow=1,memsize=$SIZE,cxltype=3,pmem=0 >$CXLV_DBG/create"
step "borrowed" cat "$CXLV_SYS/borrowed"
node=$(borrowed_field 3)
dev=cxlv0
wait_ready $dev
cap=$(attr $dev capacity)
sysw online_movable $MEMDIR/auto_online_blocks
total1=$(($(memtotal_kb) << 10))
region=$(sysfs_region $dev ram)
wait_for 30 blocks_in online dax0.0 || fail "memory of $region not online"
step "daxctl: system-ram on node $node" json_has ".[0].mode == \"system-ram\" and .[0].target_node == $node" daxctl list
total2=$(($(memtotal_kb) << 10))
say "MemTotal $total1 -> $total2 (capacity $cap)"
expect_eq "MemTotal growth" $((total2 - total1)) "$cap"
step "numactl -H" numactl -H
step "pattern through numactl --membind=$node" membind_pattern "$node" 32
expect_eq "remove while online" "$(ctl "$CXLV_DBG/remove" "cxlv_dev_id=0,release=1")" EBUSY
for b in $(blocks_of dax0.0); do
	sysw offline "$MEMDIR/$b/state"
done
drop_region "$region"
online_policy
t0=$(uptime_ms)
expect_eq "remove with release=1" "$(ctl "$CXLV_DBG/remove" "cxlv_dev_id=0,release=1")" OK
echo "TIME release 1 GiB: $(($(uptime_ms) - t0)) ms"
expect_eq "borrowed" "$(cat "$CXLV_SYS/borrowed")" ""
wait_for 30 sh -c "! grep -q offline $MEMDIR/memory*/state" || fail "blocks offline: $(blocks)"
delta=$(($(memtotal_kb) - total0))
say "MemTotal delta after borrow + release: $delta kB (struct pages of the range: $(struct_pages_kb "$SIZE") kB)"
[ "${delta#-}" -le $(struct_pages_kb "$SIZE") ] || fail "MemTotal moved by $delta kB"
step "rmmod" rmmod cxl_virt
no_kernel_complaints
say PASS
