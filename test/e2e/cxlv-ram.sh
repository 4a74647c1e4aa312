#!/bin/bash
# vm: --mem 3G --numa-split 2G --memmap 1G$0x100000000
# kernels: 6.12 7.3
# sets: smoke
# A volatile (pmem=0) cxl_virt device gives a RAM region on 6.12 and 7.3: dax_cxl
# makes the dax device, kmem hot-adds it, MemTotal grows by the capacity and
# the memory is the guest's CPU-less node 1 (the memmap'd range is that
# node's whole RAM). A program bound to the node writes and reads back a
# pattern; the device cannot be removed nor the module unloaded while the
# memory is online; offlining the blocks and destroying the region gives
# MemTotal back. Then the kmem leak (issue 14): a second RAM region is
# unbound and destroyed while its blocks are online, so kmem cannot remove
# them and leaves "System RAM (kmem)" behind; remove and rmmod must be
# refused, /proc/iomem must keep every entry and no create may take the
# range again.
. /cxlv/test/vm/guest/cxlv.sh

# shellcheck source=test/e2e/cxlvctl-region-ram-lib.sh
. "$CXLV/test/e2e/cxlvctl-region-ram-lib.sh"

load_stack --ram --pmem
dev=$(create "memstart=0x100000000,memsize=$((1 << 30)),cxltype=3,pmem=0")
wait_ready "$dev"
cap=$(attr "$dev" capacity)
step "memdev is volatile" json_has ".ram_size == $cap and (.pmem_size // 0) == 0" cxl_one -m "$(attr "$dev" memdev)"
step "root decoder is RAM-capable" test -e "/sys/bus/cxl/devices/$(attr "$dev" decoder)/create_ram_region"
step "node 1 has no memory before" numactl -H

# ZONE_MOVABLE, so that the memory can be offlined again (cxlvctl's default)
sysw online_movable $MEMDIR/auto_online_blocks
total0=$(($(memtotal_kb) << 10))
t0=$(now_us)
region=$(sysfs_region "$dev" ram)
wait_for 30 blocks_in online dax0.0 || fail "memory of $region not online"
t1=$(now_us)
say "ram region $region online: $(((t1 - t0) / 1000)) ms"
step "daxctl: system-ram on node 1" json_has \
	'.[0].mode == "system-ram" and .[0].target_node == 1 and .[0].movable' daxctl list
total1=$(($(memtotal_kb) << 10))
say "MemTotal $total0 -> $total1 (capacity $cap)"
expect_eq "MemTotal growth" $((total1 - total0)) "$cap"
step "numactl -H" numactl -H
step "pattern through numactl --membind=1" membind_pattern 1 32

expect_eq "remove while online" "$(ctl "$CXLV_DBG/remove" "cxlv_dev_id=${dev#cxlv}")" EBUSY
cat "$CXLV_SYS/last_error"
step "rmmod refused while online" sh -c '! rmmod cxl_virt'

t0=$(now_us)
for b in $(blocks_of dax0.0); do
	sysw offline "$MEMDIR/$b/state"
done
t1=$(now_us)
say "offline $(blocks_of dax0.0 | wc -l) blocks: $(((t1 - t0) / 1000)) ms"
expect_eq "MemTotal after offline" $(($(memtotal_kb) << 10)) "$total0"
drop_region "$region"
expect_eq "$dev state without a region" "$(attr "$dev" state)" ready

# --- the kmem leak: destroy a region whose memory is online ---
region=$(sysfs_region "$dev" ram)
wait_for 30 blocks_in online dax0.0 || fail "memory of $region not online"
step "pattern in the second region's memory" membind_pattern 1 16
step "unbind $region while online" sh -c "echo $region >/sys/bus/cxl/drivers/cxl_region/unbind"
step "destroy $region while online" \
	sh -c "echo $region >/sys/bus/cxl/devices/$(attr "$dev" decoder)/delete_region"
expect_eq "MemTotal: the memory stays online" $(($(memtotal_kb) << 10)) "$total1"
step "kmem left System RAM (kmem)" grep 'System RAM (kmem)' /proc/iomem
io0=$(cat /proc/iomem)
expect_eq "remove with kmem's memory left" "$(ctl "$CXLV_SYS/remove" "cxlv_dev_id=${dev#cxlv}")" EBUSY
say "EBUSY: $(cat "$CXLV_SYS/last_error")"
has "another owner" "$CXLV_SYS/last_error" || fail "last_error does not say why"
step "rmmod refused with kmem's memory left" sh -c '! rmmod cxl_virt'
step "dmesg names the leftover" wait_for 10 sh -c 'dmesg | grep "holds memory of another owner"'
[ "$(cat /proc/iomem)" = "$io0" ] || fail "/proc/iomem changed"
expect_eq "devices" "$(device_count)" 1
expect_eq "create over the online memory" \
	"$(ctl "$CXLV_SYS/create" "memstart=0x100000000,memsize=$((1 << 30)),cxltype=3,pmem=0,serial=7")" EBUSY
step "pattern still reads back in the online memory" membind_pattern 1 16
no_kernel_complaints
say PASS
