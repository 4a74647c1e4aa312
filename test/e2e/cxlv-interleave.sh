#!/bin/bash
# vm: --mem 6G --numa-split 2G --memmap 4G$0x100000000
# Interleave sets (issue 18), one after another in the memmap'd 4G..8G (node
# 1, CPU-less). An x2 set at 1 KiB granularity across two host bridges (PCI
# domains), memdevs with serials serial and serial + 1: the kernel refuses a
# region with the memdevs in the wrong order and one at another granularity
# than the root decoder's; `cxl create-region -w 2 -g G` over the memdevs in
# position order commits, remove is refused (EBUSY) while it exists and the
# set stays whole. An x4 set across four host bridges at 256 B: devdax data
# read back; x2 through one host bridge at 16 KiB (the kernel's extremes).
# x2 through one host bridge, x4 as 2 x 2 and x8 as 2 x 4 (host bridges with
# several root ports, whose HDM decoders interleave): through one host bridge
# the kernel programs members swapped within the bridge and another
# granularity: the emulator refuses each commit and says why in dmesg; two
# regions of one block each of its three-block window commit, the second
# through each endpoint's and the bridge's decoder 1; over
# the 2 x 2 set, a region on two of the memdevs is refused in the wrong order
# by the kernel and in position order at commit by the emulator. On x2
# across 2, x2 through 1, 2 x 2 and 2 x 4: an fsdax namespace with ext4 -o
# dax, files read back after a remount; region destroyed (labels stay), set
# removed and created again, the region re-created with its old UUID: the
# namespace and the files are back. On 6.12 and 7.3 a RAM region over an x2
# set through one host bridge comes online as node 1 and a pattern bound to
# the node reads back; then the same set partitioned (ram_size=, issue 33):
# from its two root decoders a RAM region online as node 1 and a pmem
# region with an fsdax namespace, data read back from both. 6.1 offers no
# RAM regions (no create_ram_region).
. /cxlv/test/vm/guest/cxlv.sh
# shellcheck source=test/e2e/cxlvctl-region-ram-lib.sh
. "$CXLV/test/e2e/cxlvctl-region-ram-lib.sh"

