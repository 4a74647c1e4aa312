#!/bin/bash
# vm: --mem 4G --append nokaslr
# What a borrow (issue 17) refuses, in a guest booted without memmap=: more
# than the floor allows (8 GiB on a 4 GiB guest, and just over MemAvailable
# less the floor), more than there is System RAM above 4 GiB, a memsize not
# a multiple of 256 MiB, an exact range below 4 GiB or holding the kernel
# image, a release of an address that is not a borrowed range, and a range
# holding long-term pinned pages (io_uring fixed buffers), whose offlining
# the module aborts after borrow_timeout_ms. Each with its errno and a
# one-line last_error, MemTotal and every memory block's state unchanged.
# nokaslr keeps the kernel image below 4 GiB (its range is then refused as
# such): with the image in high memory, 6.1 and 6.12 refuse every range
# below it in the same System RAM entry (cxlv_compat.h), which would leave
# the pinned pages' range no way to show the timeout.
. /cxlv/test/vm/guest/cxlv.sh
# shellcheck source=test/e2e/borrow-lib.sh
. "$CXLV/test/e2e/borrow-lib.sh"

M=$((1 << 20))
PIECE=$((256 * M))
borrow() { echo "borrow=1,memsize=$1,cxltype=3,pmem=1${2:+,memstart=$2}"; }
load_stack
say "$(mem_state)"

refused "8 GiB on a 4 GiB guest" "$CXLV_DBG/create" "$(borrow $((8 << 30)))" ENOMEM floor
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
# not the first piece above 4 GiB, the topmost, nor the kernel's: early
# boot leaves unmovable pages there, which fail offlining at once (EBUSY)
pinned=
while read -r a; do
	[[ $a == 0x* ]] && [ $((a)) -gt $((4 << 30)) ] && [ $((a + PIECE)) -lt $(((4 << 30) + high)) ] &&
		[ $((a)) != "$kbase" ] && pinned=$a && break
done </tmp/pin.out
[ -n "$pinned" ] || fail "no pinned page inside System RAM above 4 GiB"
sysw 3000 /sys/module/cxl_virt/parameters/borrow_timeout_ms
t0=$(uptime_ms)
refused "exact range with pinned pages at $pinned" "$CXLV_DBG/create" "$(borrow "$PIECE" "$pinned")" ETIMEDOUT "timed out"
echo "TIME pinned range aborted and rolled back: $(($(uptime_ms) - t0)) ms"
kill "$pin_pid"
wait "$pin_pid" || true
t0=$(uptime_ms)
expect_eq "512 MiB from there once unpinned" "$(ctl "$CXLV_DBG/create" "$(borrow $((2 * PIECE)) "$pinned")")" OK
echo "TIME borrow 512 MiB + create: $(($(uptime_ms) - t0)) ms"
step "borrowed" grep "^$pinned $((2 * PIECE)) " "$CXLV_SYS/borrowed"
online_policy
expect_eq "remove with release=1" "$(ctl "$CXLV_DBG/remove" "cxlv_dev_id=0,release=1")" OK
step "rmmod" rmmod cxl_virt
no_kernel_complaints
say PASS
