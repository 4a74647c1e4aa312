#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000
# cxlvctl region/namespace on a cxl_virt device: region + fsdax + xfs mounted
# in one command with files read back after a remount; region + devdax with a
# pattern; the device removed and created again on the same range, and
# `region create --uuid` (which ndctl 76.1 cannot do) brings the namespace
# back from its labels with the pattern intact (destroyed with
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

json=$("$CXLVCTL" region create --device "$dev" --namespace devdax --json) || fail "region create devdax"
printf '%s\n' "$json"
region_uuid=$(jq -r .uuid <<<"$json")
ns_uuid=$(jq -r '.namespaces[0].raw_uuid' <<<"$json")
dax=$(jq -r '"/dev/" + .namespaces[0].chardev' <<<"$json")
step "write pattern through $dax" "$PATCHECK" write --mmap --seed 41 --size 32M "$dax"
region=$(jq -r .region <<<"$json")
step "destroy --dry-run, a bogus name, a misspelt flag write nothing" destroy_lines_write_nothing "$region"
step "pattern still reads back through $dax" "$PATCHECK" verify --mmap --seed 41 --size 32M "$dax"
step "region destroy $region --keep-namespaces (flag after the name)" "$CXLVCTL" region destroy "$region" --keep-namespaces
step "remove $dev" "$CXLVCTL" remove "$dev"
json=$("$CXLVCTL" create --memstart 0x100000000 --size 1G --pmem --wait --json) || fail "cxlvctl create again"
dev=$(jq -r .device <<<"$json")
json=$("$CXLVCTL" region create --device "$dev" --uuid "$region_uuid" --json) || fail "region create --uuid"
printf '%s\n' "$json"
came_back "$json" "$region_uuid" "$ns_uuid"
dax=$(jq -r '"/dev/" + .namespaces[0].chardev' <<<"$json")
step "pattern reads back through $dax" "$PATCHECK" verify --mmap --seed 41 --size 32M "$dax"

# A create that fails part-way (no DPA for 2G) leaves everything as it was.
step "region destroy --keep-namespaces" "$CXLVCTL" region destroy --keep-namespaces "$(jq -r .region <<<"$json")"
fails_cleanly "a 2G region on a 1G device" "$CXLVCTL" region create --device "$dev" --size 2G

step "region create --uuid again" "$CXLVCTL" region create --device "$dev" --uuid "$region_uuid"
step "remove --force tears down namespace, region, DPA, device" "$CXLVCTL" remove --force "$dev"
for d in /sys/bus/cxl_virt/devices/*; do
	[ ! -e "$d" ] || fail "remove --force left $d"
done
for r in /sys/bus/cxl/devices/region*; do
	[ ! -e "$r" ] || fail "remove --force left $r"
done
no_kernel_complaints
echo "=== cxlvctl region on cxl_virt: all steps passed"
