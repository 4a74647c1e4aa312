#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000 --append iomem=relaxed
# boot: basic
# cxlvctl region/namespace on a cxl_virt device: region + fsdax + xfs mounted
# in one command with files read back after a remount; region + devdax with
# patterns at both ends; the device removed and created again on the same
# range, and `region create --uuid` (which ndctl 76.1 cannot do) brings the
# namespace back from its labels with the patterns intact (destroyed with
# --keep-namespaces after the region's name: the flag is read wherever it
# stands); `region destroy R --dry-run`, `region destroy R regionBOGUS` and a
# misspelt flag write nothing; `cxlvctl version` names the loaded module; a
# create that fails part-way, or that SIGINT stops, leaves the state as it
# was; a namespace in use (xfs mounted on it, ext4 on a partition of it
# mounted, swap on it) is refused by region destroy, remove and namespace
# destroy even with --force, writing nothing; `remove --force
# --keep-namespaces` prints the uuid and the command that brings the
# namespace and its data back; `remove --force` tears down namespace, region
# and DPA in order.
# Needs bin/cxlvctl and kmod/cxl_virt.ko.
# shellcheck source=test/vm/guest/cxlv.sh
. "$CXLV/test/vm/guest/cxlv.sh"
# shellcheck source=test/vm/guest/region-state.sh
. "$CXLV/test/vm/guest/region-state.sh"
# shellcheck source=test/e2e/cxlvctl-region-lib.sh
. "$CXLV/test/e2e/cxlvctl-region-lib.sh"

# check_version: `cxlvctl version` (and --version) print the CLI's version
# and the loaded module's version and srcversion, and they match.
check_version() {
	local mod=/sys/module/cxl_virt out
	out=$("$CXLVCTL" version 2>&1) || return
	printf '%s\n' "$out"
	has -Fx "cxlvctl $(cat $mod/version)" <<<"$out" &&
		has -Fx "cxl_virt $(cat $mod/version) srcversion $(cat $mod/srcversion)" <<<"$out" &&
		! has warning <<<"$out" || return
	[ "$("$CXLVCTL" --version 2>&1)" = "$out" ]
}

# busy_refused USER REGION NS: region destroy --force, remove --force and
# namespace destroy --force refuse a namespace in use with one line naming
# USER (exit 5), and write nothing; so do their dry runs.
busy_refused() {
	local before
	before=$(cxl_state)
	step "region destroy --force refused: $1" cli_refused 5 "$1" region destroy --force "$2"
	step "remove --force refused: $1" cli_refused 5 "$1" remove --force "$dev"
	step "namespace destroy --force refused: $1" cli_refused 5 "$1" namespace destroy --force "$3"
	step "--dry-run region destroy --force refused: $1" cli_refused 5 "$1" --dry-run region destroy --force "$2"
	step "the refusals wrote nothing" same_state "$before"
}

pmem_setup
load_stack
step "cxlvctl version names the loaded module" check_version
json=$("$CXLVCTL" create --memstart 0x100000000 --size 1G --pmem --wait --json) || fail "cxlvctl create"
dev=$(jq -r .device <<<"$json")
say "made $dev"
initial=$(cxl_state)

json=$("$CXLVCTL" region create --device "$dev" --fs xfs --mount "$MNT" --json) || fail "region create --fs xfs"
printf '%s\n' "$json"
pmem=$(jq -r '"/dev/" + .namespaces[0].blockdev' <<<"$json")
region=$(jq -r .region <<<"$json") ns=$(jq -r '.namespaces[0].dev' <<<"$json")
fs_survives_remount "$pmem"
busy_refused "$pmem mounted on $MNT" "$region" "$ns"
step "umount" umount "$MNT"
# A partition of it mounted, and it as swap: refused alike, found by the
# kernel's own marks (mountinfo's major:minor, /proc/swaps, O_EXCL).
step "a partition on $pmem (fdisk)" eval "printf 'o\nn\np\n1\n\n\nw\n' | fdisk $pmem"
step "${pmem}p1 appears" wait_for 10 test -b "${pmem}p1"
step "ext4 on ${pmem}p1" mkfs.ext4 -q -F "${pmem}p1"
step "mount ${pmem}p1" mount "${pmem}p1" "$MNT"
busy_refused "${pmem}p1 mounted on $MNT" "$region" "$ns"
step "umount ${pmem}p1" umount "$MNT"
step "mkswap $pmem" mkswap "$pmem"
step "swapon $pmem" swapon "$pmem"
busy_refused "swap on $pmem" "$region" "$ns"
step "swapoff $pmem" swapoff "$pmem"
step "region destroy --force" "$CXLVCTL" region destroy --force "$region"
step "state as after device create" same_state "$initial"
step "SIGINT during region create --namespace fsdax rolls back" interrupted_create region_made cxl_state --device "$dev" --namespace fsdax

