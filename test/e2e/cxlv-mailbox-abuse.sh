#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000 --append iomem=relaxed
# boot: basic
# iomem=relaxed: the module keeps its metadata busy in iomem, which /dev/mem
# refuses to map by default (cxlv-own checks that); this scenario plays a
# root user who reads and writes it anyway.
# Unknown mailbox opcodes sent from the host side are refused by the
# cxl_virt emulator with Unsupported (CXL 3.0 8.2.8.4.5.1, Table 8-34: 0003h;
# 0015h is "Unsupported Mailbox or CCI", for commands valid elsewhere) and
# touch nothing: the 6.1 ioctl path never lets them reach the device
# (no raw commands), so cxl_pci is unbound and the registers are driven
# through /dev/mem (cxl-mbox-probe raw-doorbell). The register block outside
# the mailbox control/command/status registers, the payload area, the label
# storage area, the rest of the metadata window and the start of device
# memory stay byte for byte the same; IDENTIFY on the same path is the
# positive control, and Get Timestamp answers the time 6.12's cxl_pci set
# at probe (0 on 6.1, which sets none). Get/Inject/Clear Poison with a
# misaligned, out-of-range address or the wrong length are refused (Invalid
# Input, Invalid Payload Length), and so are Get/Clear Event Records and Set
# Event Interrupt Policy with a bad log, handle count, mode or length, and
# the security commands with a bad passphrase type, state or length, Set
# Partition Info misaligned, past the capacity or of the wrong length (on
# 6.1, with no RAM regions, not partitionable: Unsupported, and ram_size=
# refused), Set Alert Configuration and Set Shutdown State with reserved
# bits, the health commands with a wrong length, and Sanitize and Secure
# Erase with any input; Set Partition Info next-boot and Immediate then
# move the boundary as Get Partition Info shows. Stores into the read-only
# capability layout are undone. The endpoint's DOE mailbox, driven through
# its config file, answers Discovery and CXL Table Access and refuses
# malformed requests per PCIe r6.0 6.30 (test/e2e/cdat-lib.sh); the CDAT the
# kernel read at probe carries the default figures (6.1 reads it too and
# does nothing more with it). A raw Sanitize runs in the background,
# refusing what may not run beside it, and leaves labels and memory zero.
# After rebinding cxl_pci the memdev and its labels are back and answer
# normal commands, and the kernel reads the same CDAT again.
# Firmware update (test/e2e/firmware-lib.sh, issue 33) folds into this boot,
# which has the bare registers and a remove and create at hand: malformed
# and out-of-order transfers refused, an online activation, and on 6.12 and
# 7.3 cxl update-firmware in parts, activated by remove and create, and
# --cancel. Finally the device is removed while DOE requests race the remove.
. /cxlv/test/vm/guest/cxlv.sh
# shellcheck source=test/e2e/cdat-lib.sh
. "$CXLV/test/e2e/cdat-lib.sh"
# shellcheck source=test/vm/guest/cxlvctl.sh
. /cxlv/test/vm/guest/cxlvctl.sh
# shellcheck source=test/e2e/firmware-lib.sh
. "$CXLV/test/e2e/firmware-lib.sh"

probe=/cxlv/test/tools/bin/cxl-mbox-probe
[ -x $probe ] || fail "no $probe: test/tools/build.sh builds it"
start=$((0x100000000)) size=$((1 << 30))
unsupported=0x3

# snapshot FILE: the metadata window after BAR0 (the root port's window over
# BAR0, LSA included) and the first MiB of device memory, through /dev/mem.
snapshot() {
	{
		$probe phys-read $bar_end $((meta_end - bar_end)) &&
			$probe phys-read $window $((1 << 20))
	} >"$1" || fail "cannot read the metadata window or device memory through /dev/mem"
}

# raw_expect WANT OPCODE LEN [HEX]: one command on the bare registers, its
# payload starting with HEX.
raw_expect() {
	local want=$1 got
	got=$($probe raw-doorbell "$bar" "$2" "$3" ${4:+"$4"}) || fail "raw-doorbell $2 len $3 failed: $got"
	[[ $got == "$want"* ]] || fail "raw-doorbell opcode $2 len $3: got '$got', want '$want'"
	say "raw-doorbell opcode $2 len $3: $got"
}

