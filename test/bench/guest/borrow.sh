#!/bin/bash
# Guest half of the borrow bench in test/bench/ram-node.sh, on a guest booted
# without memmap=: RUNS times, a pmem device made on SIZE bytes borrowed from
# System RAM (borrow=1: offline and remove, then the device), removed, made
# again on the same (still borrowed) range, removed with release=1 (the
# device goes, the range is hot-added and onlined). The differences are the
# borrow and the give-back alone. auto_online_blocks is set to online for
# the run, so a give-back ends with the memory online, as it began. Each
# borrow zeroes the range before the device exists (issue 30): its kernel
# log line gives the time that took.
# Writes "name<TAB>value" lines to /out/samples.tsv.
#   borrow.sh runs=N size=BYTES
. /cxlv/test/vm/guest/cxlv.sh

runs=5 size=$((2 << 30))
# shellcheck source=test/bench/guest/samples.sh
. /cxlv/test/bench/guest/samples.sh
ms_since() { echo $((($(now_us) - $1) / 1000)); }

load_stack
echo online >/sys/devices/system/memory/auto_online_blocks
spec="cxltype=3,pmem=1"
sample memtotal_before_kb "$(memtotal_kb)"
for ((i = 0; i < runs; i++)); do
	t=$(now_us)
	dev=$(create "borrow=1,memsize=$size,$spec")
	sample borrow_create_ms "$(ms_since "$t")"
	zero=$(dmesg | sed -n 's/.*cxl_virt: borrowed .*, zeroed in \([0-9]*\) ms$/\1/p' | tail -n 1)
	[ -n "$zero" ] || fail "no 'zeroed in' line after the borrow"
	sample borrow_zero_ms "$zero"
	start=$(attr "$dev" memstart)
	sample memtotal_borrowed_kb "$(memtotal_kb)"
	t=$(now_us)
	remove "$dev"
	sample remove_ms "$(ms_since "$t")"
	t=$(now_us)
	dev=$(create "memstart=$start,memsize=$size,$spec")
	sample create_ms "$(ms_since "$t")"
	t=$(now_us)
	r=$(ctl "$CXLV_DBG/remove" "cxlv_dev_id=${dev#cxlv},release=1")
	[ "$r" = OK ] || fail "remove with release=1: $r: $(cat "$CXLV_SYS/last_error")"
	sample remove_release_ms "$(ms_since "$t")"
	sample memtotal_after_kb "$(memtotal_kb)"
done
no_kernel_complaints
