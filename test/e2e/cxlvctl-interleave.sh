#!/bin/bash
# vm: --mem 4G --memmap 2G$0x100000000
# cxlvctl on a cxl_virt interleave set (issue 18): `create --ways 4
# --host-bridges 2` makes an x4 set as 2 host bridges x 2 root ports; list
# (table and JSON) shows it as one unit, its memdevs and serials in the
# module's position order, matching cxl list; `region create --device`
# picks the root decoder, ways, granularity and order itself, and fsdax +
# xfs -o dax keep their files through a remount; a devdax namespace keeps
# its patterns through region destroy, remove and create of the set and
# `region create --uuid`. Refused, each with its exit code and one line,
# nothing written to the kernel (the CXL state and the device list as
# before; --dry-run prints the create string): a bad shape (ways,
# host-bridges, granularity), a range with no ways x 256M block, a set on
# borrowed memory, a region on one member, and the removal of the set or
# of one member while its region exists (busy: the message names the fix). The layout (ways, host
# bridges, granularity, memdev order, serials) is read from the module.
# Needs bin/cxlvctl, bin/cxlvctl.test and kmod/cxl_virt.ko.
# shellcheck source=test/vm/guest/cxlv.sh
. "$CXLV/test/vm/guest/cxlv.sh"
# shellcheck source=test/vm/guest/cxlvctl.sh
. "$CXLV/test/vm/guest/cxlvctl.sh"
# shellcheck source=test/vm/guest/region-state.sh
. "$CXLV/test/vm/guest/region-state.sh"
# shellcheck source=test/e2e/cxlvctl-region-lib.sh
. "$CXLV/test/e2e/cxlvctl-region-lib.sh"

# the set: 2G at 4G, 4 MiB of metadata, then the 1G window from 5G.
set_args=(--memstart 4G --size 2G --pmem --ways 4 --host-bridges 2)

# cxlv_state: the CXL state and the cxl_virt devices.
cxlv_state() {
	cxl_state
	ls /sys/bus/cxl_virt/devices
}

pmem_setup
load_stack
before=$(cxlv_state)
expect_fail 2 '--ways 3: a set has 1, 2, 4 or 8 endpoints' create "${set_args[@]:0:5}" --ways 3
expect_fail 2 '--host-bridges 4 does not divide --ways 2' create "${set_args[@]:0:5}" --ways 2 --host-bridges 4
expect_fail 2 '--granularity 3K: use a power of two from 256 to 16K' create "${set_args[@]}" --granularity 3K
expect_fail 2 'add --ways 2, 4 or 8' create "${set_args[@]:0:5}" --granularity 4K
expect_fail 2 'give --size 2G or more' create --memstart 4G --size 1G --pmem --ways 4
expect_fail 2 'an interleave set needs a reserved range' create --size 2G --pmem --ways 2 --borrow
out=$(cxlvctl --dry-run create "${set_args[@]}" --granularity 4K) || fail "dry-run create"
expect_eq "dry-run create" "$out" \
	"echo memstart=4294967296,memsize=2147483648,cxltype=3,pmem=1,ways=4,host_bridges=2,granularity=4096 > $CXLV_DBG/create"
step "the refusals and the dry run wrote nothing" same_state "$before" cxlv_state

json=$("$CXLVCTL" create "${set_args[@]}" --json) || fail "create an x4 set"
printf '%s\n' "$json"
dev=$(jq -r .device <<<"$json")
expect_eq "ways" "$(attr "$dev" ways)" 4
expect_eq "host bridges" "$(attr "$dev" host_bridges)" 2
gran=$(attr "$dev" granularity)
read -ra memdevs <<<"$(attr "$dev" memdev)"
read -ra serials <<<"$(attr "$dev" serials)"
expect_eq "memdevs" "${#memdevs[@]}" 4
say "$dev: memdevs ${memdevs[*]}, serials ${serials[*]}, granularity $gran"

