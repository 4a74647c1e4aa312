#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000
# Data and labels outlive a remove and re-create of the same range: a pattern
# written through devdax, region destroyed, device removed and created again,
# the region re-created with its old UUID; the namespace comes back from the
# labels with the same UUID and mode, and the pattern reads back intact.
. /cxlv/test/vm/guest/cxlv.sh

spec="memstart=0x100000000,memsize=$((1 << 30)),cxltype=3,pmem=1"
load_stack
dev=$(create "$spec")
wait_ready "$dev"
serial=$(attr "$dev" serial)
region=$(make_region "$dev")
ruuid=$(cat "/sys/bus/cxl/devices/$region/uuid")
[ -n "$ruuid" ] || fail "no uuid for $region"
ns=$(make_namespace "$region" devdax)
nsuuid=$(jq -r .uuid <<<"$ns")
daxdev=/dev/$(jq -r '.daxregion.devices[0].chardev' <<<"$ns")
say "region $region uuid $ruuid, namespace uuid $nsuuid on $daxdev"
step "write pattern through $daxdev" "$PATCHECK" write --mmap --seed 31 --size 32M "$daxdev"

step "disable namespace" ndctl disable-namespace "$(jq -r .dev <<<"$ns")"
drop_region "$region"
expect_eq "remove with release=1 of a device not on borrowed memory" \
	"$(ctl "$CXLV_DBG/remove" "cxlv_dev_id=${dev#cxlv},release=1")" EINVAL
expect_eq "it is still there" "$(attr "$dev" borrowed)" 0
remove "$dev"

dev=$(create "$spec")
wait_ready "$dev"
expect_eq "serial after re-create" "$(attr "$dev" serial)" "$serial"
region=$(remake_region "$dev" "$ruuid")
say "re-created $region"
step "namespace back from labels" wait_for 30 eval \
	"ndctl list -N -r $region | jq -e '[.. | objects | select(.uuid? == \"$nsuuid\")] | length == 1'"
ndctl list -N -r "$region"
ns=$(ndctl list -N -r "$region" | jq -c '[.. | objects | select(.uuid? == "'"$nsuuid"'")][0]')
expect_eq "namespace mode" "$(jq -r .mode <<<"$ns")" devdax
daxdev=/dev/$(jq -r '.chardev // .daxregion.devices[0].chardev' <<<"$ns")
step "wait for $daxdev" wait_for 30 test -c "$daxdev"
step "pattern reads back through $daxdev" "$PATCHECK" verify --mmap --seed 31 --size 32M "$daxdev"

teardown_all "$(jq -r .dev <<<"$ns")" "$region" "$dev"
say PASS
