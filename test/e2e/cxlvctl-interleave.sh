#!/bin/bash
# vm: --mem 4G --memmap 2G$0x100000000
# cxlvctl's interleave-set side (issue 18) against this cxl_virt. Refused
# before any write, each with exit 2 and one line naming the fix: a bad
# shape (ways, host-bridges, granularity), a range with no ways x 256M block,
# a set on borrowed memory; --dry-run prints the create string of an x4 set
# of 2 host bridges, and that set is made and listed with its shape; region
# create --device makes its x4 region, a member's remove is refused (exit 2,
# naming the set and its members: a set is removed as a set), the set's own
# remove is refused while the region exists (exit 5), and the set stays
# whole; region and set removed. On 6.12 and 7.3 a set partitioned by
# --ram-size (refused misaligned) gets a RAM and a pmem region from region
# create, each from its own root decoder. On a device of one endpoint: list --json
# shows the shape the module reports (ways, host_bridges, granularity) and
# the table no INTERLEAVE column; region create says interleave_ways 1; a
# memdev names its device for remove (refused with exit 5 naming the fix
# while its region exists, in --dry-run alike; the region's destroy without
# --force refused for its label; the --dry-run plan of remove --force has the
# teardown and the remove; then remove --force by memdev). The CXL state and the device list are
# compared around every refusal.
# Needs bin/cxlvctl, bin/cxlvctl.test and kmod/cxl_virt.ko.
# shellcheck source=test/vm/guest/cxlv.sh
. "$CXLV/test/vm/guest/cxlv.sh"
# shellcheck source=test/vm/guest/cxlvctl.sh
. "$CXLV/test/vm/guest/cxlvctl.sh"
# shellcheck source=test/vm/guest/region-state.sh
. "$CXLV/test/vm/guest/region-state.sh"

# the x4 set: 2G at 4G, 4 MiB of metadata, then the 1G window from 5G.
set_args=(--memstart 4G --size 2G --pmem --ways 4 --host-bridges 2)

# cxlv_state: the CXL state and the cxl_virt devices.
cxlv_state() {
	cxl_state
	ls /sys/bus/cxl_virt/devices
}

region_setup
load_stack --ram --pmem
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
step "the refusals and the dry run made nothing" same_state "$before" cxlv_state
json=$("$CXLVCTL" create "${set_args[@]}" --json) || fail "create x4 across 2"
set4=$(jq -r .device <<<"$json")
step "list --json shows the x4 set's shape" json_has "length == 1 and (.[0] | .device == \"$set4\" and
	.ways == 4 and .host_bridges == 2 and (.members | length) == 4)" cxlvctl list --json
json=$("$CXLVCTL" region create --device "$set4" --json) || fail "region create --device $set4"
printf '%s\n' "$json"
region=$(jq -r .region <<<"$json")
step "region create picks the set's ways and granularity" json_has ".interleave_ways == 4 and
	.interleave_granularity == $(attr "$set4" granularity) and (.memdevs | length) == 4" echo "$json"
read -ra members <<<"$(attr "$set4" memdev)"
before=$(cxlv_state)
expect_fail 2 "${members[2]} is one of the 4 memdevs (${members[*]}) of the interleave set $set4" remove "${members[2]}"
expect_fail 5 "$set4 has $region" remove "$set4"
step "the refused remove of a member wrote nothing" same_state "$before" cxlv_state
expect_eq "$set4 whole" "$(attr "$set4" memdev)" "${members[*]}"
step "region destroy $region" "$CXLVCTL" region destroy "$region"
out=$("$CXLVCTL" remove "$set4") || fail "remove $set4: $out"
step "the x4 set is gone" test -z "$(ls /sys/bus/cxl_virt/devices)"

