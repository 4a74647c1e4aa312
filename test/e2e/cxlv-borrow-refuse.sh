#!/bin/bash
# vm: --mem 6G --append nokaslr --append nogbpages
# What a borrow (issue 17) refuses, in a guest booted without memmap=: more
# than the floor allows (8 GiB on a 6 GiB guest, and just over MemAvailable
# less the floor), more than there is System RAM above 4 GiB, a memsize not
# a multiple of 256 MiB, an exact range below 4 GiB or holding the kernel
# image, a release of an address that is not a borrowed range, and a range
# holding long-term pinned pages (io_uring fixed buffers), whose offlining
# the module aborts after borrow_timeout_ms, and which goes offline once
# unpinned (given back at once: too small for a device); a signal to the
# writer (SIGTERM, as Ctrl-C) stops such a borrow at once. Each with its errno and a
# one-line last_error, MemTotal and every memory block's state unchanged.
# Then CYCLES borrow/release cycles in the same boot: each a create with
# borrow=1 (the module picks 512 MiB from the top of memory down, the
# smallest range a device fits in) and a remove with release=1. After a
# warm-up cycle (the first release turns the boot-time struct pages of the
# range into free memory), MemTotal must come back exactly and Slab within
# the bounds of reliability-lifecycle (issue 7); every block is online at
# the end. Two borrows at once get a range each; rmmod racing a borrow
# leaves a whole state; rmmod gives back a range left borrowed with no
# device on it.
# nokaslr keeps the kernel image below 4 GiB (its range is then refused as
# such): with the image in high memory, 6.1 and 6.12 refuse every range
# below it in the same System RAM entry (cxlv_compat.h), which would leave
# the pinned pages' range no way to show the timeout. nogbpages: with a
# 1 GiB direct map only whole GiBs can be borrowed (cxlv-borrow checks
# that), and this guest has no whole GiB above 4 GiB free of early boot's
# unmovable pages. 6 GiB puts 4 GiB above 4 GiB: the kernel's unmovable
# pages (page tables, the struct pages of ranges given back) land anywhere
# there, and with 2 GiB two 512 MiB borrows at once sometimes found no
# second range free of them.
. /cxlv/test/vm/guest/cxlv.sh
# shellcheck source=test/e2e/borrow-lib.sh
. "$CXLV/test/e2e/borrow-lib.sh"

M=$((1 << 20))
PIECE=$((256 * M))
borrow() { echo "borrow=1,memsize=$1,cxltype=3,pmem=1${2:+,memstart=$2}"; }
load_stack
say "$(mem_state)"

refused "8 GiB on a 6 GiB guest" "$CXLV_DBG/create" "$(borrow $((8 << 30)))" ENOMEM floor
avail=$(($(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo) << 10))
total=$(($(memtotal_kb) << 10))
floor=$((total / 8 > 512 * M ? total / 8 : 512 * M))
over=$(((avail - floor) / PIECE * PIECE + PIECE))
refused "$((over / M)) MiB: over MemAvailable less the floor" "$CXLV_SYS/create" "$(borrow $over)" ENOMEM floor

