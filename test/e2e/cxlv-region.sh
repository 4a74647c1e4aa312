#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000
# sets: smoke
# What users do with a cxl_virt device: a pmem region (the emulated HDM
# decoder commits), a devdax namespace written and read back through mmap
# and driven by fio's dev-dax engine,
# an fsdax namespace with XFS and ext4 mounted -o dax and files read back,
# then everything destroyed and the device removed.
. /cxlv/test/vm/guest/cxlv.sh

load_stack
t0=$(now_us)
dev=$(create "memstart=0x100000000,memsize=$((1 << 30)),cxltype=3,pmem=1")
wait_ready "$dev"
commits0=$(attr "$dev" commits)

region=$(make_region "$dev")
say "region: $region"
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
step "destroy devdax namespace" ndctl destroy-namespace -f "$(jq -r .dev <<<"$ns")"

ns=$(make_namespace "$region" fsdax --map dev)
echo "$ns"
pmem=/dev/$(jq -r .blockdev <<<"$ns")
[ -b "$pmem" ] || fail "no $pmem"
check_dax_fs "$pmem" xfs
check_dax_fs "$pmem" ext4
teardown_all "$(jq -r .dev <<<"$ns")" "$region" "$dev"
say PASS
