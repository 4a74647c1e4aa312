#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000
# cxlvctl region/namespace on a cxl_virt device: region + fsdax + xfs mounted
# in one command with files read back after a remount; region + devdax with
# patterns at both ends; the device removed and created again on the same
# range, and `region create --uuid` (which ndctl 76.1 cannot do) brings the
# namespace back from its labels with the patterns intact (destroyed with
# --keep-namespaces after the region's name: the flag is read wherever it
# stands); `region destroy R --dry-run`, `region destroy R regionBOGUS` and a
# misspelt flag write nothing; `cxlvctl version` names the loaded module; a
# create that fails part-way, or that SIGINT stops, leaves the state as it
# was; `remove --force` tears down namespace, region and DPA in order.
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

pmem_setup
load_stack
step "cxlvctl version names the loaded module" check_version
json=$("$CXLVCTL" create --memstart 0x100000000 --size 1G --pmem --wait --json) || fail "cxlvctl create"
dev=$(jq -r .device <<<"$json")
say "made $dev"
initial=$(cxl_state)

json=$("$CXLVCTL" region create --device "$dev" --fs xfs --mount "$MNT" --json) || fail "region create --fs xfs"
printf '%s\n' "$json"
fs_survives_remount "$(jq -r '"/dev/" + .namespaces[0].blockdev' <<<"$json")"
step "umount" umount "$MNT"
step "region destroy" "$CXLVCTL" region destroy "$(jq -r .region <<<"$json")"
step "state as after device create" same_state "$initial"
step "SIGINT during region create --namespace fsdax rolls back" interrupted_create '/sys/bus/cxl/devices/region*' cxl_state --device "$dev" --namespace fsdax

# again: the device removed and created on the same range.
again() {
	step "remove $dev" "$CXLVCTL" remove "$dev"
	json=$("$CXLVCTL" create --memstart 0x100000000 --size 1G --pmem --wait --json) || fail "cxlvctl create again"
	dev=$(jq -r .device <<<"$json")
	TARGET=(--device "$dev")
}
devdax_comes_back again --device "$dev"

# A create that fails part-way (no DPA for 2G) leaves everything as it was.
step "region destroy --keep-namespaces" "$CXLVCTL" region destroy --keep-namespaces "$(jq -r .region <<<"$REASSEMBLED")"
fails_cleanly "a 2G region on a 1G device" "$CXLVCTL" region create --device "$dev" --size 2G

step "region create --uuid again" "$CXLVCTL" region create --device "$dev" --uuid "$REGION_UUID"
step "remove --force tears down namespace, region, DPA, device" "$CXLVCTL" remove --force "$dev"
for d in /sys/bus/cxl_virt/devices/*; do
	[ ! -e "$d" ] || fail "remove --force left $d"
done
for r in /sys/bus/cxl/devices/region*; do
	[ ! -e "$r" ] || fail "remove --force left $r"
done
no_kernel_complaints
echo "=== cxlvctl region on cxl_virt: all steps passed"