# refused_input OPCODE:LEN...: each command, on the probe's pattern, is
# Invalid Input (0x2) at its own input size LEN and Invalid Payload Length
# (0x16) at any other.
refused_input() {
	local opcode len bad
	for opcode_len in "$@"; do
		opcode=${opcode_len%:*} len=${opcode_len#*:}
		raw_expect "rc=0x2 out_len=0 changed=0" "$opcode" "$len"
		for bad in 0 $((len - 1)) $((len + 1)) 4096; do
			raw_expect "rc=0x16 out_len=0 changed=0" "$opcode" $bad
		done
	done
}

load_stack
dev=$(create "memstart=$start,memsize=$size,cxltype=3,pmem=1")
wait_ready "$dev"
mem=$(attr "$dev" memdev)
bdf=$(cxl list -m "$mem" | jq -r 'if type == "array" then .[0] else . end | .host')
[ -e "/sys/bus/pci/devices/$bdf" ] || fail "$mem: host '$bdf' is not a PCI device"
bar=$(($(cut -d' ' -f1 "/sys/bus/pci/devices/$bdf/resource" | head -1)))
expect_eq "BAR0 of $bdf" "$(printf '%#x' $bar)" "$(printf '%#x' $start)"
bar_end=$(($(cut -d' ' -f2 "/sys/bus/pci/devices/$bdf/resource" | head -1) + 1))
rp=$(basename "$(dirname "$(readlink -f "/sys/bus/pci/devices/$bdf")")")
while read -r s e _; do if ((s == bar)); then meta_end=$((e + 1)); fi; done <"/sys/bus/pci/devices/$rp/resource"
[ -n "${meta_end-}" ] || fail "no window of root port $rp starts at BAR0"
lsa_off=$(attr "$dev" label_offset) lsa_size=$(attr "$dev" label_size)
((start + lsa_off >= bar_end && start + lsa_off + lsa_size <= meta_end)) ||
	fail "label area $lsa_off+$lsa_size is not in the metadata window after BAR0"
window=$(attr "$dev" window_start) # device memory
say "$dev: $mem at $bdf, BAR0 $(printf '%#x' $bar)"
cdat=$(endpoint_cdat "$mem")
check_cdat "$cdat" "$(attr "$dev" capacity)" 1 250 300 30000 25000
cat "$cdat" >/tmp/cdat.before

# Labels with a pattern, so a clearing write would show.
head -c $lsa_size /dev/urandom >/tmp/pattern
for ((i = 0; i < 100; i++)); do
	nmem=$(ndctl list -D | jq -r '.[]?.dev' | head -1) && [ -n "$nmem" ] && break
	sleep 0.1
done
[ -n "$nmem" ] || fail "no nvdimm for $mem"
step "disable $nmem" ndctl disable-dimm "$nmem"
step "write labels" ndctl write-labels "$nmem" -i /tmp/pattern

step "unbind cxl_pci from $bdf" sh -c "echo $bdf >/sys/bus/pci/drivers/cxl_pci/unbind"
[ -e "/dev/cxl/$mem" ] && fail "/dev/cxl/$mem still there after unbind"
snapshot /tmp/before

raw_expect "rc=0 out_len=67 " 0x4000 0 # IDENTIFY: the path really reaches the mailbox

# Get Timestamp: the host's time, which 6.12's cxl_pci sets at probe; 6.1
# sets none, so the device answers 0.
raw_expect "rc=0 out_len=8 " 0x0300 0
ts=$($probe phys-read $((bar + 0x1000 + 0x20)) 8 | od -An -tu8 | tr -d ' ')
now=$(date +%s)
case $(uname -r) in
6.1.*) expect_eq "device time on 6.1" "$ts" 0 ;;
*) [ $((ts / 1000000000 - now)) -le 5 ] && [ $((now - ts / 1000000000)) -le 600 ] ||
	fail "device time $ts ns is not the host's $now s" ;;
esac
say "Get Timestamp: $ts ns since the epoch (guest clock $now s)"
for opcode in 0xbeef 0x0000 0xffff 0xc000; do
	for len in 0 64 4096; do
		raw_expect "rc=$unsupported out_len=0 changed=0" $opcode $len
	done
done

# The poison commands (CXL 3.0 8.2.9.8.4.1-3) on the probe's payload pattern,
# whose address is neither 64-byte aligned nor inside the device: Invalid
# Input (0x2) at their own input size, Invalid Payload Length (0x16) at any
# other; nothing recorded, nothing written.
refused_input 0x4300:16 0x4301:8 0x4302:72

