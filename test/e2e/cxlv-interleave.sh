#!/bin/bash
# vm: --mem 6G --memmap 3G$0x100000000
# Interleave sets (issue 18). An x2 set at
# 1 KiB granularity: two host bridges (PCI domains), two memdevs with
# serials serial and serial + 1; the kernel refuses a region with the
# memdevs in the wrong order and one at another granularity than the root
# decoder's; `cxl create-region -w 2 -g G` over the memdevs in position
# order commits, remove is refused (EBUSY) while it exists and the set stays
# whole; an fsdax namespace with ext4 -o dax, files read back after a
# remount; region destroyed, set removed and created again, the region
# re-created with its old UUID: the namespace and the files are back. An x4
# set across four host bridges, x2 through one and x4 as 2 x 2 (host bridges
# with two root ports, whose HDM decoders interleave): a devdax namespace
# written and read back on each. Through one host bridge the kernel programs
# members swapped within the bridge and another granularity; the emulator
# refuses both commits and says why in dmesg.
. /cxlv/test/vm/guest/cxlv.sh

# set_region DEV [MEMDEVS]: cxl create-region over DEV's whole window, with
# MEMDEVS (default: DEV's, in position order); prints the tool's JSON.
set_region() {
	# shellcheck disable=SC2046 # one word per memdev
	cxl create-region -m -t pmem -d "$(attr "$1" decoder)" -w "$(attr "$1" ways)" \
		-g "${G:-$(attr "$1" granularity)}" ${2:-$(attr "$1" memdev)}
}

# drop_partial DEV: deletes what a refused region left under DEV's root
# decoder (cxl list does not show a region without targets).
drop_partial() {
	local d r
	d=/sys/bus/cxl/devices/$(attr "$1" decoder)
	for r in "$d"/region*; do
		[ ! -e "$r" ] || sysw "${r##*/}" "$d/delete_region"
	done
	! compgen -G "$d/region*" >/dev/null || fail "regions left on $1: $(ls -d "$d"/region*)"
}

# refused_region WHY TEXT DEV MEMDEVS [LOG]: cxl create-region makes no
# region (ndctl 76.1 exits 0 then) and says TEXT; with LOG, the kernel
# programmed the decoders and the emulator refused a commit saying LOG.
refused_region() {
	local out
	out=$(set_region "$3" "$4" 2>&1) && ! has "created 0 regions" <<<"$out" &&
		fail "$1: cxl create-region made a region: $out"
	say "$1: $(tr '\n' ' ' <<<"$out")"
	has "$2" <<<"$out" || fail "$1: not '$2': $out"
	[ -z "${5:-}" ] || has "$5" <<<"$(dmesg)" || fail "$1: dmesg does not say '$5'"
	drop_partial "$3"
}

# sysfs_refused DEV: what the tool's refusals come from. In a fresh region
# under DEV's decoder, a granularity other than the root decoder's is EINVAL;
# with the set's granularity, ways and size, the memdev at position 1 as
# target 0 is ENXIO.
sysfs_refused() {
	local cxl=/sys/bus/cxl/devices root name ed
	root=$(attr "$1" decoder)
	name=$(cat "$cxl/$root/create_pmem_region")
	sysw "$name" "$cxl/$root/create_pmem_region"
	expect_eq "region granularity 4096 under a $(attr "$1" granularity) root" \
		"$(ctl "$cxl/$name/interleave_granularity" 4096)" EINVAL
	sysw "$(attr "$1" granularity)" "$cxl/$name/interleave_granularity"
	sysw "$(attr "$1" ways)" "$cxl/$name/interleave_ways"
	sysw "$(cat /proc/sys/kernel/random/uuid)" "$cxl/$name/uuid"
	sysw "$(printf '%#x' "$(attr "$1" capacity)")" "$cxl/$name/size"
	ed=$(endpoint_decoder "${mems[1]}")
	sysw pmem "$cxl/$ed/mode"
	sysw "$(printf '%#x' $(($(attr "$1" capacity) / 2)))" "$cxl/$ed/dpa_size"
	expect_eq "${mems[1]} ($ed) as target0" "$(ctl "$cxl/$name/target0" "$ed")" ENXIO
	sysw 0 "$cxl/$ed/dpa_size"
	drop_partial "$1"
}

x2="memstart=0x100000000,memsize=$((1 << 30)),cxltype=3,pmem=1,ways=2,host_bridges=2,granularity=1024"
x4="memstart=0x140000000,memsize=$((2 << 30)),cxltype=3,pmem=1,ways=4,host_bridges=4"
load_stack
dev=$(create "$x2")
wait_ready "$dev"
read -ra mems <<<"$(attr "$dev" memdev)"
expect_eq "x2 memdevs" "${#mems[@]}" 2
expect_eq "x2 ways host_bridges granularity" \
	"$(attr "$dev" ways) $(attr "$dev" host_bridges) $(attr "$dev" granularity)" "2 2 1024"
serial=$(attr "$dev" serial)
expect_eq "x2 serials" "$(attr "$dev" serials)" "$serial $((serial + 1))"
read -ra doms <<<"$(attr "$dev" pci_domain)"
expect_eq "x2 PCI domains" "${#doms[@]}" 2
expect_eq "x2 window" "$(attr "$dev" capacity)" $((512 << 20))
for i in 0 1; do
	expect_eq "memdev ${mems[$i]} serial" $(($(cat "/sys/bus/cxl/devices/${mems[$i]}/serial"))) $((serial + i))
	expect_eq "memdev ${mems[$i]} capacity" "$(cxl list -m "${mems[$i]}" | jq -r '.[0].pmem_size')" $((256 << 20))
