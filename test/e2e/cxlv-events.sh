#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000 --append iomem=relaxed
# boot: basic
# kernels: 6.12 7.3
# Event logs raised by an MSI (issue 20). The endpoint has an MSI
# capability, so 6.12's and 7.3's cxl_pci allocate a vector, set the event
# interrupt policy to MSI and request the event interrupt (no "No interrupt
# support" line). Records injected through debugfs inject_event, General
# Media, DRAM and Memory Module, each raise the MSI (its count in
# /proc/interrupts goes up by one), the kernel's interrupt thread reads them
# (cxl_general_media, cxl_dram, cxl_memory_module in a tracefs instance of
# this test, carrying the injected DPA, descriptor, type, transaction and
# the log's severity) and clears them: the device's events_pending goes back
# to 0, events_cleared counts them, and the device answered exactly three
# mailbox commands (Get Event Records, Clear Event Records, and the second
# Get, which found the log empty and ended the kernel's loop). More records
# than the log's 8 in one request: the kernel gets the 8 and a cxl_overflow
# event counting the rest. cxlvctl event inject does the same for each type
# (--dry-run prints the write and writes nothing). Malformed requests are
# refused with their errno and last_error's reason, and by cxlvctl before
# any write. The irq's affinity moved to the other CPU between records: the
# MSI is counted on that CPU and the records read. The event_msi switch off:
# a record raises nothing and waits, on again the next MSI reads both. With
# cxl_pci unbound (MSI disabled) a record raises nothing and
# waits in the log until the rebound driver's probe reads it. cxl list -H
# shows a healthy device (25 C, 0% life used, no alarms).
# Health that changes (issue 33): cxl set-alert-config enables a life used
# warning threshold that cxl list -A shows; one past the critical threshold
# is refused by the device (Invalid Input through the ioctl too) with the
# configuration unchanged; life used raised past the warning through
# debugfs set_health gives a Memory Module record (Life Used Change,
# Warning) that the kernel traces as cxl_memory_module, and cxl list -H
# shows the new life used and the warning. Get Shutdown State reads what
# the kernel armed (7.3's cxl_pmem sets it dirty at probe, 6.12's does not);
# a remove while the state is dirty counts a dirty shutdown at the next
# create on the range (7.3's nvdimm dirty_shutdown too: the device has a
# GPF DVSEC), one after the host set it clean does not, and life used
# outlives both.
. /cxlv/test/vm/guest/cxlv.sh
# shellcheck source=test/vm/guest/cxlvctl.sh
. /cxlv/test/vm/guest/cxlvctl.sh

trace=/sys/kernel/tracing
inst=$trace/instances/cxlv-events
inject=$CXLV_DBG/inject_event