# again: the device removed and created on the same range.
again() {
	step "remove $dev" "$CXLVCTL" remove "$dev"
	json=$("$CXLVCTL" create --memstart 0x100000000 --size 1G --pmem --wait --json) || fail "cxlvctl create again"
	dev=$(jq -r .device <<<"$json")
	TARGET=(--device "$dev")
}
devdax_comes_back again --device "$dev"

# A region larger than the device is refused before any write (the dry run
# alike); a create that fails part-way (devdax without dax_pmem: the
# namespace bind fails) leaves everything as it was.
step "region destroy --keep-namespaces" "$CXLVCTL" region destroy --keep-namespaces "$(jq -r .region <<<"$REASSEMBLED")"
before=$(cxl_state)
step "a 2G region on a 1G device refused" cli_refused 2 "region size 2G is more than the 768M free on" region create --device "$dev" --size 2G
step "--dry-run: refused alike" cli_refused 2 "region size 2G is more than the 768M free on" --dry-run region create --device "$dev" --size 2G
step "the refusals wrote nothing" same_state "$before"
step "unload dax_pmem" /sbin/modprobe -r dax_pmem
fails_cleanly "devdax without dax_pmem (namespace bind fails)" "$CXLVCTL" region create --device "$dev" --namespace devdax --timeout 5s
step "reload dax_pmem" /sbin/modprobe dax_pmem

step "region create --uuid again" "$CXLVCTL" region create --device "$dev" --uuid "$REGION_UUID"
# A forced remove that keeps the labels names the uuid and the command that
# brings them back: the device made again on the range, the command run as
# printed, the namespace is back with its patterns.
out=$("$CXLVCTL" remove --force --keep-namespaces "$dev") || fail "remove --force --keep-namespaces: $out"
printf '%s\n' "$out"
has -F "uuid $REGION_UUID" <<<"$out" || fail "remove --force --keep-namespaces does not print the region uuid"
back=$(grep -o 'then `cxlvctl region create [^`]*`' <<<"$out" | tr -d '`') || fail "no command that brings the labels back"
back=${back#then cxlvctl }
json=$("$CXLVCTL" create --memstart 0x100000000 --size 1G --pmem --wait --json) || fail "cxlvctl create after the forced remove"
dev=$(jq -r .device <<<"$json")
read -ra words <<<"$back"
json=$("$CXLVCTL" "${words[@]}" --json) || fail "the printed command: $back"
printf '%s\n' "$json"
came_back "$json" "$REGION_UUID" "$(jq -r '.namespaces[0].raw_uuid' <<<"$REASSEMBLED")" "$(jq -r '.namespaces[0].uuid' <<<"$REASSEMBLED")"
patterns_back "$(jq -r '"/dev/" + .namespaces[0].chardev' <<<"$json")"
step "remove --force tears down namespace, region, DPA, device" "$CXLVCTL" remove --force "$dev"
for d in /sys/bus/cxl_virt/devices/*; do
	[ ! -e "$d" ] || fail "remove --force left $d"
done
for r in /sys/bus/cxl/devices/region*; do
	[ ! -e "$r" ] || fail "remove --force left $r"
done
no_kernel_complaints
echo "=== cxlvctl region on cxl_virt: all steps passed"