# A set partitioned by --ram-size (RAM regions: 6.3 and later): each
# endpoint's first 512M volatile; region create --type ram and a pmem
# region over the set, each from its own root decoder, the pmem one after
# the volatile part of the window; destroyed pmem first (the kernel frees an
# endpoint's DPA from the top).
if [[ $KVER != 6.1.* ]]; then
	part_args=(--memstart 4G --size 2G --pmem --ways 2 --host-bridges 2)
	expect_fail 2 '--ram-size 512M with --ways 2 is not a multiple of 2 x the 512M partition alignment' \
		create "${part_args[@]}" --ram-size 512M
	out=$(cxlvctl --dry-run create "${part_args[@]}" --ram-size 1G) || fail "dry-run create --ram-size"
	has ",ram_size=1073741824 >" <<<"$out" || fail "dry-run create --ram-size: $out"
	json=$("$CXLVCTL" create "${part_args[@]}" --ram-size 1G --json) || fail "create --ram-size 1G over 2 ways"
	setp=$(jq -r .device <<<"$json")
	step "each member: 512M ram + 256M pmem" json_has "length == 2 and
		all(.[]; .ram_size == $((512 << 20)) and .pmem_size == $((256 << 20)))" cxl list -M
	json=$("$CXLVCTL" region create --device "$setp" --type ram --json) || fail "region create --type ram --device $setp"
	rregion=$(jq -r .region <<<"$json")
	json=$("$CXLVCTL" region create --device "$setp" --json) || fail "region create --device $setp (pmem)"
	pregion=$(jq -r .region <<<"$json")
	step "$pregion after the volatile part of the window" json_has ".[0].resource == $(($(attr "$setp" window_start) + (1 << 30))) and
		.[0].interleave_ways == 2" cxl list -R -r "$pregion"
	step "region destroy --force $pregion" "$CXLVCTL" region destroy --force "$pregion"
	step "region destroy --force $rregion" "$CXLVCTL" region destroy --force "$rregion"
	out=$("$CXLVCTL" remove "$setp") || fail "remove $setp: $out"
fi

# A device of one endpoint, with the shape the module gives it.
json=$("$CXLVCTL" create --memstart 4G --size 1G --pmem --json) || fail "create"
printf '%s\n' "$json"
dev=$(jq -r .device <<<"$json")
memdev=$(attr "$dev" memdev)
step "list --json shows the device's shape" json_has "length == 1 and (.[0] | .device == \"$dev\" and .memdev == \"$memdev\" and
	.ways == 1 and .host_bridges == 1 and .granularity == $(attr "$dev" granularity) and (has(\"members\") | not))" cxlvctl list --json
step "the table has no INTERLEAVE column without a set" sh -c "! $CXLVCTL list | grep -q INTERLEAVE"
json=$("$CXLVCTL" region create --device "$dev" --namespace devdax --json) || fail "region create"
printf '%s\n' "$json"
region=$(jq -r .region <<<"$json")
step "region create says its ways and granularity" json_has ".interleave_ways == 1 and .interleave_granularity == \
	$(cat "/sys/bus/cxl/devices/$region/interleave_granularity") and (has(\"memdevs\") | not)" echo "$json"
check_devdax "/dev/$(jq -r '.namespaces[0].chardev' <<<"$json")"

before=$(cxlv_state)
expect_fail 5 "$dev has $region" --dry-run remove "$memdev"
expect_fail 5 "$dev has $region" remove "$memdev"
expect_fail 5 "holds data and a label: --force destroys them" --dry-run region destroy "$region"
expect_fail 5 'cxlvctl remove --force' remove "$memdev"
step "the refused removes wrote nothing" same_state "$before" cxlv_state
out=$(cxlvctl --dry-run remove --force "$memdev") || fail "dry-run remove --force $memdev"
printf '%s\n' "$out"
has "/delete_region$" <<<"$out" && has "echo cxlv_dev_id=${dev#cxlv} > $CXLV_DBG/remove" <<<"$out" ||
	fail "dry-run remove --force: no teardown and remove in the plan"
step "the dry run wrote nothing" same_state "$before" cxlv_state
out=$("$CXLVCTL" remove --force "$memdev") || fail "remove --force $memdev: $out"
expect_eq "remove --force by memdev" "$out" "removed $dev (the device of $memdev)"
step "nothing left" test -z "$(ls /sys/bus/cxl_virt/devices)"
no_kernel_complaints
echo "=== cxlvctl interleave-set flags and a device's shape: all steps passed"
