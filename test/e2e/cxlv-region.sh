#!/bin/bash
# vm: --mem 4G --memmap 1536M$0x100000000 --append iomem=relaxed
# sets: smoke
# 1536M: the four regions need 1 GiB of capacity after the 256 MiB of
# metadata at the start of the range, and 256 MiB more that a fifth would
# fit in but for a free decoder. iomem=relaxed: the decoder checks
# read and write the endpoint's HDM decoder registers through /dev/mem, as
# a buggy driver could.
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
# First, four HDM decoders on the endpoint (issue 33): on 1.25 GiB of
# pmem, four 256 MiB pmem regions on the one memdev at once, each at window + its
# DPA, devdax and fsdax namespaces with a pattern of their own each, all read back once all
# are written; a fifth region refused for want of a free decoder. 6.1 passes
# every region of the host bridge's one root port through one pass-through
# decoder, so there it is one region. With decoder 0 alone left, through
# the registers: an out-of-order commit, a commit whose HPA range goes below
# the decoder under it and a reset of a decoder under a committed one
# refused by the emulator, with their reasons in dmesg; the regions
# destroyed top first and every decoder reset in both the kernel's and the
# emulator's view.
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

probe=/cxlv/test/tools/bin/cxl-mbox-probe
[ -x $probe ] || fail "no $probe: test/tools/build.sh builds it"

# CXL r3.0 8.2.4.19: decoder n's registers, from the endpoint's BAR0
# (component block at 64 KiB, CXL.cachemem at 4 KiB, HDM capability at
# 0x100 in it), and the Control register's Commit, Committed and Error.
hdm_reg() {
	local off
	case $2 in
	base) off=0x10 ;; size) off=0x18 ;; ctrl) off=0x20 ;; skip) off=0x24 ;;
	esac
	echo $((bar0 + 0x11100 + off + 0x20 * $1))
}
COMMIT=$((1 << 9)) COMMITTED=$((1 << 10)) COMMIT_ERROR=$((1 << 11))
ctrl_of() { $probe phys-read "$(hdm_reg "$1" ctrl)" 4 | od -An -tu4 | tr -d ' '; }
# set64 REG VALUE: both halves of a 64-bit decoder register.
set64() {
	$probe phys-write32 "$1" $(($2 & 0xffffffff)) &&
		$probe phys-write32 $(($1 + 4)) $(($2 >> 32))
}
# program N BASE SIZE SKIP CTRL: writes decoder N as a driver would.
program() {
	set64 "$(hdm_reg "$1" base)" "$2" && set64 "$(hdm_reg "$1" size)" "$3" &&
		set64 "$(hdm_reg "$1" skip)" "$4" &&
		$probe phys-write32 "$(hdm_reg "$1" ctrl)" "$5" ||
		fail "cannot write decoder $1 through /dev/mem"
}
# unprogram N CTRL: decoder N's Control back to CTRL (Commit clear), then
# its ranges zeroed, so that no range is rewritten under a set Commit.
unprogram() {
	$probe phys-write32 "$(hdm_reg "$1" ctrl)" "$2" &&
		set64 "$(hdm_reg "$1" base)" 0 && set64 "$(hdm_reg "$1" size)" 0 &&
		set64 "$(hdm_reg "$1" skip)" 0 ||
		fail "cannot write decoder $1 through /dev/mem"
}
# answered N BIT: the emulator shows BIT in decoder N's Control within 1 s.
answered() {
	local i
	for ((i = 0; i < 100; i++)); do
		(($(ctrl_of "$1") & $2)) && return 0
		sleep 0.01
	done
	return 1
}
# committed_set: the decoders the emulator shows Committed, e.g. "0 1".
committed_set() {
	local n out=
	for n in 0 1 2 3; do
		(($(ctrl_of $n) & COMMITTED)) && out+="${out:+ }$n"
	done
	echo "$out"
}
# refused_out_of_order N BASE SKIP REASON: decoder N programmed for 256 MiB
# at BASE after SKIP is refused with REASON, then left as the kernel left it.
refused_out_of_order() {
	local was
	was=$(ctrl_of "$1")
	program "$1" "$2" $((256 << 20)) "$3" $COMMIT
	answered "$1" $COMMIT_ERROR || fail "decoder $1: no Error Not Committed for: $4"
	(($(ctrl_of "$1") & COMMITTED)) && fail "decoder $1 committed: $4"
	dmesg | has "decoder $1: commit refused: $4" || fail "no 'decoder $1: commit refused: $4' in dmesg"
	unprogram "$1" $((was & ~(COMMIT | COMMITTED | COMMIT_ERROR)))
	step "decoder $1 idle again" wait_for 2 eval "(($(ctrl_of "$1") & (COMMITTED | COMMIT_ERROR))) && false || true"
	say "decoder $1 refused: $4"
}

