#!/bin/bash
# vm: --mem 6G --append nokaslr
# cxlvctl on a guest booted with no memmap= at all: `create --size 2G --pmem`
# finds no reserved range and borrows 2 GiB of System RAM (no longer System
# RAM in /proc/iomem, MemTotal down by it), `ranges` lists it with its
# device and the command that gives it back; an fsdax namespace with xfs
# mounted -o dax keeps its files over a remount; a release while the device
# is on the range is refused (exit 5); after `remove --force` the range stays
# borrowed (MemTotal still down) and a plain `create` finds it again, where
# `region create --uuid` brings a devdax namespace back from its labels with
# its patterns; `remove --force --release` gives the memory back (MemTotal as
# before up to the struct pages of the range). Asking for more than the
# guest has is refused with one line and changes nothing, and --dry-run
# writes nothing. Then RAM: a 1G device on borrowed memory (pmem=0 where the
# kernel has RAM regions, else pmem=1 through devdax and kmem), `region
# create --type ram` puts its memory back online as kmem's (MemTotal grows
# by it), a pattern under numactl --membind reads back, destroy and
# `remove --release` leave MemTotal as at the start. A 512M device borrows
# 512M, also where the kernel maps RAM with 1 GiB pages. Prints
# TIME lines for the borrow and the release. nokaslr: see cxlv-borrow (6.1 and 6.12 borrow
# only above the kernel image, which physical KASLR puts anywhere).
# Needs bin/cxlvctl and kmod/cxl_virt.ko.
# shellcheck source=test/vm/guest/cxlv.sh
. "$CXLV/test/vm/guest/cxlv.sh"
# shellcheck source=test/vm/guest/region-state.sh
. "$CXLV/test/vm/guest/region-state.sh"
# shellcheck source=test/e2e/cxlvctl-region-lib.sh
. "$CXLV/test/e2e/cxlvctl-region-lib.sh"
# system_ram_in, memtotal_kb, has_ram_regions, membind_pattern
# shellcheck source=test/e2e/borrow-lib.sh
. "$CXLV/test/e2e/borrow-lib.sh"

memtotal() { echo $(($(memtotal_kb) * 1024)); }

# borrowed_more: what is borrowed now adds its struct pages (64 bytes a
# page) to the slack: the boot memory map kept them outside MemTotal, a
# release leaves the hot-added range's in it.
slack=0
borrowed_more() {
	local bytes
	bytes=$("$CXLVCTL" ranges --json | jq '[.reserved[] | select(.borrowed) | .size] | add // 0')
	slack=$((slack + $(struct_pages_kb "$bytes") * 1024))
}

# within_slack WHAT BYTES: MemTotal is BYTES up to the slack.
within_slack() {
	local now
	now=$(memtotal)
	say "$1: MemTotal $now, want $2 within $slack"
	[ "$now" -le $(($2 + slack)) ] && [ "$now" -ge $(($2 - slack)) ]
}

# ranges_json JQ WANT: `cxlvctl ranges --json` gives WANT for JQ.
ranges_json() {
	local got
	got=$("$CXLVCTL" ranges --json | jq -c "$1") || return
	[ "$got" = "$2" ] || { echo "ranges: $1 = $got, want $2"; return 1; }
}

ram_setup
mkdir -p "$MNT"
load_stack --ram --pmem
total=$(memtotal)
size=$((2 << 30))
step "no reserved range to start from" ranges_json '.reserved | length' 0

step "--dry-run plans a borrow and writes nothing" eval \
	"\"$CXLVCTL\" --dry-run create --size 2G --pmem | grep -x 'echo memsize=$size,cxltype=3,pmem=1,borrow=1 > .*/create'"
expect_eq "MemTotal after --dry-run" "$(memtotal)" "$total"
cli_refused 1 "ask for a smaller --size, or reserve memory at boot with memmap=" create --size 8G --pmem || fail "a borrow of 8G on a 6G guest"
expect_eq "MemTotal after the refused borrow" "$(memtotal)" "$total"
step "no device and no borrowed range after it" ranges_json '.reserved | length' 0

t0=$(uptime_ms)
json=$("$CXLVCTL" create --size 2G --pmem --json) || fail "cxlvctl create --size 2G (borrow)"
echo "TIME borrow 2G and create: $(($(uptime_ms) - t0)) ms"
printf '%s\n' "$json"
dev=$(jq -r .device <<<"$json")
start=$(jq -r .memstart <<<"$json")
borrowed_more
expect_eq "borrowed" "$(jq -r .borrowed <<<"$json")" true
expect_eq "memsize" "$(jq -r .memsize <<<"$json")" "$size"
step "the range is not System RAM any more" eval "! system_ram_in $start $size"
borrowed_total=$(memtotal)
say "MemTotal $total -> $borrowed_total after the borrow"
[ $((total - borrowed_total)) -ge $((size - slack)) ] || fail "MemTotal fell by $((total - borrowed_total)), want about $size"
step "ranges: borrowed, used by $dev, given back by remove --release" \
	ranges_json "[.reserved[] | {start, borrowed, sources, release}]" \
	"[{\"start\":$start,\"borrowed\":true,\"sources\":[\"borrowed\"],\"release\":\"cxlvctl remove --release $dev\"}]"

