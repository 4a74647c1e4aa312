#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000 --append iomem=relaxed
# boot: basic
# Grammar fuzzing and security of the cxl_virt control files: the seed corpus
# and FUZZ_COUNT generated create/remove strings (test/fuzz), one write(2)
# each, to debugfs and to /sys/bus/cxl_virt, are all refused with the errno
# the parser (or the range checks) dictate and a one-line reason; the device
# count, /proc/iomem and the CXL bus are unchanged, the live device still
# works. Control files are root-only, System RAM and the kernel image never
# become a device, sysfs shows no kernel addresses.
. /cxlv/test/vm/guest/cxlv.sh

# KEY=VALUE arguments (test/stress/run.sh) override the bounded defaults.
for kv in "$@"; do
	case $kv in
	FUZZ_SEED=* | FUZZ_COUNT=*) export "${kv?}" ;;
	"") ;;
	*) fail "unknown argument '$kv'" ;;
	esac
done

FUZZ_SEED=${FUZZ_SEED:-1}
FUZZ_COUNT=${FUZZ_COUNT:-5000}
FUZZ_BIN=$CXLV/test/fuzz/bin
DEV=0x100000000 DEVSIZE=$((1 << 30))
[ -x "$FUZZ_BIN/cxlv-fuzzwrite" ] || fail "no $FUZZ_BIN/cxlv-fuzzwrite: run make -C test/fuzz first"

load_stack
# The live device takes the whole reservation, so no string can be valid.
dev=$(create "memstart=$DEV,memsize=$DEVSIZE,cxltype=3,pmem=1")
wait_ready "$dev"
expect_eq "live device" "$dev" cxlv0

snapshot() {
	device_count
	cat /proc/iomem
	ls /sys/bus/cxl/devices /sys/bus/pci/devices
}
before=$(snapshot)

# Physical KASLR moves the kernel on every boot: read it from /proc/iomem.
kcode=$(awk -F'[- :]+' '/Kernel code/ { print $2 }' /proc/iomem)
[ -n "$kcode" ] || fail "no Kernel code in /proc/iomem"
vars=(--var "KCODE=$(printf '%#x' $((0x$kcode & ~0xfffff)))" --var "DEV=$DEV"
	--var "DEVSIZE=$DEVSIZE" --var "HOLE=$((64 << 30))")
say "kernel code at 0x$kcode; seed $FUZZ_SEED, $FUZZ_COUNT generated strings"

corpus=/tmp/fuzz-corpus.bin
"$FUZZ_BIN/cxlv-fuzzgen" --seeds "$CXLV/test/fuzz/corpus/seeds.txt" \
	--seed "$FUZZ_SEED" --count "$FUZZ_COUNT" >"$corpus" || fail "cxlv-fuzzgen"
t0=$(now_us)
step "fuzz debugfs" "$FUZZ_BIN/cxlv-fuzzwrite" --dir "$CXLV_DBG" --max-len 256 --live-id 0 "${vars[@]}" "$corpus"
step "fuzz sysfs" "$FUZZ_BIN/cxlv-fuzzwrite" --dir "$CXLV_SYS" --max-len 0 --live-id 0 "${vars[@]}" "$corpus"
say "fuzz writes took $((($(now_us) - t0) / 1000)) ms"

[ "$(snapshot)" = "$before" ] || {
	echo "$before" >/tmp/before
	snapshot | diff /tmp/before - || true
	fail "fuzzing changed the device count, /proc/iomem or the buses"
}
expect_eq "live device state" "$(attr "$dev" state)" ready
[ -n "$(attr "$dev" memdev)" ] || fail "$dev lost its memdev"

# --- security ---
expect_mode() {
	expect_eq "mode of $1" "$(stat -c %a "$1")" "$2"
}
for d in "$CXLV_SYS" "$CXLV_DBG"; do
	expect_mode "$d/create" 200
	expect_mode "$d/remove" 200
	expect_mode "$d/last_error" 400
