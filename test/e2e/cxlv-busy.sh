#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000
# A device in use cannot be removed: remove fails with EBUSY and a reason
# while a region exists (with or without a mounted DAX filesystem on it),
# rmmod is refused, and nothing is torn down. Once the user has destroyed
# the region, remove and rmmod work.
. /cxlv/test/vm/guest/cxlv.sh

load_stack
dev=$(create "memstart=0x100000000,memsize=$((1 << 30)),cxltype=3,pmem=1")
wait_ready "$dev"
region=$(make_region "$dev")
id=${dev#cxlv}

refused() {
	local what=$1 r
	for f in "$CXLV_DBG/remove" "$CXLV_SYS/remove"; do
		r=$(ctl "$f" "cxlv_dev_id=$id")
		expect_eq "remove with $what via $f" "$r" EBUSY
		grep -q "$region" "$CXLV_SYS/last_error" || fail "last_error does not name $region: $(cat $CXLV_SYS/last_error)"
	done
	say "refused: $(cat $CXLV_SYS/last_error)"
	rmmod cxl_virt 2>/dev/null && fail "rmmod succeeded with $what"
	[ -d "/sys/bus/cxl_virt/devices/$dev" ] || fail "$dev gone after refused remove"
	expect_eq "state with $what" "$(attr "$dev" state)" busy
	cxl list -R -r "$region" | has '"decode_state":"commit"' || fail "$region torn down"
}

refused "a region"
ns=$(make_namespace "$region" fsdax --map dev)
pmem=/dev/$(jq -r .blockdev <<<"$ns")
mkdir -p /mnt/dax
step "mkfs.xfs" mkfs.xfs -f -m reflink=0 "$pmem"
step "mount -o dax" mount -o dax "$pmem" /mnt/dax
step "write a file" "$PATCHECK" write --seed 7 --size 8M /mnt/dax/f
refused "a mounted fsdax namespace"
step "file still reads back" "$PATCHECK" verify --seed 7 /mnt/dax/f
step "umount" umount /mnt/dax
teardown_all "$(jq -r .dev <<<"$ns")" "$region" "$dev"
say PASS