# list: one object, the members in the module's order with its serials.
step "list --json shows the set as one unit" json_has "length == 1 and (.[0] |
	.device == \"$dev\" and .ways == 4 and .host_bridges == 2 and .granularity == $gran and (has(\"memdev\") | not) and
	[.members[].memdev] == $(jq -nc '$ARGS.positional' --args "${memdevs[@]}") and
	[.members[].serial] == $(jq -nc '$ARGS.positional' --args "${serials[@]}") and
	[.members[].position] == [0, 1, 2, 3])" cxlvctl list --json
memdev_list=$(IFS=,; echo "${memdevs[*]}")
step "list shows the set in one row" has -E "^$dev +$memdev_list +pmem +1G +.* x4, 2 host bridges, " < <(cxlvctl list)
step "list -m ${memdevs[3]} keeps the set" has -E "^$dev +$memdev_list " < <(cxlvctl list -m "${memdevs[3]}")
live_check interleave-set
before=$(cxlv_state)
expect_fail 2 "${memdevs[1]} is one of the 4 memdevs of the interleave set $dev" region create --memdev "${memdevs[1]}"
step "a region on one member was refused with nothing written" same_state "$before" cxlv_state

# fsdax + xfs over the whole set; the region's ways, granularity and order
# are the module's.
json=$("$CXLVCTL" region create --device "$dev" --fs xfs --mount "$MNT" --json) || fail "region create --fs xfs"
printf '%s\n' "$json"
region=$(jq -r .region <<<"$json")
expect_eq "region ways" "$(cat "/sys/bus/cxl/devices/$region/interleave_ways")" 4
expect_eq "region granularity" "$(cat "/sys/bus/cxl/devices/$region/interleave_granularity")" "$gran"
expect_eq "region size" "$(($(cat "/sys/bus/cxl/devices/$region/size")))" "$(attr "$dev" capacity)"
expect_eq "region create --json memdevs" "$(jq -r '.memdevs | join(" ")' <<<"$json")" "${memdevs[*]}"
for p in 0 1 2 3; do
	ed=$(cat "/sys/bus/cxl/devices/$region/target$p")
	port=$(basename "$(readlink -f "/sys/bus/cxl/devices/$ed/..")")
	expect_eq "target$p's memdev" "$(basename "$(readlink -f "/sys/bus/cxl/devices/$port/uport")")" "${memdevs[p]}"
done
fs_survives_remount "$(jq -r '"/dev/" + .namespaces[0].blockdev' <<<"$json")"
step "umount" umount "$MNT"
live_check interleave-region

# While the region exists the set cannot go, whole or by one member.
before=$(cxlv_state)
expect_fail 5 "$region" remove "$dev"
expect_fail 5 'cxlvctl remove --force' remove "${memdevs[2]}"
out=$(cxlvctl --dry-run remove "${memdevs[2]}") || fail "dry-run remove ${memdevs[2]}"
expect_eq "dry-run remove of a member" "$out" "echo cxlv_dev_id=${dev#cxlv} > $CXLV_DBG/remove"
step "the refused removes wrote nothing" same_state "$before" cxlv_state
step "region destroy $region" "$CXLVCTL" region destroy "$region"

# devdax: patterns through destroy --keep-namespaces, remove and create of
# the set, and region create --uuid (devdax_comes_back).
again() {
	step "remove ${memdevs[0]} (the set)" "$CXLVCTL" remove "${memdevs[0]}"
	json=$("$CXLVCTL" create "${set_args[@]}" --json) || fail "create the set again"
	dev=$(jq -r .device <<<"$json")
	expect_eq "memdevs after create again" "$(attr "$dev" memdev)" "${memdevs[*]}"
	expect_eq "serials after create again" "$(attr "$dev" serials)" "${serials[*]}"
	TARGET=(--device "$dev")
}
devdax_comes_back again --device "$dev"
step "remove --force tears down the set's namespace, region, DPA and the set" "$CXLVCTL" remove --force "$dev"
step "nothing left" test -z "$(ls /sys/bus/cxl_virt/devices)"
no_kernel_complaints
echo "=== cxlvctl on an x4 interleave set: all steps passed"
