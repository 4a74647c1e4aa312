#!/bin/bash
# vm: --mem 4G --append nokaslr --append nogbpages
# CYCLES borrow/release cycles (issue 17): each a create with borrow=1 (the
# module picks 512 MiB from the top of memory down, the smallest range a
# device fits in) and a remove with release=1. After a warm-up cycle (the
# first release turns the boot-time struct pages of the range into free
# memory), MemTotal must come back exactly and Slab within the bounds of
# reliability-lifecycle (issue 7); every block is online at the end. Then
# rmmod gives back a range left borrowed with no device on it. nokaslr and
# nogbpages: see cxlv-borrow-refuse.
. /cxlv/test/vm/guest/cxlv.sh
# shellcheck source=test/e2e/borrow-lib.sh
. "$CXLV/test/e2e/borrow-lib.sh"

CYCLES=${1:-50}
SLAB_KB_FLOOR=512 SLAB_KB_PER_CYCLE=2
SIZE=$((512 << 20))

slab_kb() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	awk '/^Slab:/ { print $2 }' /proc/meminfo
}

# cycle N: borrow, check, release
cycle() {
	local r
	r=$(ctl "$CXLV_DBG/create" "borrow=1,memsize=$SIZE,cxltype=3,pmem=1")
	[ "$r" = OK ] || fail "cycle $1: borrow: $r: $(cat "$CXLV_SYS/last_error")"
	[ "$(borrowed_field 4)" = cxlv0 ] || fail "cycle $1: borrowed: $(cat "$CXLV_SYS/borrowed")"
	r=$(ctl "$CXLV_DBG/remove" "cxlv_dev_id=0,release=1")
	[ "$r" = OK ] || fail "cycle $1: release: $r: $(cat "$CXLV_SYS/last_error")"
	[ -z "$(cat "$CXLV_SYS/borrowed")" ] || fail "cycle $1: still borrowed: $(cat "$CXLV_SYS/borrowed")"
}

load_stack
online_policy
cycle 0
say "after warm-up: $(mem_state)"
before=$(mem_state)
slab0=$(slab_kb)
t0=$(uptime_ms)
for ((i = 1; i <= CYCLES; i++)); do
	cycle "$i"
done
t1=$(uptime_ms)
echo "TIME $CYCLES borrow/release cycles of $((SIZE >> 20)) MiB: $((t1 - t0)) ms, $(((t1 - t0) / CYCLES)) ms per cycle"
wait_for 30 sh -c "! grep -q offline $MEMDIR/memory*/state" || fail "blocks offline: $(blocks)"
slab1=$(slab_kb)
say "after $CYCLES cycles: $(mem_state); Slab $slab0 -> $slab1 kB"
expect_eq "MemTotal and blocks after $CYCLES cycles" "$(mem_state)" "$before"
[ $((slab1 - slab0)) -le $((SLAB_KB_FLOOR + CYCLES * SLAB_KB_PER_CYCLE)) ] ||
	fail "Slab grew $((slab1 - slab0)) kB over $CYCLES cycles"
# rmmod gives back a free borrowed range
cycle_total=$(memtotal_kb)
expect_eq "borrow for rmmod" "$(ctl "$CXLV_DBG/create" "borrow=1,memsize=$SIZE,cxltype=3,pmem=1")" OK
remove cxlv0
expect_eq "borrowed, free" "$(borrowed_field 4)" free
step "rmmod with a free borrowed range" rmmod cxl_virt
wait_for 30 sh -c "! grep -q offline $MEMDIR/memory*/state" || fail "blocks offline after rmmod: $(blocks)"
expect_eq "MemTotal after rmmod" "$(memtotal_kb)" "$cycle_total"
step "dmesg: given back at rmmod" sh -c 'dmesg | tail -5 | grep "cxl_virt: gave"'
no_kernel_complaints
say PASS