json=$("$CXLVCTL" region create --device "$dev" --fs xfs --mount "$MNT" --json) || fail "region create --fs xfs"
printf '%s\n' "$json"
fs_survives_remount "$(jq -r '"/dev/" + .namespaces[0].blockdev' <<<"$json")"
step "umount" umount "$MNT"
cli_refused 5 "cxlvctl remove --release" release "$start" || fail "release of a range with a device"
step "region destroy --force" "$CXLVCTL" region destroy --force "$(jq -r .region <<<"$json")"

# again: the device removed (the range stays borrowed) and created where
# a plain create finds free memory first.
again() {
	step "remove $dev" "$CXLVCTL" remove "$dev"
	expect_eq "MemTotal with the range free but borrowed" "$(memtotal)" "$borrowed_total"
	step "ranges: a free borrowed range, given back by release" \
		ranges_json "[.reserved[] | {start, release, used: (.used_by | length)}]" \
		"[{\"start\":$start,\"release\":\"cxlvctl release $(printf '%#x' "$start")\",\"used\":0}]"
	json=$("$CXLVCTL" create --size 2G --pmem --json) || fail "cxlvctl create on the free borrowed range"
	expect_eq "same range" "$(jq -r .memstart <<<"$json")" "$start"
	dev=$(jq -r .device <<<"$json")
	TARGET=(--device "$dev")
}
devdax_comes_back again --device "$dev"

t0=$(uptime_ms)
step "remove --force --release" "$CXLVCTL" remove --force --release "$dev"
echo "TIME remove and release 2G: $(($(uptime_ms) - t0)) ms"
step "System RAM again" system_ram_in "$start" "$size"
step "MemTotal as before the borrow" within_slack "after the release" "$total"
step "no borrowed range left" ranges_json '.reserved | length' 0

# RAM: borrowed memory back online as kmem's, then released. Without RAM
# regions (6.1: the root decoder of a pmem=0 device offers no
# create_ram_region) the device is made again with --pmem on the range,
# which stays borrowed.
json=$("$CXLVCTL" create --size 1G --json) || fail "cxlvctl create --size 1G (borrow)"
dev=$(jq -r .device <<<"$json")
borrowed_more
expect_eq "borrowed" "$(jq -r .borrowed <<<"$json")" true
if ! has_ram_regions; then
	step "remove the pmem=0 device" "$CXLVCTL" remove "$dev"
	json=$("$CXLVCTL" create --size 1G --pmem --json) || fail "cxlvctl create --size 1G --pmem on the borrowed range"
	dev=$(jq -r .device <<<"$json")
fi
mt=$(memtotal)
json=$("$CXLVCTL" region create --device "$dev" --type ram --json) || fail "region create --type ram"
printf '%s\n' "$json"
node=$(jq -r .target_node <<<"$json") bytes=$(jq -r .memory_bytes <<<"$json")
step "the result names this kernel's path ($(memory_path))" jq -e --arg path "$(memory_path)" '.memory_path == $path' <<<"$json"
step "MemTotal grew by the region's memory" test "$(memtotal)" = $((mt + bytes))
step "pattern under numactl --membind=$node" membind_pattern "$node" 16
step "region destroy --force" "$CXLVCTL" region destroy --force "$(jq -r .region <<<"$json")"
step "MemTotal back to the borrowed state" test "$(memtotal)" = "$mt"
step "remove --release" "$CXLVCTL" remove --release "$dev"
step "MemTotal as at the start" within_slack "after the RAM device's release" "$total"

# 512M: borrowed as 512M, also where the kernel maps this RAM with 1 GiB
# pages (7.3 here): the module has it split the page at a cut first.
json=$("$CXLVCTL" create --size 512M --pmem --json) || fail "cxlvctl create --size 512M (borrow)"
dev=$(jq -r .device <<<"$json")
borrowed_more
expect_eq "device size" "$(jq -r .memsize <<<"$json")" $((512 << 20))
got=$("$CXLVCTL" ranges --json | jq -c '[.reserved[] | {start, size}]')
say "borrowed for 512M: $got"
jq -e --argjson s "$(jq .memstart <<<"$json")" 'length == 1 and .[0].start == $s and
	.[0].size == 536870912' <<<"$got" >/dev/null || fail "512M borrowed as $got: want 512M"
step "remove --release" "$CXLVCTL" remove --release "$dev"
step "MemTotal as at the start" within_slack "after the 512M device's release" "$total"
no_kernel_complaints
echo "=== cxlvctl on borrowed RAM: all steps passed"