# The event commands (CXL 3.0 8.2.9.2.2-5) on the same pattern (byte i is
# 0xa5 ^ i): Get Event Records of log 0xa5 and Clear Event Records of log
# 0xa5 with its 0xa7 handles are Invalid Input; Set Event Interrupt Policy
# with the reserved mode 3 in its third byte too; any other input size is
# Invalid Payload Length (Clear's is 6 + 2 x 0xa7 bytes). Nothing cleared,
# the policy and the Event Status register unchanged.
clear_len=$((6 + 2 * 0xa7))
refused_input 0x0100:1 0x0101:$clear_len 0x0103:4
for bad in 1 4 4096; do
	raw_expect "rc=0x16 out_len=0 changed=0" 0x0102 $bad
done
expect_eq "records cleared by the abuse" "$(attr "$dev" events_cleared)" 0
fw_raw_refused cxl_virt

# The security commands (CXL 3.0 8.2.9.8.6.2-6) on the same pattern: Set
# Passphrase, Disable Passphrase and Passphrase Secure Erase of passphrase
# type 0xa5 are Invalid Input; Unlock of a device that is not locked is
# Invalid Security State (0x13); any other input size, Freeze Security
# State's included, is Invalid Payload Length. Get Security State still
# reads no passphrase, not locked, not frozen.
refused_input 0x4501:96 0x4502:64 0x4505:64
raw_expect "rc=0x13 out_len=0 changed=0" 0x4503 32
for bad in 0 31 33 4096; do
	raw_expect "rc=0x16 out_len=0 changed=0" 0x4503 $bad
done
for bad in 1 4 4096; do
	raw_expect "rc=0x16 out_len=0 changed=0" 0x4504 $bad
done
raw_expect "rc=0 out_len=4 " 0x4500 0
sec=$($probe phys-read $((bar + 0x1000 + 0x20)) 4 | od -An -tu4 | tr -d ' ')
expect_eq "security state after the abuse" "$sec" 0

# Set Partition Info (CXL 3.0 8.2.9.8.2.2) on the same pattern: a volatile
# capacity far past the device, with reserved flags, is Invalid Input; any
# other size than its 10 bytes Invalid Payload Length. So are half the
# Partition Alignment that Identify reports (the device is partitionable:
# pmem=1, one endpoint) and one alignment past the capacity, Immediate or
# not; Get Partition Info still reads all persistent, nothing pending.
# On 6.1 (no RAM regions) the device is not partitionable: alignment 0,
# Set Partition Info Unsupported at any length, ram_size= refused (and
# qos_class=: no QoS classes before 6.9; auto_region=: no regions assembled
# at probe before 6.3).
raw_expect "rc=0 out_len=67 " 0x4000 0
id_u64() { $probe phys-read $((bar + 0x1000 + 0x20 + $1)) 8 | od -An -tu8 | tr -d ' '; }
total_units=$(id_u64 0x10) align_units=$(id_u64 0x28)
le64() { printf '%016x' "$1" | sed 's/../& /g' | awk '{for (i = NF; i; i--) printf "%s", $i}'; }
case $(uname -r) in
6.1.*)
	expect_eq "Identify: partition alignment on 6.1" "$align_units" 0
	for len in 0 10 4096; do
		raw_expect "rc=$unsupported out_len=0 changed=0" 0x4101 $len
	done
	expect_eq "ram_size= on 6.1" "$(ctl "$CXLV_DBG/create" "memstart=$start,memsize=$size,cxltype=3,pmem=1,ram_size=0")" EOPNOTSUPP
	has "needs RAM regions" "$CXLV_SYS/last_error" || fail "last_error: $(cat "$CXLV_SYS/last_error")"
	# 6.1 has no QoS classes either (6.9 on)
	expect_eq "qos_class= on 6.1" "$(ctl "$CXLV_DBG/create" "memstart=$start,memsize=$size,cxltype=3,pmem=1,qos_class=1")" EOPNOTSUPP
	has "needs QoS classes" "$CXLV_SYS/last_error" || fail "last_error: $(cat "$CXLV_SYS/last_error")"
	# nor auto regions (6.3 on)
	expect_eq "auto_region= on 6.1" "$(ctl "$CXLV_DBG/create" "memstart=$start,memsize=$size,cxltype=3,pmem=1,auto_region=1")" EOPNOTSUPP
	has "auto_region=1 needs a kernel that assembles committed regions" "$CXLV_SYS/last_error" || fail "last_error: $(cat "$CXLV_SYS/last_error")"
	;;