# more than all System RAM above 4 GiB, yet within the floor
high=0
while IFS= read -r line; do
	r=${line%% : *} lo=$((0x${r%-*})) hi=$((0x${r#*-}))
	[ "$lo" -lt $((4 << 30)) ] || high=$((high + hi + 1 - lo))
done <<<"$(grep -E '^[0-9a-f]+-[0-9a-f]+ : System RAM$' /proc/iomem)"
more=$((high / PIECE * PIECE + PIECE))
[ $((avail - more)) -ge "$floor" ] || fail "the guest is too small for this case: $((high / M)) MiB above 4 GiB"
refused "$((more / M)) MiB: more than System RAM above 4 GiB" "$CXLV_DBG/create" "$(borrow $more)" ENOMEM "ask for less"

refused "memsize not a multiple of 256 MiB" "$CXLV_DBG/create" "$(borrow $((PIECE + 4096)))" EINVAL "256 MiB"
refused "exact range below 4 GiB" "$CXLV_DBG/create" "$(borrow $PIECE 0x40000000)" ERANGE "below 4 GiB"
kcode=$((0x$(sed -n 's/^ *\([0-9a-f]*\)-[0-9a-f]* : Kernel code$/\1/p' /proc/iomem)))
kbase=$((kcode / PIECE * PIECE))
refused "exact range holding the kernel image at $(printf '%#x' "$kcode")" \
	"$CXLV_DBG/create" "$(borrow "$PIECE" "$kbase")" ERANGE "below 4 GiB"
refused "release of an address that is not borrowed" "$CXLV_DBG/release" "memstart=0x100000000" ENOENT "no borrowed range"
refused "remove with release=1 of no device" "$CXLV_SYS/remove" "cxlv_dev_id=5,release=1" ENODEV

# --- a long-term pinned page in the range: offlining aborts, blocks come back ---
PIN=/cxlv/test/tools/bin/longterm-pin
"$PIN" 512 >/tmp/pin.out 2>&1 &
pin_pid=$!
wait_for 30 grep -qx pinned /tmp/pin.out || fail "longterm-pin: $(cat /tmp/pin.out)"
say "pieces with pinned pages: $(grep '^0x' /tmp/pin.out | tr '\n' ' ')"
# Not the first piece above 4 GiB, the topmost, nor the kernel's: early
# boot leaves unmovable pages there. Other pieces may hold an unmovable page
# too (a page table, io_uring's own pages): those fail at once with EBUSY,
# rolled back as well, and the next piece is tried; one must time out.
sysw 3000 /sys/module/cxl_virt/parameters/borrow_timeout_ms
pinned=
while read -r a; do
	[[ $a == 0x* ]] && [ $((a)) -gt $((4 << 30)) ] && [ $((a + PIECE)) -lt $(((4 << 30) + high)) ] &&
		[ $((a)) != "$kbase" ] || continue
	t0=$(uptime_ms)
	before=$(mem_state)
	got=$(ctl "$CXLV_DBG/create" "$(borrow "$PIECE" "$a")")
	say "exact range with pinned pages at $a: $got: $(one_line_error) ($(($(uptime_ms) - t0)) ms)"
	expect_eq "memory after the pinned range at $a" "$(mem_state)" "$before"
	expect_eq "borrowed after the pinned range at $a" "$(cat "$CXLV_SYS/borrowed")" ""
	case $got in
	ETIMEDOUT) pinned=$a && break ;;
	EBUSY) ;;
	*) fail "pinned range at $a: $got" ;;
	esac
done </tmp/pin.out
[ -n "$pinned" ] || fail "no pinned range timed out"
has "timed out" "$CXLV_SYS/last_error" || fail "last_error does not say it timed out"
echo "TIME pinned range aborted and rolled back: $(($(uptime_ms) - t0)) ms"
# a signal to the writer ends the wait at once, as Ctrl-C would
sysw 60000 /sys/module/cxl_virt/parameters/borrow_timeout_ms
before=$(mem_state)
t0=$(uptime_ms)
sh -c "echo '$(borrow "$PIECE" "$pinned")' >$CXLV_DBG/create" &
writer=$!
sleep 2
kill -TERM "$writer"
wait "$writer" && fail "the write succeeded"
took=$(($(uptime_ms) - t0))
echo "TIME pinned range, writer killed after 2 s: $took ms"
[ "$took" -lt 10000 ] || fail "the borrow went on for $took ms after the signal"
e=$(one_line_error)
say "after SIGTERM: $e"
[[ $e == *"interrupted by a signal"* ]] || fail "last_error does not say it was interrupted"
expect_eq "memory after the interrupted borrow" "$(mem_state)" "$before"
expect_eq "borrowed after the interrupted borrow" "$(cat "$CXLV_SYS/borrowed")" ""
kill "$pin_pid"
wait "$pin_pid" || true
# Unpinned, the same piece goes offline: too small for a device (ENOSPC),
# so the create gives the borrowed range straight back.
online_policy
before=$(mem_state)
# io_uring drops its pins from a worker after the process exits, so the
# piece may still be busy (EBUSY, rolled back) for a moment.
unpinned_borrow() {
	local got
	got=$(ctl "$CXLV_DBG/create" "$(borrow "$PIECE" "$pinned")")
	echo "$got"
	[ "$got" = ENOSPC ] || [ "$got" = EBUSY ] || fail "the unpinned piece: $got: $(cat "$CXLV_SYS/last_error")"
	[ "$got" = ENOSPC ]
}
wait_for 30 unpinned_borrow || fail "the same 256 MiB stayed busy 30 s after it was unpinned"
step "it was borrowed, then given back" sh -c \
	"dmesg | grep -A3 'borrowed 256 MiB of System RAM at $pinned' | grep 'gave 256 MiB at $pinned back'"