load_stack --pmem
dev=$(create "memstart=$((0x100000000)),memsize=$((1 << 30)),cxltype=3,pmem=1")
wait_ready "$dev"
id=${dev#cxlv}
mem=$(attr "$dev" memdev)
capacity=$(attr "$dev" capacity)
bdf=$(basename "$(dirname "$(readlink -f "/sys/bus/cxl/devices/$mem")")")
[ -e "/sys/bus/pci/devices/$bdf" ] || fail "$mem: no PCI endpoint ($bdf)"
say "$dev: $mem on $bdf, capacity $capacity"

dmesg | grep "$bdf" | has "No interrupt support" && fail "cxl_pci found no interrupt on $bdf"
irqs=$(ls "/sys/bus/pci/devices/$bdf/msi_irqs" 2>/dev/null)
expect_eq "MSI vectors of $bdf" "$(echo "$irqs" | grep -c .)" 1
irq=$irqs
grep -E "^ *$irq:" /proc/interrupts

# msi_count: how often the endpoint's MSI was taken, over all CPUs.
msi_count() {
	awk -v irq="$irq:" '$1 == irq { n = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i; print n }' /proc/interrupts
}

[ -e $trace/events ] || mount -t tracefs nodev $trace
mkdir -p $inst
for e in cxl_general_media cxl_dram cxl_memory_module cxl_overflow; do
	sysw 1 "$inst/events/cxl/$e/enable"
done

# events: the instance's records since the last call, then none.
events() {
	grep -E "cxl_(general_media|dram|memory_module|overflow):" $inst/trace || true
	sysw "" $inst/trace
}

# cleared_to N: events_cleared reaches N and nothing is left in the logs.
cleared_to() {
	[ "$(attr "$dev" events_cleared)" = "$1" ] && [ "$(attr "$dev" events_pending)" = 0 ]
}

# raw REQUEST: one write of the control file, which must take it.
raw() { expect_eq "inject_event $1" "$(ctl $inject "cxlv_dev_id=$id,$1")" OK; }

# read_and_cleared WHAT CMDS: the kernel's reading took Get, Clear and an
# empty Get after the mailbox counter stood at CMDS, and nothing more.
cmds_reach() { [ "$(attr "$dev" mbox_cmds)" -ge "$1" ]; }
read_and_cleared() {
	wait_for 10 cmds_reach $(($2 + 3)) || fail "$1: no second Get Event Records"
	sleep 0.5
	expect_eq "$1: mailbox commands of the kernel's reading" $(($(attr "$dev" mbox_cmds) - $2)) 3
}

# inject_one WHAT PATTERN CMD...: CMD injects one record, which must raise
# the MSI once, be traced matching PATTERN and be cleared by the kernel.
inject_one() {
	local what=$1 pattern=$2 before cleared cmds out
	shift 2
	before=$(msi_count)
	cleared=$(attr "$dev" events_cleared)
	cmds=$(attr "$dev" mbox_cmds)
	"$@"
	wait_for 10 cleared_to $((cleared + 1)) || fail "$what: not read and cleared (pending $(attr "$dev" events_pending))"
	read_and_cleared "$what" "$cmds"
	expect_eq "$what: MSIs taken" "$(msi_count)" $((before + 1))
	out=$(events)
	echo "$out"
	expect_eq "$what: trace records" "$(echo "$out" | grep -c .)" 1
	echo "$out" | has -E "$pattern" || fail "$what: trace record does not carry the injected fields ($pattern)"
}

events >/dev/null
inject_one "General Media" \
	"cxl_general_media: memdev=$mem .*log=Warning .*flags='[^']*'.*dpa=2000 .*descriptor='UNCORRECTABLE_EVENT' type='Invalid Address' .*transaction_type='Host Write'" \
	raw "record=0,log=1,dpa=0x2000,descriptor=1,event_type=1,transaction=2"
inject_one "DRAM" \
	"cxl_dram: memdev=$mem .*log=Failure .*dpa=40 .*descriptor='THRESHOLD_EVENT' type='Data Path Error' .*transaction_type='Internal Media Scrub'" \
	raw "record=1,log=2,dpa=0x40,descriptor=2,event_type=3,transaction=5"
inject_one "Memory Module" \
	"cxl_memory_module: memdev=$mem .*log=Fatal .*event_type='Temperature Change' .*life_used=0 device_temp=25 " \
	raw "record=2,log=3,event_type=3"
inject_one "General Media, informational, at the last line" \
	"cxl_general_media: .*log=Informational .*dpa=$(printf '%x' $((capacity - 64))) " \
	raw "record=0,dpa=$((capacity - 64))"

# --- the same through cxlvctl
out=$(cxlvctl --dry-run event inject "$dev" --type dram --log warn --dpa 4K)
expect_eq "dry-run event inject" "$out" "echo cxlv_dev_id=$id,pos=0,record=1,log=1,dpa=0x1000 > $inject"
expect_eq "events_injected after --dry-run" "$(attr "$dev" events_injected)" 4
inject_one "cxlvctl general-media" "cxl_general_media: memdev=$mem .*log=Warning .*dpa=3000 " \
	cxlvctl event inject "$dev" --type general-media --log warn --dpa 0x3000
inject_one "cxlvctl dram" "cxl_dram: memdev=$mem .*log=Informational .*dpa=100000 " \
	cxlvctl event inject "$mem" --type dram --dpa 1M
inject_one "cxlvctl memory-module" "cxl_memory_module: memdev=$mem .*log=Fatal .*device_temp=25 " \
	cxlvctl event inject "$dev" --type memory-module --log fatal
expect_fail 2 "--dpa 0x1001 is not 64-byte aligned" event inject "$dev" --type dram --dpa 0x1001
expect_fail 2 "is outside $mem" event inject "$dev" --type dram --dpa "$capacity"
expect_fail 2 "a memory-module event has no address" event inject "$dev" --type memory-module --dpa 0
expect_fail 2 '--type "cpu"' event inject "$dev" --type cpu
expect_fail 2 '--log "loud"' event inject "$dev" --type dram --log loud
expect_eq "events_injected after cxlvctl" "$(attr "$dev" events_injected)" 7

# --- the irq's affinity moved to the other CPU between records: the MSI is
# handled on the CPU it now names (its count there), the kernel reads them.
[ "$(nproc)" -ge 2 ] || fail "the affinity check needs 2 CPUs, the guest has $(nproc)"
aff=/proc/irq/$irq
# cpu_count CPU: the MSI's count on CPU
cpu_count() { awk -v irq="$irq:" -v c=$(($1 + 2)) '$1 == irq {print $c}' /proc/interrupts; }
# x86 moves an MSI's vector in the next interrupt's acknowledgement (the
# move stays pending until then) or at once, per kernel: the first MSI after
# the write is handled on the CPU the effective affinity names then, and
# leaves it on the new CPU, where the next one is handled.
for round in 1 2; do
	from=$(cat $aff/effective_affinity_list)
	to=$(((from + 1) % $(nproc)))
	sysw "$(printf '%x' $((1 << to)))" $aff/smp_affinity
	for hop in 1 2; do
		on=$(cat $aff/effective_affinity_list)
		taken=$(cpu_count "$on")
		inject_one "General Media, move $round, MSI $hop" \
			"cxl_general_media: memdev=$mem .*log=Warning .*dpa=$((5000 + round))${hop}00 " \
			raw "record=0,log=1,dpa=0x$((5000 + round))${hop}00"
		expect_eq "move $round, MSI $hop: MSIs taken on CPU $on" "$(cpu_count "$on")" $((taken + 1))
		expect_eq "move $round, MSI $hop: effective affinity after" "$(cat $aff/effective_affinity_list)" $to
		say "move $round, CPU $from -> $to: MSI $hop handled on CPU $on"
	done
done

# --- event_msi=N: a record raises nothing and waits in its log; Y again,
# the next one raises the MSI and the kernel reads both.
msi_sw=/sys/module/cxl_virt/parameters/event_msi
expect_eq "event_msi by default" "$(cat $msi_sw)" Y
sysw N $msi_sw
before=$(msi_count)
cleared=$(attr "$dev" events_cleared)
raw "record=0,log=1,dpa=0x6000"
sleep 1
expect_eq "records waiting with event_msi=N" "$(attr "$dev" events_pending)" 1
expect_eq "MSIs with event_msi=N" "$(msi_count)" "$before"
sysw Y $msi_sw
raw "record=0,log=1,dpa=0x7000"
wait_for 10 cleared_to $((cleared + 2)) || fail "event_msi=Y: the waiting and the new record not read"
expect_eq "MSIs after event_msi=Y" "$(msi_count)" $((before + 1))
out=$(events)
echo "$out"
expect_eq "records traced after event_msi=Y" "$(echo "$out" | grep -c "cxl_general_media: memdev=$mem .*dpa=[67]000 ")" 2

# --- overflow: 12 records at once into a log of 8
cleared=$(attr "$dev" events_cleared)
injected=$(attr "$dev" events_injected)
cmds=$(attr "$dev" mbox_cmds)
expect_eq "inject 12 at once" "$(ctl $inject "cxlv_dev_id=$id,record=0,dpa=0x1000,count=12")" OK
wait_for 10 cleared_to $((cleared + 8)) || fail "overflowed log not read and cleared"
read_and_cleared "overflow" "$cmds"
expect_eq "events_injected after 12" "$(attr "$dev" events_injected)" $((injected + 12))
out=$(events)
echo "$out" | grep cxl_overflow
expect_eq "records the kernel got of 12" "$(echo "$out" | grep -c cxl_general_media:)" 8
echo "$out" | has "cxl_overflow: memdev=$mem .*log=Informational : 4 records from" ||
	fail "no cxl_overflow event counting the 4 lost records"

# --- refusals, each with its reason; nothing reaches the logs
injected=$(attr "$dev" events_injected)
refuse() {
	local r
	r=$(ctl $inject "$2")
	expect_eq "refuse $2" "$r" "$1"
	has -i "$3" $CXLV_SYS/last_error || fail "refuse $2: last_error '$(cat $CXLV_SYS/last_error)' does not say '$3'"
}
refuse ERANGE "cxlv_dev_id=$id,record=3" "record=3 is too large"
refuse ENODATA "cxlv_dev_id=$id" "missing option 'record='"
refuse EINVAL "cxlv_dev_id=$id,record=0,dpa=0x1001" "not 64-byte aligned"
refuse ERANGE "cxlv_dev_id=$id,record=1,dpa=$capacity" "past the capacity"
refuse EINVAL "cxlv_dev_id=$id,record=2,dpa=0" "has no dpa"
refuse EINVAL "cxlv_dev_id=$id,record=0,event_type=3" "takes 0 to 2"
refuse ERANGE "cxlv_dev_id=$id,record=0,log=4" "log=4 is too large"
refuse EINVAL "cxlv_dev_id=$id,record=0,count=0" "count=0"
refuse ERANGE "cxlv_dev_id=$id,record=0,count=33" "count=33 is too large"
refuse ENODEV "cxlv_dev_id=$((id + 1)),record=0" "no device"
refuse ENODEV "cxlv_dev_id=$id,record=0,pos=1" "has endpoints 0 to 0"
refuse EINVAL "cxlv_dev_id=$id,record=0,color=1" "unknown option 'color'"
expect_eq "events_injected after the refusals" "$(attr "$dev" events_injected)" "$injected"

# --- MSI Enable honoured: with cxl_pci unbound its vector is freed and MSI
# disabled, so a record raises nothing and waits in the log; the probe of a
# rebound cxl_pci reads every log (cxl_event_config()) and clears it.
taken=$(msi_count)
step "unbind cxl_pci from $bdf" sh -c "echo $bdf >/sys/bus/pci/drivers/cxl_pci/unbind"
[ -e "/sys/bus/pci/devices/$bdf/msi_irqs" ] && fail "MSI still enabled on $bdf after unbind"
cleared=$(attr "$dev" events_cleared)
raw "record=1,log=2,dpa=0x4000,event_type=1"
sleep 1
expect_eq "records waiting without a driver" "$(attr "$dev" events_pending)" 1
expect_eq "records cleared without a driver" "$(attr "$dev" events_cleared)" "$cleared"
events >/dev/null
step "bind cxl_pci to $bdf" sh -c "echo $bdf >/sys/bus/pci/drivers/cxl_pci/bind"
wait_ready "$dev"
mem=$(attr "$dev" memdev)
wait_for 10 cleared_to $((cleared + 1)) || fail "the rebound cxl_pci did not read the waiting record"
out=$(events)
echo "$out"
echo "$out" | has -E "cxl_dram: memdev=$mem .*log=Failure .*dpa=4000 .*type='Scrub Media ECC Error'" ||
	fail "the record that waited is not traced after the rebind"

# --- health info: sane per CXL r3.0 8.2.9.8.3.1
json=$(cxl list -m "$mem" -H)
echo "$json"
health=$(jq -c '[.. | objects | .health? // empty][0]' <<<"$json")
expect_eq "temperature" "$(jq .temperature <<<"$health")" 25
expect_eq "life used" "$(jq .life_used_percent <<<"$health")" 0
expect_eq "media normal" "$(jq .media_normal <<<"$health")" true
expect_eq "conditions set besides media_normal" \
	"$(jq '[to_entries[] | select(.value == true and .key != "media_normal")] | length' <<<"$health")" 0
expect_eq "extended status not normal" \
	"$(jq '[to_entries[] | select((.key | startswith("ext_")) and .value != "normal")] | length' <<<"$health")" 0

# --- health that changes: alert threshold, health event, shutdown state
probe=/cxlv/test/tools/bin/cxl-mbox-probe
[ -x $probe ] || fail "no $probe: test/tools/build.sh builds it"
range="memstart=$((0x100000000)),memsize=$((1 << 30)),cxltype=3,pmem=1"
health_of() { cxl list -m "$1" -H | jq -c '[.. | objects | .health? // empty][0]'; }
alerts_of() { cxl list -m "$1" -A | jq -c '[.. | objects | .alert_config? // empty][0]'; }
set_health() { expect_eq "set_health $1" "$(ctl $CXLV_DBG/set_health "cxlv_dev_id=$id,$1")" OK; }
# send ID OUTSIZE HEX: one command through the memdev's ioctl
send() { $probe mem-send "/dev/cxl/$mem" "$@"; }

step "life used warning at 70%" cxl set-alert-config "$mem" --life-used-threshold=70 --life-used-alert=on
alerts=$(alerts_of "$mem")
echo "$alerts"
expect_eq "life used warning enabled" "$(jq .life_used_prog_warn_threshold_valid <<<"$alerts")" true
expect_eq "life used warning threshold" "$(jq .life_used_prog_warn_threshold <<<"$alerts")" 70
crit=$(jq .life_used_crit_alert_threshold <<<"$alerts")
((crit > 70 && crit < 100)) || fail "life used critical threshold $crit"
cxl set-alert-config "$mem" --life-used-threshold=$((crit + 1)) --life-used-alert=on &&
	fail "a life used warning at $((crit + 1))%, past the critical $crit%, accepted"
# Set Alert Configuration (id 12): valid and enable life used, threshold
# past the critical one; then a reserved Valid Alert Actions bit
expect_eq "Set Alert Configuration past critical" "$(send 12 0 0101$(printf %02x $((crit + 1)))00$(printf '0%.0s' {1..16}))" "ioctl=0 retval=2 out=0 data="
expect_eq "Set Alert Configuration reserved bit" "$(send 12 0 21214600$(printf '0%.0s' {1..16}))" "ioctl=0 retval=2 out=0 data="
expect_eq "alert configuration after the refusals" "$(alerts_of "$mem")" "$alerts"

inject_one "life used past the warning" \
	"cxl_memory_module: memdev=$mem .*log=Warning .*event_type='Life Used Change' .*as_life_used=Warning .*life_used=80 device_temp=25 " \
	set_health "life_used=80"
health=$(health_of "$mem")
echo "$health"
expect_eq "life used after set_health" "$(jq .life_used_percent <<<"$health")" 80
expect_eq "life used status" "$(jq -r .ext_life_used <<<"$health")" warning
dirty=$(jq .dirty_shutdowns <<<"$health")

# shutdown_state: Get Shutdown State (id 13) through the ioctl
shutdown_state() { send 13 1 "" | sed -n 's/^ioctl=0 retval=0 out=1 data=//p'; }
case $(uname -r) in
6.12.*) expect_eq "shutdown state 6.12 leaves" "$(shutdown_state)" 00 ;;
*) expect_eq "shutdown state cxl_pmem armed" "$(shutdown_state)" 01 ;;
esac
# power_cycle STATE: Set Shutdown State (id 14) to STATE, then remove and
# create the device again. The command is cxl_pmem's while the memdev's
# nvdimm is bound (cxl_nvdimm has no unbind file): unbinding cxl_mem takes
# the nvdimm away.
power_cycle() {
	local nvd
	nvd=$(cd "/sys/bus/cxl/devices/$mem" && ls -d pmem[0-9]* | head -1)
	wait_for 30 test -e "/sys/bus/cxl/drivers/cxl_nvdimm/$nvd" || fail "$nvd not bound to cxl_nvdimm"
	step "unbind cxl_mem from $mem" sh -c "echo $mem >/sys/bus/cxl/drivers/cxl_mem/unbind"
	wait_for 10 sh -c "! test -e /sys/bus/cxl/devices/$nvd" || fail "$nvd still there without cxl_mem"
	expect_eq "Set Shutdown State $1" "$(send 14 0 "$1")" "ioctl=0 retval=0 out=0 data="
	expect_eq "shutdown state set" "$(shutdown_state)" "$1"
	remove "$dev"
	dev=$(create "$range")
	wait_ready "$dev"
	id=${dev#cxlv}
	mem=$(attr "$dev" memdev)
}
power_cycle 01
health=$(health_of "$mem")
echo "$health"
expect_eq "dirty shutdowns after a remove while dirty" "$(jq .dirty_shutdowns <<<"$health")" $((dirty + 1))
expect_eq "life used after remove and create" "$(jq .life_used_percent <<<"$health")" 80
case $(uname -r) in
6.12.*) ;;
*)	# 7.x's cxl_pmem reads the count at probe: the device has a GPF DVSEC
	wait_for 30 nmem_of "$dev" >/dev/null || fail "no nvdimm for $dev"
	expect_eq "nvdimm dirty_shutdown" "$(cat "/sys/bus/nd/devices/$(nmem_of "$dev")/cxl/dirty_shutdown")" $((dirty + 1)) ;;
esac
power_cycle 00
expect_eq "dirty shutdowns after a clean shutdown" "$(jq .dirty_shutdowns <<<"$(health_of "$mem")")" $((dirty + 1))

no_kernel_complaints
remove "$dev"
say "events OK: MSI $irq taken $taken times"