# decoder_rules: with decoder 0 alone committed (the kernel's), the
# emulator refuses through the registers a commit of decoder 2 above an
# uncommitted decoder 1, a decoder 1 whose HPA range starts below decoder
# 0's end, and, once decoder 1 is committed by hand at window + its DPA, a
# reset of decoder 0 under it; decoder 1 is then reset as it was.
decoder_rules() {
	local ctrl0 was1
	refused_out_of_order 2 $((window + (2 << 28))) 0 "the decoder below it is not committed"
	refused_out_of_order 1 "$window" 0 "HPA range below the end of the decoder below it"
	was1=$(($(ctrl_of 1) & ~(COMMIT | COMMITTED | COMMIT_ERROR)))
	program 1 $((window + (1 << 28))) $((256 << 20)) 0 $((was1 | COMMIT))
	answered 1 $COMMITTED || fail "decoder 1 at window + its DPA not committed"
	ctrl0=$(ctrl_of 0)
	$probe phys-write32 "$(hdm_reg 0 ctrl)" $((ctrl0 & ~COMMIT)) || fail "cannot write decoder 0"
	step "reset of decoder 0 refused" wait_for 2 eval "dmesg | grep -q 'decoder 0: reset refused: decoder 1 is still committed'"
	expect_eq "decoders committed after a reset under decoder 1" "$(committed_set)" "0 1"
	$probe phys-write32 "$(hdm_reg 0 ctrl)" "$ctrl0" || fail "cannot write decoder 0"
	unprogram 1 "$was1"
	step "decoder 1 reset" wait_for 2 eval '[ "$(committed_set)" = 0 ]'
	say "reset of decoder 0 under committed decoder 1 refused"
}

four_regions() {
	local mem rd ep port window i r res ns out seeds=(41 42 43 44) c0 nregions=4 n0
	local -a regions targets
	mem=$(attr "$dev" memdev) rd=$(attr "$dev" decoder)
	window=$(($(attr "$dev" window_start)))
	bar0=$(($(awk 'NR == 1 { print $1 }' "$(dirname "$(readlink -f "/sys/bus/cxl/devices/$mem")")/resource")))
	ep=$(endpoint_decoder "$mem") port=${ep%.0}
	expect_eq "endpoint decoders of $mem" "$(ls -d /sys/bus/cxl/devices/"$port".* | wc -l)" 4
	# 6.1 decodes a host bridge with one root port through one
	# pass-through decoder: one region at a time crosses it.
	[[ $KVER != 6.1.* ]] || nregions=1
	c0=$(attr "$dev" commits)
	for ((i = 0; i < nregions; i++)); do
		out=$(cxl create-region -m -d "$rd" -w 1 -t pmem -s 256M "$mem") ||
			fail "cxl create-region $i of 256M on $mem failed"
		r=$(jq -r .region <<<"$out")
		res=$(cxl list -R -r "$r" | jq -s '[.[] | if type == "array" then .[] else . end][0].resource')
		expect_eq "$r HPA (window + DPA of decoder $i)" "$res" $((window + (i << 28)))
		regions+=("$r")
	done
	say "$nregions regions on $mem at once: ${regions[*]}"
	expect_eq "device commits for $nregions regions" "$(attr "$dev" commits)" $((c0 + nregions))
	expect_eq "decoders committed (device view)" "$(committed_set)" "$(seq -s ' ' 0 $((nregions - 1)))"
	step "endpoint decoders of $mem in the $nregions regions" json_has "[.. | objects | select(.region?)] | length == $nregions" \
		cxl list -D -d endpoint -m "$mem"
	if ((nregions == 4)); then
		# ndctl 76.1 exits 0 with "created 0 regions": count them
		n0=$(compgen -G '/sys/bus/cxl/devices/region*' | wc -l)
		out=$(cxl create-region -m -d "$rd" -w 1 -t pmem -s 256M "$mem" 2>&1) || true
		expect_eq "regions after asking for a fifth" "$(compgen -G '/sys/bus/cxl/devices/region*' | wc -l)" "$n0"
		has "free decoder" <<<"$out" || fail "fifth region refused for another reason: $out"
		for i in 0 1 2 3; do
			expect_eq "$port.$i DPA size" $(($(cat "/sys/bus/cxl/devices/$port.$i/dpa_size"))) $((256 << 20))
		done
		say "fifth region refused, every decoder holds DPA: $out"
	fi

	for ((i = 0; i < nregions; i++)); do
		if ((i % 2)); then
			ns=$(make_namespace "${regions[i]}" fsdax --map dev)
			targets+=("/dev/$(jq -r .blockdev <<<"$ns")")
			step "pattern $i into ${targets[i]}" "$PATCHECK" write --seed "${seeds[i]}" --size 32M "${targets[i]}"
		else
			ns=$(make_namespace "${regions[i]}" devdax)
			targets+=("/dev/$(jq -r '.daxregion.devices[0].chardev' <<<"$ns")")
			step "pattern $i into ${targets[i]}" "$PATCHECK" write --mmap --seed "${seeds[i]}" --size 32M "${targets[i]}"
		fi
	done
	for ((i = 0; i < nregions; i++)); do
		out=
		((i % 2)) || out=--mmap
		step "pattern $i reads back from ${targets[i]}" "$PATCHECK" verify $out --seed "${seeds[i]}" --size 32M "${targets[i]}"
	done

	# Top first, as the kernel resets; the register checks with one left.
	for ((i = nregions - 1; i >= 0; i--)); do
		((i)) || decoder_rules
		step "destroy namespaces of ${regions[i]}" ndctl destroy-namespace -f all -r "${regions[i]}"
		drop_region "${regions[i]}"
		expect_eq "size of $port.$i after destroy" $(($(cat "/sys/bus/cxl/devices/$port.$i/size"))) 0
		expect_eq "decoders committed after destroying ${regions[i]}" "$(committed_set)" "$(seq -s ' ' 0 $((i - 1)))"
	done
	step "no endpoint decoder of $mem in a region" json_has '[.. | objects | select(.region?)] | length == 0' \
		cxl list -D -d endpoint -m "$mem"
	say "$nregions regions destroyed top first; every decoder reset"
}

spec="memstart=0x100000000,memsize=$((1 << 30)),cxltype=3,pmem=1"
load_stack
dev=$(create "memstart=0x100000000,memsize=$((1536 << 20)),cxltype=3,pmem=1")
wait_ready "$dev"
four_regions
remove "$dev"

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
