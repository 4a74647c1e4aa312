#!/bin/bash
# vm: --mem 4G --memmap 2G$0x100000000
# Lifecycle and races of cxl_virt: LIFE_CYCLES create/remove cycles (half of
# them removing before enumeration ends) under global PCI rescans back to
# back, and MOD_CYCLES insmod/rmmod cycles
# with devices present leak no Slab, MemAvailable, ioremap or iomem beyond a
# stated bound; 4 concurrent writers on distinct and on the same ranges;
# region creation racing remove; rmmod racing create. After each, the state
# is consistent: no device, no region, iomem and the CXL/PCI buses as before.
. /cxlv/test/vm/guest/cxlv.sh

# KEY=VALUE arguments (test/stress/run.sh) override the bounded defaults.
for kv in "$@"; do
	case $kv in
	LIFE_CYCLES=* | MOD_CYCLES=* | RACE_ROUNDS=* | REGION_RACES=* | RMMOD_RACES=*) export "${kv?}" ;;
	"") ;;
	*) fail "unknown argument '$kv'" ;;
	esac
done

LIFE_CYCLES=${LIFE_CYCLES:-50}
MOD_CYCLES=${MOD_CYCLES:-10}
RACE_ROUNDS=${RACE_ROUNDS:-10}
REGION_RACES=${REGION_RACES:-6}
RMMOD_RACES=${RMMOD_RACES:-5}
# Leak bounds after warm-up: Slab may grow by SLAB_KB_PER_CYCLE per cycle on
# top of SLAB_KB_FLOOR (per-CPU caches refill), available memory may drop by
# at most AVAIL_KB_FLOOR; ioremaps must come back to the same count.
SLAB_KB_FLOOR=512 SLAB_KB_PER_CYCLE=2 AVAIL_KB_FLOOR=16384

M=$((1 << 20))
base=$((4 << 30))
range() { echo "memstart=$((base + $1 * 512 * M)),memsize=$((512 * M)),cxltype=3,pmem=1"; }

