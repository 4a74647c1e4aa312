#!/bin/bash
# vm: --mem 6G --numa-split 2G --memmap 4G$0x100000000
# kernels: 6.12 7.3
# Regions committed before the OS looks (issue 34 item 2): `cxlvctl create
# --auto-region` makes a device born as a server's firmware leaves it, every
# decoder from the host bridge to the endpoints committed, and the stock
# kernel assembles the region at probe (cxl_add_to_region) with no user step.
# - A pmem=0 device: the moment create returns its RAM region is committed,
#   its memory kmem's and online movable (auto_online_blocks online_movable,
#   as a server's udev rule or memhp_default_state= leaves it) as CPU-less
#   node 1, a pattern written under numactl --membind=1 reads back, and
#   `list --json` marks the device auto_region and agrees with cxl list and
#   ndctl list, and remove --force offlines the memory and gives it back.
# - A pmem=1 device: its pmem region is there when create returns; an fsdax
#   namespace with ext4 -o dax and files; `remove --force --keep-namespaces`
#   and the same create again (the device's reboot) bring the region back by
#   itself, the namespace back from its labels with its uuid, and the files.
# - An x4 set over two host bridges: one x4 pmem region from the four
#   endpoints' and both host bridges' committed decoders, a devdax namespace
#   whose patterns read back.
# - --locked (7.3): the decoders carry Lock On Commit, the region's locked
#   is 1, and `cxl destroy-region` is refused by the kernel with the region
#   still committed; 6.12, which would reset it anyway, refuses --locked
#   with one line and makes nothing.
# Needs bin/cxlvctl and kmod/cxl_virt.ko.
# shellcheck source=test/vm/guest/cxlv.sh
. "$CXLV/test/vm/guest/cxlv.sh"
# shellcheck source=test/vm/guest/cxlvctl.sh
. "$CXLV/test/vm/guest/cxlvctl.sh"
# shellcheck source=test/e2e/cxlvctl-region-ram-lib.sh
. "$CXLV/test/e2e/cxlvctl-region-ram-lib.sh"

load_stack --ram --pmem
# as a server's udev rule or memhp_default_state= leaves it for CXL memory
echo online_movable >/sys/devices/system/memory/auto_online_blocks
mkdir -p "$DAX_MNT"

# region_of DEV: the one region under DEV's root decoders.
region_of() {
	local d
	for d in $(attr "$1" decoder); do
		ls "/sys/bus/cxl/devices/$d" | grep '^region[0-9]'
	done
}
committed() { [ "$(cat "/sys/bus/cxl/devices/$1/commit")" = 1 ]; }

say "RAM: a pmem=0 device at 4G, its region assembled by the kernel"
step "create --auto-region (pmem=0)" cxlvctl create --memstart 4G --size 1280M --auto-region
ram=$(region_of cxlv0)
step "one region at once: $ram" test "$(wc -w <<<"$ram")" = 1
step "$ram is committed" committed "$ram"
step "$ram is a RAM region" json_has '.[0].type == "ram" and .[0].decode_state == "commit"' cxl list -r "$ram"
step "its memory is online as CPU-less node 1 (1024 MB)" node_matches 1 1024
step "pattern through numactl --membind=1" membind_pattern 1 32
step "list marks the device auto_region" json_has '.[0].auto_region == true and .[0].locked == false and (.[0].regions | length) == 1' cxlvctl list --json
live_check auto-ram
step "remove --force gives the memory back" cxlvctl remove --force cxlv0

say "pmem: the region and its namespace survive the device's reboot"
pmem_args=(--memstart 4G --size 1280M --pmem --auto-region)
step "create --auto-region --pmem" cxlvctl create "${pmem_args[@]}"
pmem=$(region_of cxlv0)
step "$pmem is committed" committed "$pmem"
step "$pmem is a pmem region" json_has '.[0].type == "pmem"' cxl list -r "$pmem"
nd=$(ndctl list -R | jq -r '.[0].dev // .dev')
step "an fsdax namespace on $nd" ndctl create-namespace -r "$nd" -m fsdax
ns=$(ndctl list -N -r "$nd" | jq -r '.[0].uuid // .uuid')
blk=/dev/$(ndctl list -N -r "$nd" | jq -r '.[0].blockdev // .blockdev')
step "mkfs.ext4 $blk" mkfs.ext4 -F -q -b 4096 "$blk"
step "mount -o dax" mount -t ext4 -o dax "$blk" "$DAX_MNT"
write_test_files "$DAX_MNT"
step "sync, umount" eval "sync && umount $DAX_MNT"
step "remove --force --keep-namespaces (power off)" cxlvctl remove --force --keep-namespaces cxlv0
step "the same create (power on)" cxlvctl create "${pmem_args[@]}"
pmem=$(region_of cxlv0)
step "$pmem is committed again" committed "$pmem"
nd=$(ndctl list -R | jq -r '.[0].dev // .dev')
step "the namespace came back from its labels" test "$(ndctl list -N -r "$nd" | jq -r '.[0].uuid // .uuid')" = "$ns"
blk=/dev/$(ndctl list -N -r "$nd" | jq -r '.[0].blockdev // .blockdev')
step "mount -o dax again" mount -t ext4 -o dax "$blk" "$DAX_MNT"
verify_test_files "$DAX_MNT"
step "umount" umount "$DAX_MNT"
step "remove --force" cxlvctl remove --force cxlv0

say "an x4 set over two host bridges"
step "create --ways 4 --host-bridges 2 --auto-region" cxlvctl create --memstart 6G --size 2G --pmem --ways 4 --host-bridges 2 --auto-region
set_region=$(region_of cxlv0)
step "$set_region is committed" committed "$set_region"
step "$set_region interleaves the four memdevs" json_has '.[0].interleave_ways == 4 and (.[0].mappings | length) == 4' cxl list -r "$set_region" --targets
nd=$(ndctl list -R | jq -r '.[0].dev // .dev')
step "a devdax namespace on $nd" ndctl create-namespace -r "$nd" -m devdax
check_devdax "/dev/$(ndctl list -N -r "$nd" | jq -r '.[0].chardev // .chardev')"
live_check auto-set
step "remove --force" cxlvctl remove --force cxlv0

case $KVER in
6.12.*)
	expect_fail 4 "locked=1 needs a kernel that keeps locked regions" create --memstart 4G --size 1280M --pmem --auto-region --locked
	step "nothing was made" test "$(device_count)" = 0
	;;
*)
	say "a locked region: the kernel keeps it"
	step "create --auto-region --locked" cxlvctl create --memstart 4G --size 1280M --pmem --auto-region --locked
	locked=$(region_of cxlv0)
	step "$locked is locked" test "$(cat "/sys/bus/cxl/devices/$locked/locked")" = 1
	for d in $(ls -d /sys/bus/cxl/devices/decoder*/ | xargs -n1 basename); do
		[ "$(cat "/sys/bus/cxl/devices/$d/region" 2>/dev/null)" = "$locked" ] || continue
		step "$d is locked" test "$(cat "/sys/bus/cxl/devices/$d/locked")" = 1
	done
	step "cxl destroy-region is refused" eval "! cxl destroy-region -f $locked"
	step "$locked is still committed" committed "$locked"
	step "list marks the device locked" json_has '.[0].auto_region == true and .[0].locked == true' cxlvctl list --json
	;;
esac
no_kernel_complaints
