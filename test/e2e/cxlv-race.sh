#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000 --append iomem=relaxed
# boot: basic
# Teardown while the stock drivers are still probing: remove right after
# create (cxl_pci probes asynchronously and talks to the emulator), rmmod
# right after create, and remove just as cxl_mem binds. Each must leave no
# device, iomem resource or PCI domain behind, and a later create must work.
# All of it runs under global PCI rescans back to back (a rescan adds every
# scanned device of every root bus), which must change nothing. Then the
# emulator's poll parameters refuse values out of their bounds. First, the
# hooks table (/sys/bus/cxl_virt/hooks, cxlvctl info) on every kernel: on 6.1
# the CXL core has no CPU cache check, so coherent-regions is not needed; on
# 6.2+ in this VM (the CPU reports a hypervisor) it is armed.
. /cxlv/test/vm/guest/cxlv.sh

spec="memstart=0x100000000,memsize=$((1 << 30)),cxltype=3,pmem=1"

assert_gone() {
	expect_eq "devices after $1" "$(ls /sys/bus/cxl_virt/devices 2>/dev/null | wc -l)" 0
	grep -q "cxlv\|cxl_virt" /proc/iomem && fail "iomem not clean after $1"
	ls /sys/bus/pci/devices | has '^1[0-9a-f]\{4\}:' && fail "PCI domain left after $1"
	expect_eq "memdevs after $1" "$(cxl_count -M)" 0
}

load_stack
cat "$CXLV_SYS/hooks"
expect_eq "hooks: rows of six fields" "$(awk -F'\t' 'NF == 6' "$CXLV_SYS/hooks" | wc -l)" "$(wc -l <"$CXLV_SYS/hooks")"
case $KVER in
6.1.*) want=not-needed ;;
*) want=armed ;;
esac
expect_eq "hooks: coherent-regions" "$(awk -F'\t' '$1 == "coherent-regions" {print $2}' "$CXLV_SYS/hooks")" "$want"
step "cxlvctl info: the same" sh -c "cxlvctl info | grep '^cxl_virt hook coherent-regions: $want;'"
expect_eq "cxlvctl info --json: the same rows" "$(cxlvctl info --json | jq -r '.cxl_virt_hooks[] | [.name, .state] | join(" ")')" \
	"$(awk -F'\t' '{print $1, $2}' "$CXLV_SYS/hooks")"
rescans_start
for i in 1 2 3 4 5; do
	dev=$(create "$spec")
	remove "$dev"
	assert_gone "immediate remove $i"
done
for delay in 0.05 0.1 0.2 0.3; do
	dev=$(create "$spec")
	sleep "$delay"
	remove "$dev"
	assert_gone "remove after ${delay}s"
done
for i in 1 2 3; do
	create "$spec" >/dev/null
	rmmod cxl_virt
	assert_gone "rmmod right after create $i"
	insmod "$CXLV_KO"
done
dev=$(create "$spec")
wait_ready "$dev"
expect_eq state "$(attr "$dev" state)" ready
remove "$dev"
rescans_stop
say "$RESCAN_COUNT global PCI rescans ran during the creates, removes and rmmods"
assert_gone "the rescans"

# --- poll periods: bounded, a bad value refused with its bounds
params=/sys/module/cxl_virt/parameters
busy=$(cat $params/poll_busy_us) idle=$(cat $params/poll_idle_us)
for bad in "poll_busy_us 0" "poll_busy_us 1" "poll_busy_us 1001" "poll_busy_us x" \
	"poll_idle_us 999" "poll_idle_us 8001" "poll_idle_us 4294967296"; do
	set -- $bad
	echo "$2" >"$params/$1" 2>/dev/null && fail "$1=$2 accepted"
	dmesg | tail -5 | has "$1: want whole microseconds from" || fail "$1=$2: no message naming the bounds"
done
expect_eq "poll_busy_us after refusals" "$(cat $params/poll_busy_us)" "$busy"
expect_eq "poll_idle_us after refusals" "$(cat $params/poll_idle_us)" "$idle"
step "poll_busy_us=10 accepted" sh -c "echo 10 >$params/poll_busy_us"
step "poll_idle_us=8000 accepted" sh -c "echo 8000 >$params/poll_idle_us"
dev=$(create "$spec")
wait_ready "$dev"
remove "$dev"
rmmod cxl_virt
insmod "$CXLV_KO" poll_busy_us=1 2>/dev/null && fail "insmod with poll_busy_us=1 accepted"
dmesg | tail -5 | has "poll_busy_us: want whole microseconds from 10 to 1000" || fail "insmod poll_busy_us=1: no message"
say "poll periods out of bounds refused (sysfs and insmod), values unchanged"
no_kernel_complaints
say PASS