# set_region DEV [MEMDEVS]: cxl create-region over DEV's whole window (or
# S bytes of it), with MEMDEVS (default: DEV's, in position order) at W ways
# and G granularity (default: DEV's); prints the tool's JSON.
set_region() {
	# shellcheck disable=SC2046 # one word per memdev
	cxl create-region -m -t pmem -d "$(attr "$1" decoder)" -w "${W:-$(attr "$1" ways)}" \
		-g "${G:-$(attr "$1" granularity)}" ${S:+-s "$S"} ${2:-$(attr "$1" memdev)}
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

# new_set TEXT DOMAINS: creates a set and checks its memdevs (ways of them)
# and PCI domains (its host bridges); sets DEV and MEMS (position order).
new_set() {
	local doms
	DEV=$(create "$1")
	wait_ready "$DEV"
	read -ra MEMS <<<"$(attr "$DEV" memdev)"
	expect_eq "$DEV memdevs" "${#MEMS[@]}" "$(attr "$DEV" ways)"
	read -ra doms <<<"$(attr "$DEV" pci_domain)"
	expect_eq "$DEV PCI domains" "${#doms[@]}" "$2"
	say "$DEV: x$(attr "$DEV" ways) across $2 host bridges at $(attr "$DEV" granularity) B"
}

# whole_region DEV: a committed region over DEV's whole window at its ways
# and granularity, memdevs in position order; sets REGION.
whole_region() {
	local out r
	out=$(set_region "$1") || fail "$1 create-region: $out"
	REGION=$(jq -r .region <<<"$out")
	r=/sys/bus/cxl/devices/$REGION
	step "$1 $REGION committed over the window" json_has ".[0].decode_state == \"commit\" and
		.[0].resource == $(($(attr "$1" window_start))) and .[0].size == $(attr "$1" capacity)" cxl list -R -r "$REGION"
	expect_eq "$REGION ways granularity" "$(cat "$r/interleave_ways") $(cat "$r/interleave_granularity")" \
		"$(attr "$1" ways) $(attr "$1" granularity)"
}

# devdax_data: a devdax namespace on REGION, data at both ends read back;
# then the namespace, the region and the set DEV go.
devdax_data() {
	local ns daxdev
	ns=$(make_namespace "$REGION" devdax)
	daxdev=/dev/$(jq -r '.daxregion.devices[0].chardev' <<<"$ns")
	[ -c "$daxdev" ] || fail "$DEV: no $daxdev"
	check_devdax "$daxdev" 16
	teardown_set "$(jq -r .dev <<<"$ns")" "$REGION" "$DEV"
}

# fsdax_reassemble TEXT: on REGION over the set DEV made from TEXT, an fsdax
# namespace with ext4 -o dax, files read back after a remount; the region
# destroyed (the labels stay), the set removed and created from TEXT again,
# the region re-created with its UUID: the namespace and the files are back.
# Then the namespace, the region and the set go.
fsdax_reassemble() {
	local ns pmem nsuuid ruuid
	ns=$(make_namespace "$REGION" fsdax --map dev)
	pmem=/dev/$(jq -r .blockdev <<<"$ns")
	nsuuid=$(jq -r .uuid <<<"$ns")
	ruuid=$(cat "/sys/bus/cxl/devices/$REGION/uuid")
	check_dax_fs "$pmem" ext4
	step "disable $(jq -r .dev <<<"$ns")" ndctl disable-namespace "$(jq -r .dev <<<"$ns")"
	drop_region "$REGION"
	recreate "$DEV" "$1" "$ruuid" "$nsuuid" fsdax
	pmem=/dev/$(jq -r .blockdev <<<"$NS")
	step "wait for $pmem" wait_for 30 test -b "$pmem"
	step "mount -o dax after re-create" mount -t ext4 -o dax "$pmem" "$DAX_MNT"
	verify_test_files "$DAX_MNT"
	step "umount" umount "$DAX_MNT"
	teardown_set "$(jq -r .dev <<<"$NS")" "$REGION" "$DEV"
}

# ram_region: a RAM region over the set DEV, kmem's memory on node 1
# (ZONE_MOVABLE, so that it goes offline again): MemTotal grows by the
# window and a pattern bound to the node reads back; then offline, the
# region and the set go.
ram_region() {
	local region dax total0 b
	sysw online_movable "$MEMDIR/auto_online_blocks"
	total0=$(($(memtotal_kb) << 10))
	region=$(sysfs_region "$DEV" ram)
	step "$region: system-ram on node 1" wait_for 30 json_has \
		'length == 1 and .[0].mode == "system-ram" and .[0].target_node == 1 and .[0].movable' daxctl list
	dax=$(daxctl list | jq -r '.[0].chardev')
	wait_for 30 blocks_in online "$dax" || fail "memory of $region not online"
	expect_eq "MemTotal growth" $(($(memtotal_kb) << 10)) $((total0 + $(attr "$DEV" capacity)))
	step "pattern through numactl --membind=1" membind_pattern 1 32
	for b in $(blocks_of "$dax"); do
		sysw offline "$MEMDIR/$b/state"
	done
	drop_region "$region"
	expect_eq "$DEV state without a region" "$(attr "$DEV" state)" ready
	remove "$DEV"
}

# partitioned_regions RAM: over the partitioned set DEV (RAM bytes
# volatile), a RAM region from its volatile root decoder online as node 1
# (a pattern bound to the node reads back), then a pmem region from its
# persistent one, at the start of that window (the identity puts the
# persistent DPA after the volatile part's HPA), with an fsdax namespace
# whose data reads back; then all of it and the set go.
partitioned_regions() {
	local rroot proot extra wstart out rregion pregion dax ns
	read -r rroot proot extra <<<"$(attr "$DEV" decoder)"
	[ -n "$proot" ] && [ -z "$extra" ] || fail "$DEV: root decoders '$(attr "$DEV" decoder)', want two"
	wstart=$(attr "$DEV" window_start)
	expect_eq "$proot starts after the volatile part" "$(cat "/sys/bus/cxl/devices/$proot/start")" "$(printf %#x $((wstart + $1)))"
	sysw online_movable "$MEMDIR/auto_online_blocks"
	out=$(cxl create-region -m -t ram -d "$rroot" -w "${#MEMS[@]}" -g "$(attr "$DEV" granularity)" \
		-s "$1" "${MEMS[@]}") || fail "RAM region over $DEV: $out"
	rregion=$(jq -r .region <<<"$out")
	step "$rregion: system-ram on node 1" wait_for 30 json_has \
		'length == 1 and .[0].mode == "system-ram" and .[0].target_node == 1' daxctl list
	dax=$(daxctl list | jq -r '.[0].chardev')
	wait_for 30 blocks_in online "$dax" || fail "memory of $rregion not online"
	step "pattern through numactl --membind=1" membind_pattern 1 32
	out=$(cxl create-region -m -t pmem -d "$proot" -w "${#MEMS[@]}" -g "$(attr "$DEV" granularity)" \
		"${MEMS[@]}") || fail "pmem region over $DEV: $out"
	pregion=$(jq -r .region <<<"$out")
	step "$pregion at the start of $proot" json_has ".[0].resource == $((wstart + $1)) and
		.[0].size == $(($(attr "$DEV" capacity) - $1))" cxl list -R -r "$pregion"
	ns=$(make_namespace "$pregion" fsdax)
	step "pattern through the namespace beside the online RAM" \
		check_pattern "/dev/$(jq -r .blockdev <<<"$ns")" 31 --size $((32 << 20))
	drop_partitioned "$ns" "$pregion" "$dax" "$rregion" "$DEV"
}

x2="memstart=0x100000000,memsize=$((1 << 30)),cxltype=3,pmem=1,ways=2,host_bridges=2,granularity=1024"
# The kernel's least and greatest granularities: 256 B here, 16 KiB through one host bridge.
x4="memstart=0x140000000,memsize=$((2 << 30)),cxltype=3,pmem=1,ways=4,host_bridges=4,granularity=256"
load_stack --ram --pmem
new_set "$x2" 2
dev=$DEV mems=("${MEMS[@]}")
expect_eq "x2 ways host_bridges granularity" \
	"$(attr "$dev" ways) $(attr "$dev" host_bridges) $(attr "$dev" granularity)" "2 2 1024"
serial=$(attr "$dev" serial)
expect_eq "x2 serials" "$(attr "$dev" serials)" "$serial $((serial + 1))"
expect_eq "x2 window" "$(attr "$dev" capacity)" $((512 << 20))
for i in 0 1; do
	expect_eq "memdev ${mems[$i]} serial" $(($(cat "/sys/bus/cxl/devices/${mems[$i]}/serial"))) $((serial + i))
	expect_eq "memdev ${mems[$i]} capacity" "$(cxl list -m "${mems[$i]}" | jq -r '.[0].pmem_size')" $((256 << 20))
done

refused_region "wrong member order" "failed to set target0 to ${mems[1]}" "$dev" "${mems[1]} ${mems[0]}"
G=4096 refused_region "granularity 4096 under a 1024 root" "granularity" "$dev" ""
sysfs_refused "$dev"

whole_region "$dev"
expect_eq "remove x2 with a region" "$(ctl "$CXLV_DBG/remove" "cxlv_dev_id=${dev#cxlv}")" EBUSY
has "$REGION" "$CXLV_SYS/last_error" || fail "last_error does not name $REGION"
expect_eq "x2 set whole after a refused remove" "$(attr "$dev" memdev)" "${mems[*]}"
expect_eq "x2 state" "$(attr "$dev" state)" busy
fsdax_reassemble "$x2"

new_set "$x4" 4
expect_eq "x4 granularity" "$(attr "$DEV" granularity)" 256
whole_region "$DEV"
devdax_data

# Host bridges with several root ports: their HDM decoders interleave.
# x2 through 1: a window of three 512 MiB blocks, so a region can be smaller.
x21="memstart=0x100000000,memsize=$((2 << 30)),cxltype=3,pmem=1,ways=2,host_bridges=1,granularity=16384"
x22="memstart=0x140000000,memsize=$((2 << 30)),cxltype=3,pmem=1,ways=4,host_bridges=2"
# 2 GiB from 6G, its 8 MiB of metadata just below.
x24="memstart=$(((6 << 30) - (8 << 20))),memsize=$(((2 << 30) + (8 << 20))),cxltype=3,pmem=1,ways=8,host_bridges=2"
new_set "$x21" 1
refused_region "x2 through 1: members swapped in one host bridge" "failed to commit decode" "$DEV" \
	"${MEMS[1]} ${MEMS[0]}" "host bridge 0 decoder 0: commit refused: target list is not the root ports in position order"
G=1024 refused_region "x2 through 1: granularity 1024 under a 16384 set" "failed to commit decode" "$DEV" "" \
	"commit refused: interleave granularity other than the set's"
# Regions over part of the window: one block, then the next, each where
# its DPA maps (HPA = window start + ways x DPA); the second through decoder
# 1 of each endpoint and of the host bridge.
partial=()
for b in 0 1; do
	out=$(S=$((512 << 20)) set_region "$DEV") || fail "x2 through 1: region over block $b: $out"
	partial+=("$(jq -r .region <<<"$out")")
	step "x2 through 1: ${partial[b]} committed over block $b" json_has ".[0].decode_state == \"commit\" and
		.[0].resource == $(($(attr "$DEV" window_start) + b * (512 << 20)))" cxl list -R -r "${partial[b]}"
done
# the kernel frees an endpoint's DPA from the top: the second region first
drop_region "${partial[1]}"
drop_region "${partial[0]}"
remove "$DEV"
new_set "$x21" 1
whole_region "$DEV"
fsdax_reassemble "$x21"

new_set "$x22" 2
W=2 refused_region "2 x 2: two memdevs in the wrong order" "failed to set target0 to ${MEMS[1]}" "$DEV" \
	"${MEMS[1]} ${MEMS[0]}"
W=2 refused_region "2 x 2: two memdevs in position order" "failed to commit decode" "$DEV" \
	"${MEMS[0]} ${MEMS[1]}" "commit refused: interleave ways other than the set's"
remove "$DEV"
new_set "$x22" 2
whole_region "$DEV"
fsdax_reassemble "$x22"

new_set "$x24" 2
expect_eq "2 x 4 window" "$(attr "$DEV" window_start) $(attr "$DEV" capacity)" "$(printf '%#x' $((6 << 30))) $((2 << 30))"
whole_region "$DEV"
fsdax_reassemble "$x24"

# RAM regions (6.3+): an x2 set through one host bridge as node 1's memory.
ram_set="${x21/pmem=1/pmem=0}"
new_set "$ram_set" 1
if [[ $KVER == 6.1.* ]]; then
	step "6.1: no RAM regions" test ! -e "/sys/bus/cxl/devices/$(attr "$DEV" decoder)/create_ram_region"
	remove "$DEV"
else
	ram_region
	# Partitions across a set (issue 33): each endpoint 512 MiB RAM + 256 MiB pmem.
	new_set "$x21,ram_size=$((1 << 30))" 1
	partitioned_regions $((1 << 30))
fi
rmmod cxl_virt
no_kernel_complaints
say PASS