*)
	[ "$align_units" -ge 2 ] || fail "Identify: partition alignment $align_units units: not partitionable in halves"
	refused_input 0x4101:10
	for units in $((align_units / 2)) $((total_units + align_units)); do
		for flags in 00 01; do
			raw_expect "rc=0x2 out_len=0 changed=0" 0x4101 10 "$(le64 $units)${flags}00"
		done
	done
	;;
esac
raw_expect "rc=0 out_len=32 " 0x4100 0
partition_units() {
	local i
	for i in 0 8 16 24; do
		$probe phys-read $((bar + 0x1000 + 0x20 + i)) 8 | od -An -tu8 | tr -d ' '
	done | paste -sd' '
}
expect_eq "Get Partition Info after the refusals" "$(partition_units)" "0 $total_units 0 0"
# The health commands (CXL 3.0 8.2.9.8.3.1-5) on the same pattern: Set
# Alert Configuration with reserved Valid Alert Actions bits (0xa5) and Set
# Shutdown State with reserved state bits (0xa5) are Invalid Input; any
# other input size, the Get commands' included, is Invalid Payload Length.
# The alert configuration reads no alert enabled after the abuse.
refused_input 0x4202:12 0x4204:1
for opcode in 0x4200 0x4201 0x4203; do
	for bad in 1 12 4096; do
		raw_expect "rc=0x16 out_len=0 changed=0" $opcode $bad
	done
done
raw_expect "rc=0 out_len=16 " 0x4201 0
alerts=$($probe phys-read $((bar + 0x1000 + 0x20)) 1 | od -An -tu1 | tr -d ' ')
expect_eq "valid alerts after the abuse" "$alerts" 0

# Sanitize and Secure Erase (CXL 3.0 8.2.9.8.5.1-2) take no input: any is
# Invalid Payload Length, and nothing is erased.
for opcode in 0x4400 0x4401; do
	for bad in 1 64 4096; do
		raw_expect "rc=0x16 out_len=0 changed=0" $opcode $bad
	done
done

snapshot /tmp/after
cmp /tmp/before /tmp/after || fail "memory outside the mailbox registers changed"
say "unknown opcodes answered Unsupported, malformed poison and event commands refused; metadata window, LSA and device memory unchanged"
doe_abuse "$bdf"
snapshot /tmp/after
cmp /tmp/before /tmp/after || fail "memory outside the mailbox registers changed"
say "unknown opcodes answered Unsupported, DOE abused; metadata window, LSA and device memory unchanged"

# Set Partition Info that the device takes, after the snapshots (the
# layout is non-volatile, in the metadata window): without Immediate the
# alignment's worth of volatile capacity is the next layout only; with
# Immediate, no decoder being committed, it is active at once; 0 with
# Immediate puts back all persistent, nothing pending, for the rebind below.
if [ "$align_units" != 0 ]; then
	raw_expect "rc=0 out_len=0 " 0x4101 10 "$(le64 $align_units)0000"
	raw_expect "rc=0 out_len=32 " 0x4100 0
	expect_eq "Get Partition Info: next layout" "$(partition_units)" \
		"0 $total_units $align_units $((total_units - align_units))"
	raw_expect "rc=0 out_len=0 " 0x4101 10 "$(le64 $align_units)0100"
	raw_expect "rc=0 out_len=32 " 0x4100 0
	expect_eq "Get Partition Info: immediate layout" "$(partition_units)" \
		"$align_units $((total_units - align_units)) 0 0"
	raw_expect "rc=0 out_len=0 " 0x4101 10 "$(le64 0)0100"
	raw_expect "rc=0 out_len=32 " 0x4100 0
	expect_eq "Get Partition Info: all persistent again" "$(partition_units)" "0 $total_units 0 0"
fi
fw_raw_activate cxl_virt cxlv-raw-fw-0002

# Stores into the read-only capability layout (CXL 3.0 8.2.8.1 capability
# count, 8.2.8.2 the second capability's offset) are undone by the device,
# so the next probe's register locator does not run past the mapped BAR.
word() { $probe phys-read "$1" 4 | od -An -tu4 | tr -d ' '; }
count=$(word $((bar + 4))) offset=$(word $((bar + 0x24)))
step "store capability count 0xffff" $probe phys-write32 $((bar + 4)) 0xffff
step "store mailbox offset 0xfffff000" $probe phys-write32 $((bar + 0x24)) 0xfffff000
for ((i = 0; i < 50; i++)); do
	[ "$(word $((bar + 4)))" = "$count" ] && [ "$(word $((bar + 0x24)))" = "$offset" ] && break
	sleep 0.1
