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
# The live device's mailbox is fuzzed too (issue 33: bad mailbox input for
# every command answered per the spec with nothing changed): with cxl_pci
# unbound, cxl-mbox-probe raw-fuzz sends MBOX_FUZZ_COUNT commands of seed
# FUZZ_SEED on the bare registers through /dev/mem (hence iomem=relaxed):
# the opcodes of the device's CEL (6.1's set has no partitions) and others,
# lengths right, one off, 0 and the payload size, random and mutated
# payloads; every command is answered within 2 s with a Table 8-34 code,
# no output unless Success, and a refused one changes neither the
# registers nor what the read-only state commands answer (test/tools/
# cxl-mbox-probe.c says which commands are only sent with input that must
# be refused, and why). Then cxl_pci binds again and the memdev answers
# cxl list -H and its labels read back as before. The default count adds about 30 s under TCG;
# MBOX_FUZZ_COUNT, or FUZZ_COUNT (test/stress/run.sh) in proportion, scales it.
. /cxlv/test/vm/guest/cxlv.sh

# KEY=VALUE arguments (test/stress/run.sh) override the bounded defaults.
for kv in "$@"; do
	case $kv in
	FUZZ_SEED=* | FUZZ_COUNT=* | MBOX_FUZZ_COUNT=*) export "${kv?}" ;;
	"") ;;
	*) fail "unknown argument '$kv'" ;;
	esac
done

FUZZ_SEED=${FUZZ_SEED:-1}
MBOX_FUZZ_PER_5000=2000 # raw-fuzz commands per 5000 control-file strings
FUZZ_COUNT=${FUZZ_COUNT:-5000}
MBOX_FUZZ_COUNT=${MBOX_FUZZ_COUNT:-$((FUZZ_COUNT * MBOX_FUZZ_PER_5000 / 5000))}
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

# --- the mailbox, on the bare registers ---
probe=$CXLV/test/tools/bin/cxl-mbox-probe
[ -x "$probe" ] || fail "no $probe: test/tools/build.sh builds it"
mem=$(attr "$dev" memdev)
bdf=$(cxl list -m "$mem" | jq -r 'if type == "array" then .[0] else . end | .host')
[ -e "/sys/bus/pci/devices/$bdf" ] || fail "$mem: host '$bdf' is not a PCI device"
bar=$(($(cut -d' ' -f1 "/sys/bus/pci/devices/$bdf/resource" | head -1)))
cxl read-labels "$mem" -o /tmp/labels.before || fail "cxl read-labels before the mailbox fuzz"
step "unbind cxl_pci from $bdf" sh -c "echo $bdf >/sys/bus/pci/drivers/cxl_pci/unbind"
t0=$(now_us)
out=$($probe raw-fuzz "$bar" "$FUZZ_SEED" "$MBOX_FUZZ_COUNT") || fail "mailbox fuzz: $out"
say "mailbox fuzz, seed $FUZZ_SEED: $out ($((($(now_us) - t0) / 1000)) ms)"
step "bind cxl_pci to $bdf" sh -c "echo $bdf >/sys/bus/pci/drivers/cxl_pci/bind"
wait_ready "$dev"
mem=$(attr "$dev" memdev)
json=$(cxl list -m "$mem" -H)
echo "$json" | has '"media_normal":true' || fail "no health info after the mailbox fuzz: $json"
cxl read-labels "$mem" -o /tmp/labels || fail "cxl read-labels after the mailbox fuzz"
expect_eq "label bytes read back" "$(stat -c %s /tmp/labels)" "$(attr "$dev" label_size)"
cmp /tmp/labels.before /tmp/labels || fail "labels changed by the mailbox fuzz"
say "after rebind: $mem answers cxl list -H, its labels read back unchanged"

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
