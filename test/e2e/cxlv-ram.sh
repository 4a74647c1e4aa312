#!/bin/bash
# vm: --mem 4G --numa-split 2G --memmap 2G$0x100000000
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
# Between the two, partitions (issue 33 item 4): a pmem=1 device of 1 GiB
# after the RAM device's range is all persistent and partitionable; a
# misaligned `cxl set-partition` is refused with nothing changed; a 512 MiB
# volatile part is the "next" layout until remove and create (the power
# cycle), then the memdev has 512 MiB ram + 512 MiB pmem, each with the
# root decoder's qos_class from its own DSMAS; on the one memdev a RAM
# region comes online as node 1 memory and a pmem region carries an fsdax
# namespace whose data reads back, through the device's two root decoders
# (the volatile, then the persistent part of its window; two endpoint
# decoders, ram then pmem);
# ram_size= sets the factory layout and is refused misaligned, past the
# capacity and without pmem=1, in one line each.
. /cxlv/test/vm/guest/cxlv.sh

# shellcheck source=test/e2e/cxlvctl-region-ram-lib.sh
. "$CXLV/test/e2e/cxlvctl-region-ram-lib.sh"

load_stack --ram --pmem
# 768 MiB: 512 MiB of capacity, the rest of node 1 for the partitioned device
dev=$(create "memstart=0x100000000,memsize=$((3 << 28)),cxltype=3,pmem=0")
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

# --- partitions: 512 MiB ram + 512 MiB pmem on one memdev ---
# set_partition MEMDEV ARGS...: the stock `cxl set-partition`.
set_partition() { cxl set-partition "$@" 2>&1; }
# part_info MEMDEV: cxl list -I's partition_info.
part_info() { cxl_one -I -m "$1" | jq -c .partition_info; }
pstart=$((0x130000000)) psize=$((5 << 28))
pspec="memstart=$pstart,memsize=$psize,cxltype=3,pmem=1"
t0=$(now_us)
pdev=$(create "$pspec")
wait_ready "$pdev"
pcap=$(attr "$pdev" capacity) pmem=$(attr "$pdev" memdev)
expect_eq "$pdev capacity" "$pcap" $((1 << 30))
step "all persistent and partitionable" json_has \
	".total_size == $pcap and .active_persistent_size == $pcap and (.active_volatile_size // 0) == 0 and .partition_alignment_size > 0" part_info "$pmem"
align=$(part_info "$pmem" | jq .partition_alignment_size)
half=$((pcap / 2))
((half % align == 0)) || fail "alignment $align does not split $pcap in half"
step "misaligned set-partition refused" sh -c "! cxl set-partition -t ram -s $((align / 2)) $pmem"
step "nothing pending after the refusal" json_has '(.next_volatile_size // 0) == 0 and (.next_persistent_size // 0) == 0' part_info "$pmem"
step "cxl set-partition -t ram -s $half" set_partition "$pmem" -t ram -s "$half"
step "the next layout is pending" json_has ".next_volatile_size == $half and .next_persistent_size == $((pcap - half)) and (.active_volatile_size // 0) == 0" part_info "$pmem"
step "until the power cycle the memdev is all pmem" json_has ".pmem_size == $pcap and (.ram_size // 0) == 0" cxl_one -m "$pmem"
remove "$pdev"
pdev=$(create "$pspec")
wait_ready "$pdev"
pmem=$(attr "$pdev" memdev)
step "after remove and create: ram + pmem" json_has ".ram_size == $half and .pmem_size == $((pcap - half))" cxl_one -m "$pmem"
step "nothing pending" json_has ".active_volatile_size == $half and (.next_volatile_size // 0) == 0" part_info "$pmem"
# A root decoder for each kind: the volatile part of the window, then the
# persistent part, as a platform's two CFMWS would give them.
read -r rroot proot extra <<<"$(attr "$pdev" decoder)"
[ -n "$proot" ] && [ -z "$extra" ] || fail "$pdev: root decoders '$(attr "$pdev" decoder)', want two"
step "$rroot makes RAM regions only" sh -c "test -e /sys/bus/cxl/devices/$rroot/create_ram_region && ! test -e /sys/bus/cxl/devices/$rroot/create_pmem_region"
step "$proot makes pmem regions only" sh -c "test -e /sys/bus/cxl/devices/$proot/create_pmem_region && ! test -e /sys/bus/cxl/devices/$proot/create_ram_region"
wstart=$(attr "$pdev" window_start)
expect_eq "$rroot starts the window" "$(cat "/sys/bus/cxl/devices/$rroot/start")" "$(printf %#x "$wstart")"
expect_eq "$proot starts after the volatile part" "$(cat "/sys/bus/cxl/devices/$proot/start")" "$(printf %#x $((wstart + half)))"
for root in "$rroot" "$proot"; do
	expect_eq "$root qos_class" "$(cat "/sys/bus/cxl/devices/$root/qos_class")" "$(cat "/sys/bus/cxl/devices/$rroot/qos_class")"