wait_for 30 sh -c "! grep -q offline $MEMDIR/memory*/state" || fail "blocks offline: $(blocks)"
after=$(mem_state)
expect_eq "blocks after a create that could not use its borrow" "${after#*; }" "${before#*; }"
# the range's boot-time struct pages (64 B per page) join MemTotal
grown=$(($(memtotal_kb) - $(sed 's/^MemTotal \([0-9]*\).*/\1/' <<<"$before")))
say "MemTotal grew by $grown kB (struct pages of the range: $(struct_pages_kb "$PIECE") kB)"
[ "$grown" -ge 0 ] && [ "$grown" -le $(struct_pages_kb "$PIECE") ] || fail "MemTotal moved by $grown kB"
expect_eq "borrowed" "$(cat "$CXLV_SYS/borrowed")" ""

# --- borrow/release cycles, races, rmmod ---
CYCLES=50
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
# Two borrows at once, one through each control file: the control lock
# serialises them, and each gets its own range and device.
# as_before WHAT: every block online again, and MemTotal as before up to
# the struct pages of two ranges the cycles had not borrowed yet (64 bytes
# a page: their boot memory map was outside MemTotal).
as_before() {
	local grew=$(($(memtotal_kb) - mt_before))
	wait_for 30 sh -c "! grep -q offline $MEMDIR/memory*/state" || fail "$1: blocks offline: $(blocks)"
	expect_eq "$1: blocks" "$(blocks)" "$blocks_before"
	[ "$grew" -ge 0 ] && [ "$grew" -le "$(struct_pages_kb $((2 * SIZE)))" ] || fail "$1: MemTotal grew by $grew kB"
}
mt_before=$(memtotal_kb) blocks_before=$(blocks)
ctl "$CXLV_DBG/create" "borrow=1,memsize=$SIZE,cxltype=3,pmem=1" >/tmp/race1 &
ctl "$CXLV_SYS/create" "borrow=1,memsize=$SIZE,cxltype=3,pmem=1" >/tmp/race2 &
wait
expect_eq "two borrows at once" "$(cat /tmp/race1 /tmp/race2 | tr '\n' ' ')" "OK OK "
cat "$CXLV_SYS/borrowed"
expect_eq "a device on each range" "$(cut -d' ' -f4 "$CXLV_SYS/borrowed" | sort | tr '\n' ' ')" "cxlv0 cxlv1 "
for id in 0 1; do
	expect_eq "remove cxlv$id with release=1" "$(ctl "$CXLV_DBG/remove" "cxlv_dev_id=$id,release=1")" OK
done
as_before "after the racing borrows"

# rmmod racing a borrow: the open control file holds the module, so rmmod
# fails while the borrow runs, or comes before it (the write finds no file)
# or after it (the idle device goes, its range is given back). Whichever
# won, nothing is half-made: the range has its device, or memory is as it
# was.
ctl "$CXLV_DBG/create" "borrow=1,memsize=$SIZE,cxltype=3,pmem=1" >/tmp/race3 &
if rmmod cxl_virt 2>/dev/null; then rmmod_won=yes; else rmmod_won=no; fi
wait
say "borrow: $(cat /tmp/race3), rmmod went through: $rmmod_won"
if [ -d "$CXLV_SYS" ]; then
	expect_eq "the borrow won" "$(cat /tmp/race3) $(borrowed_field 4)" "OK cxlv0"
	expect_eq "release it" "$(ctl "$CXLV_DBG/remove" "cxlv_dev_id=0,release=1")" OK
else
	insmod "$CXLV_KO" || fail "insmod after the race"
fi
as_before "after rmmod raced a borrow"

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