# dev_at N: the cxlvN device on range N, if any.
dev_at() {
	local d want
	want=$(printf '%#x' $((base + $1 * 512 * M)))
	for d in /sys/bus/cxl_virt/devices/*; do
		[ -e "$d" ] && [ "$(cat "$d/memstart" 2>/dev/null)" = "$want" ] && basename "$d"
	done
	return 0
}

# mem: "Slab_kB Available_kB ioremaps" after dropping caches. Available is
# MemAvailable plus the free pages parked on the per-CPU lists
# (/proc/zoneinfo's pagesets), which MemAvailable leaves out: from 6.7 the
# kernel grows those lists under heavy freeing, and a 6.12 guest's
# MemAvailable moved by 25 MB either way between two checks with no leak.
mem() {
	local pcp_kb
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 1
	pcp_kb=$(awk '/^ +count:/ { n += $2 } END { print n * 4 }' /proc/zoneinfo)
	echo "$(awk -v pcp="$pcp_kb" '/^Slab:/ { s = $2 } /^MemAvailable:/ { a = $2 } END { print s, a + pcp }' /proc/meminfo) $(grep -c ioremap /proc/vmallocinfo) $pcp_kb"
}

# check_leak WHAT CYCLES BEFORE AFTER
check_leak() {
	local cycles=$2 b a
	read -r -a b <<<"$3"
	read -r -a a <<<"$4"
	local slab=$((a[0] - b[0])) avail=$((a[1] - b[1])) io=$((a[2] - b[2]))
	say "$1: $cycles cycles: Slab ${slab} kB, available ${avail} kB (per-CPU lists ${b[3]} -> ${a[3]} kB), ioremaps $io"
	[ "$slab" -le $((SLAB_KB_FLOOR + cycles * SLAB_KB_PER_CYCLE)) ] ||
		fail "$1: Slab grew ${slab} kB over $cycles cycles (bound $((SLAB_KB_FLOOR + cycles * SLAB_KB_PER_CYCLE)) kB)"
	[ "$avail" -ge $((-AVAIL_KB_FLOOR)) ] || fail "$1: available memory dropped ${avail} kB"
	[ "$io" -le 0 ] || fail "$1: $io ioremaps left"
}

# The state with no device: compared after every phase.
state() {
	ls /sys/bus/cxl/devices /sys/bus/pci/devices /sys/bus/nd/devices
	cat /proc/iomem
}

load_stack --no-cxlv
base_state=$(state)
load_stack

# --- create/remove cycles ---
cycle() {
	local d
	d=$(create "$(range 0)")
	# odd cycles remove while cxl_pci/cxl_mem are still enumerating
	if (($1 % 2)); then wait_ready "$d"; fi
	remove "$d"
	expect_eq "devices after cycle $1" "$(device_count)" 0
}
for i in 1 2 3 4; do cycle "$i"; done
m0=$(mem)
t0=$SECONDS
rescans_start
for ((i = 1; i <= LIFE_CYCLES; i++)); do cycle "$i"; done
rescans_stop
check_leak "create/remove" "$LIFE_CYCLES" "$m0" "$(mem)"
say "create/remove: $LIFE_CYCLES cycles in $((SECONDS - t0)) s under $RESCAN_COUNT global PCI rescans"
expect_eq "next id after $LIFE_CYCLES cycles" "$(create "$(range 0)")" cxlv0
remove cxlv0
rmmod cxl_virt
[ "$(state)" = "$base_state" ] || fail "create/remove cycles left state behind"

# --- insmod/rmmod cycles with devices present ---
modcycle() {
	local d
	insmod "$CXLV_KO"
	d=$(create "$(range 0)")
	create "$(range 1)" >/dev/null
	wait_ready "$d"
	rmmod cxl_virt
	[ ! -e /sys/bus/cxl_virt ] || fail "modcycle $1: /sys/bus/cxl_virt after rmmod"
	[ "$(state)" = "$base_state" ] || fail "modcycle $1: rmmod with devices left state behind"
}
modcycle 0
m0=$(mem)
for ((i = 1; i <= MOD_CYCLES; i++)); do modcycle "$i"; done
check_leak "insmod/rmmod" "$MOD_CYCLES" "$m0" "$(mem)"

# --- 4 concurrent writers ---
insmod "$CXLV_KO"
errs=/tmp/race.err
: >"$errs"
ctlfile() { (($1 % 2)) && echo "$CXLV_SYS/$2" || echo "$CXLV_DBG/$2"; }

# distinct W: writer W creates and removes its own range; all must succeed.
distinct() {
	local r got d
	for ((r = 0; r < RACE_ROUNDS; r++)); do
		got=$(ctl "$(ctlfile "$r" create)" "$(range "$1")")
		[ "$got" = OK ] || { echo "distinct $1/$r: create $got" >>"$errs"; continue; }
		d=$(dev_at "$1")
		got=$(ctl "$(ctlfile "$((r + 1))" remove)" "cxlv_dev_id=${d#cxlv}")
		[ "$got" = OK ] || echo "distinct $1/$r: remove $d $got" >>"$errs"
	done
}
# same W: all writers fight over range 0; EEXIST and ENODEV are fair.
same() {
	local r got d n
	for ((r = 0; r < RACE_ROUNDS; r++)); do
		got=$(ctl "$(ctlfile "$((r + $1))" create)" "$(range 0)")
		case $got in
		OK) echo ok >>/tmp/race.creates ;;
		EEXIST) ;;
		*) echo "same $1/$r: create $got" >>"$errs" ;;
		esac
		n=$(dev_at 0 | wc -l)
		[ "$n" -le 1 ] || echo "same $1/$r: $n devices on one range" >>"$errs"
		for d in $(dev_at 0); do
			got=$(ctl "$(ctlfile "$r" remove)" "cxlv_dev_id=${d#cxlv}")
			case $got in
			OK | ENODEV) ;;
			*) echo "same $1/$r: remove $d $got" >>"$errs" ;;
			esac
		done
	done
}
t0=$SECONDS
for w in 0 1 2 3; do distinct "$w" & done
wait
[ ! -s "$errs" ] || { cat "$errs"; fail "distinct writers failed"; }
expect_eq "devices after distinct writers" "$(device_count)" 0
: >/tmp/race.creates
for w in 0 1 2 3; do same "$w" & done
wait
[ ! -s "$errs" ] || { cat "$errs"; fail "same-range writers failed"; }
for d in $(dev_at 0); do remove "$d"; done
expect_eq "devices after same-range writers" "$(device_count)" 0
say "4 writers x $RACE_ROUNDS rounds, distinct then same range ($(wc -l </tmp/race.creates) creates won) in $((SECONDS - t0)) s"

# --- region creation racing remove ---
for ((i = 0; i < REGION_RACES; i++)); do
	d=$(create "$(range 0)")
	wait_ready "$d"
	decoder=$(attr "$d" decoder) memdev=$(attr "$d" memdev)
	cxl create-region -m -d "$decoder" -w 1 -t pmem "$memdev" >/tmp/region.out 2>&1 &
	# 0 to 0.2 s in 17 ms steps: before, during and after the region's setup
	delay=$(printf '0.%03d' $((i * 17 % 200)))
	sleep "$delay"
	rm_got=$(ctl "$CXLV_DBG/remove" "cxlv_dev_id=${d#cxlv}")
	wait $! && cr=ok || cr=failed
	say "race $i (remove after $delay s): remove $rm_got, create-region $cr"
	case $rm_got in
	# remove is not atomic against create_pmem_region (cxlv_port_has_region):
	# when it wins, the half-made region must go with the device
	OK) expect_eq "regions left after remove won race $i" "$(cxl_count -R)" 0 ;;
	EBUSY) ;;
	*) fail "remove racing create-region: $rm_got" ;;
	esac
	regions=$(cxl list -R 2>/dev/null | jq -r '.. | objects | .region? // empty')
	for r in $regions; do
		cxl disable-region "$r" >/dev/null 2>&1 || true
		step "destroy $r" cxl destroy-region -f "$r"
	done
	[ "$rm_got" = OK ] || remove "$d"
	expect_eq "devices after race $i" "$(device_count)" 0
	expect_eq "regions after race $i" "$(cxl_count -R)" 0
done
rmmod cxl_virt
[ "$(state)" = "$base_state" ] || fail "region races left state behind"

# --- rmmod racing create ---
# spin_create: creates on the 4 ranges in turn, without forking, until the
# control file goes away with the module.
spin_create() {
	local j=0 texts=("$(range 0)" "$(range 1)" "$(range 2)" "$(range 3)")
	while [ -e "$CXLV_SYS/create" ]; do
		printf '%s' "${texts[j]}" >"$CXLV_SYS/create" 2>/dev/null || true
		j=$(((j + 1) % 4))
	done
}
for ((i = 0; i < RMMOD_RACES; i++)); do
	insmod "$CXLV_KO"
	spin_create &
	spin=$!
	sleep "0.$((i % 3 * 3 + 1))"
	tries=0
	until rmmod cxl_virt 2>/dev/null; do
		((++tries < 100)) || fail "rmmod never succeeded"
		sleep 0.05
	done
	wait "$spin" || true
	[ ! -e /sys/devices/virtual/cxl_virt ] || fail "rmmod race $i: /sys/devices/virtual/cxl_virt survived: $(ls /sys/devices/virtual/cxl_virt)"
	[ "$(state)" = "$base_state" ] || {
		echo "$base_state" >/tmp/base_state
		state | diff /tmp/base_state - || true
		fail "rmmod race $i left state behind"
	}
done
say "rmmod raced create $RMMOD_RACES times"
no_kernel_complaints
say PASS
