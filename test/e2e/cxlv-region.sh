#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000
# sets: smoke
# What users do with a cxl_virt device: a pmem region (the emulated HDM
# decoder commits), a devdax namespace written and read back through mmap
# and driven by fio's dev-dax engine; data and labels outlive a remove and
# re-create of the same range (region destroyed, device removed and created
# again with the same serial, the region re-created through sysfs with its
# old UUID: the namespace comes back from the labels with its UUID and mode,
# and the pattern reads back); an fsdax namespace with XFS and ext4 mounted
# -o dax and files read back; then everything destroyed and the device
# removed. While a region exists, with or without a mounted DAX filesystem
# on it, remove fails with EBUSY and a reason through both control files,
# rmmod is refused and nothing is torn down.
. /cxlv/test/vm/guest/cxlv.sh

# refused WHAT: a remove of $dev through either control file and rmmod
# are refused while $region exists, and nothing is torn down.
refused() {
	local f r
	for f in "$CXLV_DBG/remove" "$CXLV_SYS/remove"; do
		r=$(ctl "$f" "cxlv_dev_id=${dev#cxlv}")
		expect_eq "remove with $1 via $f" "$r" EBUSY
		has "$region" "$CXLV_SYS/last_error" || fail "last_error does not name $region: $(cat "$CXLV_SYS/last_error")"
	done
	say "refused: $(cat "$CXLV_SYS/last_error")"
	! rmmod cxl_virt 2>/dev/null || fail "rmmod succeeded with $1"
	[ -d "/sys/bus/cxl_virt/devices/$dev" ] || fail "$dev gone after a refused remove"
	expect_eq "state with $1" "$(attr "$dev" state)" busy
	cxl list -R -r "$region" | has '"decode_state":"commit"' || fail "$region torn down"
}

spec="memstart=0x100000000,memsize=$((1 << 30)),cxltype=3,pmem=1"
load_stack
t0=$(now_us)
dev=$(create "$spec")
wait_ready "$dev"
commits0=$(attr "$dev" commits)

region=$(make_region "$dev")
say "region: $region"
refused "a region"
[ "$(attr "$dev" commits)" -gt "$commits0" ] || fail "no decoder commit counted"
expect_eq state "$(attr "$dev" state)" busy
step "region committed" json_has '.[0].decode_state == "commit"' cxl list -R -r "$region"
step "region covers the window" json_has ".[0].resource == $(($(attr "$dev" window_start)))" cxl list -R -r "$region"

ns=$(make_namespace "$region" devdax)
t1=$(now_us)
echo "$ns"
daxdev=/dev/$(jq -r '.daxregion.devices[0].chardev' <<<"$ns")
[ -c "$daxdev" ] || fail "no $daxdev"
say "create -> $daxdev ready: $(((t1 - t0) / 1000)) ms"
check_devdax "$daxdev" 16
step "fio dev-dax randwrite 1 KiB" fio --name=devdax --ioengine=dev-dax --thread \
	--filename="$daxdev" --rw=randwrite --bs=1k --size=64m --norandommap \
	--runtime=2 --time_based --output-format=json --output=/tmp/fio.json
iops=$(jq '.jobs[0].write.iops | floor' /tmp/fio.json)
[ "$iops" -gt 0 ] || fail "fio dev-dax: no writes"
say "fio dev-dax 1 KiB randwrite: $iops IOPS (TCG)"

# The same range again: labels and data outlive remove and create.
ruuid=$(cat "/sys/bus/cxl/devices/$region/uuid")
nsuuid=$(jq -r .uuid <<<"$ns")
step "write pattern through $daxdev" "$PATCHECK" write --mmap --seed 31 --size 32M "$daxdev"
step "disable namespace" ndctl disable-namespace "$(jq -r .dev <<<"$ns")"
drop_region "$region"
expect_eq "remove with release=1 of a device not on borrowed memory" \
	"$(ctl "$CXLV_DBG/remove" "cxlv_dev_id=${dev#cxlv},release=1")" EINVAL
expect_eq "it is still there" "$(attr "$dev" borrowed)" 0
recreate "$dev" "$spec" "$ruuid" "$nsuuid" devdax
dev=$DEV region=$REGION ns=$NS
daxdev=/dev/$(jq -r '.chardev // .daxregion.devices[0].chardev' <<<"$ns")
step "wait for $daxdev" wait_for 30 test -c "$daxdev"
step "pattern reads back through $daxdev" "$PATCHECK" verify --mmap --seed 31 --size 32M "$daxdev"
step "destroy devdax namespace" ndctl destroy-namespace -f "$(jq -r .dev <<<"$ns")"

ns=$(make_namespace "$region" fsdax --map dev)
echo "$ns"
pmem=/dev/$(jq -r .blockdev <<<"$ns")
[ -b "$pmem" ] || fail "no $pmem"
check_dax_fs "$pmem" xfs
check_dax_fs "$pmem" ext4
step "mount -o dax" mount -t ext4 -o dax "$pmem" "$DAX_MNT"
refused "a mounted fsdax namespace"
verify_test_files "$DAX_MNT"
step "umount" umount "$DAX_MNT"
teardown_all "$(jq -r .dev <<<"$ns")" "$region" "$dev"
say PASS