done
expect_eq "capability count word after a store" "$(word $((bar + 4)))" "$count"
expect_eq "mailbox offset after a store" "$(word $((bar + 0x24)))" "$offset"
dmesg | has "read-only capability registers were overwritten; restored" || fail "no restore message"
say "stores into the read-only capability layout undone within $((i * 100)) ms"

# Sanitize on the bare registers, last as it erases what the snapshots
# compare: Background Command Started (0x1); while it runs another Sanitize
# is Busy (0x6), Get Poison List Media Disabled (0x7), Identify answers.
# The Background Command Status register (mailbox + 0x18, CXL 3.0
# 8.2.8.4.7) then reaches 100% with opcode 0x4400 and Success; the labels
# and the device memory read zero.
bg_status() { $probe phys-read $((bar + 0x1000 + 0x18)) 8 | od -An -tu8 | tr -d ' '; }
bg_done() {
	local s
	s=$(bg_status)
	(((s >> 16 & 0x7f) == 100))
}
raw_expect "rc=0x1 out_len=0 " 0x4400 0
raw_expect "rc=0x6 out_len=0 " 0x4400 0
raw_expect "rc=0x7 out_len=0 " 0x4300 16
raw_expect "rc=0 out_len=67 " 0x4000 0
step "Sanitize at 100%" wait_for 300 bg_done
status=$(bg_status)
expect_eq "background opcode" "$(printf '%#x' $((status & 0xffff)))" 0x4400
expect_eq "background return code" $((status >> 32 & 0xffff)) 0
step "device memory zero" sh -c "$probe phys-read $window $((1 << 20)) | cmp -n $((1 << 20)) - /dev/zero"

step "bind cxl_pci to $bdf" sh -c "echo $bdf >/sys/bus/pci/drivers/cxl_pci/bind"
wait_ready "$dev"
mem=$(attr "$dev" memdev)
json=$(cxl list -m "$mem" -H)
echo "$json"
echo "$json" | has '"media_normal":true' || fail "no health info after rebind: $json"
cxl read-labels "$mem" -o /tmp/back || fail "cxl read-labels after rebind"
cmp -n "$lsa_size" /tmp/back /dev/zero || fail "labels not zero after Sanitize"
say "after rebind: $mem answers GET_HEALTH_INFO and GET_LSA; labels zero"
wait_for 30 test -e "$(endpoint_cdat "$mem")" || fail "no CDAT after rebind"
cmp /tmp/cdat.before "$(endpoint_cdat "$mem")" || fail "the kernel read another CDAT after the abuse"
expect_eq "$mem firmware_version after the online activation" "$(cat "/sys/bus/cxl/devices/$mem/firmware_version")" cxlv-raw-fw-0002
fw_stock_update $start $size cxl_virt cxlv-raw-fw-0002
mem=$(attr "$dev" memdev)
bdf=$(cxl list -m "$mem" | jq -r 'if type == "array" then .[0] else . end | .host')
# a device created anew: the kernel's own DOE requests first
wait_for 30 test -e "$(endpoint_cdat "$mem")" || fail "no CDAT after the firmware's reset"

# The DOE mailbox driven from user space while the device goes away: the
# remove wins, the requests stop with the config file, the kernel says
# nothing.
doe_hammer "$bdf" "$(doe_cap "$bdf")" /tmp/doe.rounds &
hammer=$!
# the remove once a round has run: a guest busy after a create can take
# longer than a second for one
wait_for 30 sh -c '[ "$(cat /tmp/doe.rounds 2>/dev/null)" -gt 0 ] 2>/dev/null' || fail "no DOE request ran in 30 s"
remove "$dev"
wait_for 30 sh -c "! kill -0 $hammer 2>/dev/null" || fail "DOE requests still running after remove"
wait $hammer || true
[ ! -e "/sys/bus/pci/devices/$bdf" ] || fail "$bdf still there after remove"
say "remove with $(cat /tmp/doe.rounds) DOE requests racing it: device gone"
no_kernel_complaints
rmmod cxl_virt
say PASS