done
qos=$(cat "/sys/bus/cxl/devices/$proot/qos_class")
expect_eq "$pmem ram qos_class (its DSMAS)" "$(cat "/sys/bus/cxl/devices/$pmem/ram/qos_class")" "$qos"
expect_eq "$pmem pmem qos_class (its DSMAS)" "$(cat "/sys/bus/cxl/devices/$pmem/pmem/qos_class")" "$qos"
# RAM first: an endpoint's decoders take DPA in increasing order (CXL r3.0
# 8.2.4.19), and the volatile partition comes first; each region takes the
# start of its own root window. Debian 12's cxl-cli (ndctl 76.1) makes no
# RAM region: there through sysfs, as libcxl does it.
if [ "$(cxl --version | cut -d. -f1)" -gt 76 ]; then
	rregion=$(cxl create-region -t ram -m -d "$rroot" -w 1 -s "$half" "$pmem" | jq -r .region)
else
	rregion=$(make_sysfs_region "$rroot" "$(endpoint_decoder "$pmem")" ram "$half")
fi
[ -n "$rregion" ] && [ "$rregion" != null ] || fail "no RAM region on $pmem"
pdax=$(daxctl list | jq -r '.[0].chardev')
wait_for 30 blocks_in online "$pdax" || fail "memory of $rregion not online"
step "daxctl: $pdax system-ram on node 1" json_has '.[0].mode == "system-ram" and .[0].target_node == 1' daxctl list
step "pattern in the ram partition through numactl --membind=1" membind_pattern 1 16
pregion=$(cxl create-region -t pmem -m -d "$proot" -w 1 -s $((pcap - half)) "$pmem" | jq -r .region)
[ -n "$pregion" ] && [ "$pregion" != null ] || fail "cxl create-region -t pmem on $pmem"
step "$pregion at the start of $proot" json_has ".[0].resource == $((wstart + half))" cxl list -R -r "$pregion"
ep=$(endpoint_decoder "$pmem")
expect_eq "${ep} mode" "$(cat "/sys/bus/cxl/devices/$ep/mode")" ram
expect_eq "${ep%.0}.1 mode" "$(cat "/sys/bus/cxl/devices/${ep%.0}.1/mode")" pmem
ns=$(make_namespace "$pregion" fsdax)
blk=/dev/$(jq -r .blockdev <<<"$ns")
step "pattern through $blk" check_pattern "$blk" 21 --size $((16 << 20))
drop_partitioned "$ns" "$pregion" "$pdax" "$rregion" "$pdev"
# ram_size= is what the device is born with, refused in one line otherwise
expect_eq "ram_size misaligned" "$(ctl "$CXLV_DBG/create" "$pspec,ram_size=$((align / 2))")" EINVAL
has "partition alignment" "$CXLV_SYS/last_error" || fail "last_error: $(cat "$CXLV_SYS/last_error")"
expect_eq "ram_size past the capacity" "$(ctl "$CXLV_DBG/create" "$pspec,ram_size=$pcap")" ERANGE
has "not below" "$CXLV_SYS/last_error" || fail "last_error: $(cat "$CXLV_SYS/last_error")"
expect_eq "ram_size without pmem=1" "$(ctl "$CXLV_DBG/create" "memstart=$pstart,memsize=$psize,cxltype=3,pmem=0,ram_size=$half")" EINVAL
has "needs pmem=1" "$CXLV_SYS/last_error" || fail "last_error: $(cat "$CXLV_SYS/last_error")"
pdev=$(create "$pspec,ram_size=0")
wait_ready "$pdev"
step "ram_size=0: all pmem again" json_has ".pmem_size == $pcap and (.ram_size // 0) == 0" cxl_one -m "$(attr "$pdev" memdev)"
remove "$pdev"
say "partitions: $((($(now_us) - t0) / 1000)) ms"

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