done

# nobody CMD: runs a bash command line as user nobody (busybox su).
nobody() {
	su -s /bin/bash -c "$1" nobody
}
# as_nobody FILE TEXT: the write must be refused with EACCES or EPERM
as_nobody() {
	local out
	if out=$(nobody "printf '%s' $(printf %q "$2") >$(printf %q "$1")" 2>&1); then
		fail "nobody could write '$2' to $1"
	fi
	case $out in
	*"Permission denied"* | *"Operation not permitted"*) say "nobody -> $1: refused ($out)" ;;
	*) fail "nobody -> $1: unexpected error: $out" ;;
	esac
}
expect_eq "uid of nobody" "$(nobody 'id -u')" 65534
as_nobody "$CXLV_SYS/create" "memstart=$DEV,memsize=$DEVSIZE,cxltype=3,pmem=1"
as_nobody "$CXLV_SYS/remove" "cxlv_dev_id=0"
as_nobody "$CXLV_DBG/create" "memstart=$DEV,memsize=$DEVSIZE,cxltype=3,pmem=1"
as_nobody "$CXLV_DBG/remove" "cxlv_dev_id=0"
for f in "$CXLV_SYS/last_error" "$CXLV_DBG/last_error"; do
	if nobody "cat $f" >/dev/null 2>&1; then
		fail "nobody could read $f"
	fi
done
expect_eq "devices after the non-root attempts" "$(device_count)" 1

# Every System RAM range of /proc/iomem, and the kernel image, refused:
# the whole range, and a 1 GiB window starting at its first MiB.
ram_checks=0
while read -r start end; do
	# whole pages: the parser refuses a memsize that is not a page multiple
	s=$(((0x$start + 0xfffff) & ~0xfffff)) e=$(((0x$end + 1) & ~0xfff))
	for text in "memstart=$s,memsize=$((e - s)),cxltype=3,pmem=1" \
		"memstart=$s,memsize=$((1 << 30)),cxltype=3,pmem=1"; do
		[ $((e - s)) -gt 0 ] || continue
		got=$(ctl "$CXLV_DBG/create" "$text")
		case $got in
		EBUSY | ENOSPC) ram_checks=$((ram_checks + 1)) ;;
		*) fail "System RAM '$text': $got ($(cat "$CXLV_SYS/last_error"))" ;;
		esac
	done
done <<<"$(awk -F'[- :]+' '/^[0-9a-f]+-[0-9a-f]+ : System RAM/ { print $1, $2 }
	/Kernel (code|data|bss)/ { print $2, $3 }' /proc/iomem)"
[ "$ram_checks" -ge 4 ] || fail "only $ram_checks System RAM checks ran"
say "System RAM and kernel image: $ram_checks creates refused"
expect_eq "devices after the System RAM attempts" "$(device_count)" 1

# No kernel virtual addresses in our sysfs files: 16 hex digits, ffff[8-e]...
# (direct map, vmalloc, vmemmap) or ffffffff[8-e]... (text, modules).
kptr='(^|[^0-9a-f])(ffff[89a-e][0-9a-f]{11}|ffffffff[89a-e][0-9a-f]{7})([^0-9a-f]|$)'
leaks=$(find /sys/devices/virtual/cxl_virt /sys/bus/cxl_virt/ -maxdepth 3 -type f -perm -0400 \
	-exec grep -l -E "$kptr" {} + 2>/dev/null || true)
[ -z "$leaks" ] || fail "kernel addresses in: $leaks"
files=$(find /sys/devices/virtual/cxl_virt -maxdepth 3 -type f -perm -0400 | wc -l)
[ "$files" -ge 10 ] || fail "only $files sysfs files scanned"
say "no kernel addresses in $files cxl_virt sysfs files"

remove "$dev"
expect_eq "devices" "$(device_count)" 0
no_kernel_complaints
rmmod cxl_virt
say PASS