done

refused_region "wrong member order" "failed to set target0 to ${mems[1]}" "$dev" "${mems[1]} ${mems[0]}"
G=4096 refused_region "granularity 4096 under a 1024 root" "granularity" "$dev" ""
sysfs_refused "$dev"

out=$(set_region "$dev") || fail "x2 create-region: $out"
region=$(jq -r .region <<<"$out")
say "x2 region: $region"
step "x2 region committed" json_has '.[0].decode_state == "commit"' cxl list -R -r "$region"
step "x2 region covers the window" json_has ".[0].resource == $(($(attr "$dev" window_start))) and .[0].size == $(attr "$dev" capacity)" cxl list -R -r "$region"
expect_eq "x2 region ways" "$(cat "/sys/bus/cxl/devices/$region/interleave_ways")" 2
expect_eq "x2 region granularity" "$(cat "/sys/bus/cxl/devices/$region/interleave_granularity")" 1024
expect_eq "remove x2 with a region" "$(ctl "$CXLV_DBG/remove" "cxlv_dev_id=${dev#cxlv}")" EBUSY
has "$region" "$CXLV_SYS/last_error" || fail "last_error does not name $region"
expect_eq "x2 set whole after a refused remove" "$(attr "$dev" memdev)" "${mems[*]}"
expect_eq "x2 state" "$(attr "$dev" state)" busy

ns=$(make_namespace "$region" fsdax --map dev)
pmem=/dev/$(jq -r .blockdev <<<"$ns")
nsuuid=$(jq -r .uuid <<<"$ns")
ruuid=$(cat "/sys/bus/cxl/devices/$region/uuid")
check_dax_fs "$pmem" ext4
step "mount -o dax again" mount -t ext4 -o dax "$pmem" "$DAX_MNT"
write_test_files "$DAX_MNT"
step "umount" umount "$DAX_MNT"
step "disable namespace" ndctl disable-namespace "$(jq -r .dev <<<"$ns")"
drop_region "$region"
recreate "$dev" "$x2" "$ruuid" "$nsuuid" fsdax
dev=$DEV region=$REGION ns=$NS
pmem=/dev/$(jq -r .blockdev <<<"$ns")
step "wait for $pmem" wait_for 30 test -b "$pmem"
step "mount -o dax after re-create" mount -t ext4 -o dax "$pmem" "$DAX_MNT"
verify_test_files "$DAX_MNT"
step "umount" umount "$DAX_MNT"
step "destroy $(jq -r .dev <<<"$ns")" ndctl destroy-namespace -f "$(jq -r .dev <<<"$ns")"
drop_region "$region"
remove "$dev"

# devdax_set TEXT DOMAINS: creates a set, checks its memdevs and PCI domains
# (host bridges), makes a whole-set region in position order, a devdax
# namespace with data read back; leaves the device as DEV, its region and
# namespace as REGION and NS.
devdax_set() {
	local out mems doms name
	DEV=$(create "$1")
	name="x$(attr "$DEV" ways) across $(attr "$DEV" host_bridges)"
	wait_ready "$DEV"
	read -ra mems <<<"$(attr "$DEV" memdev)"
	expect_eq "$name: memdevs" "${#mems[@]}" "$(attr "$DEV" ways)"
	read -ra doms <<<"$(attr "$DEV" pci_domain)"
	expect_eq "$name: PCI domains" "${#doms[@]}" "$2"
	out=$(set_region "$DEV") || fail "$name: create-region: $out"
	REGION=$(jq -r .region <<<"$out")
	step "$name: region committed" json_has '.[0].decode_state == "commit"' cxl list -R -r "$REGION"
	NS=$(make_namespace "$REGION" devdax)
	daxdev=/dev/$(jq -r '.daxregion.devices[0].chardev' <<<"$NS")
	[ -c "$daxdev" ] || fail "$name: no $daxdev"
	check_devdax "$daxdev" 16
	NS=$(jq -r .dev <<<"$NS")
}

devdax_set "$x4" 4
expect_eq "x4 granularity" "$(attr "$DEV" granularity)" 4096
teardown_set "$NS" "$REGION" "$DEV"

# Host bridges with two root ports each: their HDM decoders interleave.
x21="memstart=0x100000000,memsize=$((1 << 30)),cxltype=3,pmem=1,ways=2,host_bridges=1"
x22="memstart=0x140000000,memsize=$((2 << 30)),cxltype=3,pmem=1,ways=4,host_bridges=2"
dev=$(create "$x21")
wait_ready "$dev"
read -ra mems <<<"$(attr "$dev" memdev)"
refused_region "x2 through 1: members swapped in one host bridge" "failed to commit decode" "$dev" \
	"${mems[1]} ${mems[0]}" "host bridge 0 decoder 0: commit refused: target list is not the root ports in position order"
G=1024 refused_region "x2 through 1: granularity 1024 under a 4096 set" "failed to commit decode" "$dev" "" \
	"commit refused: interleave granularity other than the set's"
remove "$dev"
devdax_set "$x21" 1
teardown_set "$NS" "$REGION" "$DEV"
devdax_set "$x22" 2
teardown_all "$NS" "$REGION" "$DEV"
say PASS
