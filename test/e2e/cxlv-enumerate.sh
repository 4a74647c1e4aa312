#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000
# A cxl_virt device on a reserved range is enumerated by the stock 6.1 CXL
# stack: memdev with the right capacity and serial, bus/root decoder/port/
# endpoint, the nvdimm, sane sysfs attributes, and a clean remove.
. /cxlv/test/vm/guest/cxlv.sh

start=$((0x100000000)) size=$((1 << 30))
# window: first 256 MiB boundary after 1 MiB PCI window + 128 KiB LSA
want_cap=$((size - (256 << 20)))
load_stack

t0=$(now_us)
dev=$(create "memstart=$start,memsize=$size,cxltype=3,pmem=1")
wait_ready "$dev"
t1=$(now_us)
say "create -> memdev bound: $(((t1 - t0) / 1000)) ms"

expect_eq memstart "$(attr "$dev" memstart)" "$(printf '%#x' $start)"
expect_eq memsize "$(attr "$dev" memsize)" $size
expect_eq pmem "$(attr "$dev" pmem)" 1
expect_eq capacity "$(attr "$dev" capacity)" $want_cap
expect_eq window_size "$(attr "$dev" window_size)" $want_cap
expect_eq window_start "$(attr "$dev" window_start)" "$(printf '%#x' $((start + (256 << 20))))"
serial=$(attr "$dev" serial)
expect_eq serial "$serial" $(((0x43584c56 << 32) | (start >> 20)))
expect_eq state "$(attr "$dev" state)" ready
mem=$(attr "$dev" memdev)
root=$(attr "$dev" root)
[[ $root =~ ^root[0-9]+$ ]] || fail "root attribute '$root'"
grep -q "$(printf '%x' $start)" /proc/iomem || fail "range not in /proc/iomem"
grep -A8 "$(printf '%x' $start)-" /proc/iomem
for a in memstart memsize pmem serial capacity window_start window_size \
	pci_domain memdev root decoder state mbox_cmds commits; do
	v=$(attr "$dev" "$a")
	say "$dev/$a = $v"
	[[ $v == *ffff8* ]] && fail "kernel address in $a"
done

cxl list -M -u
json=$(cxl list -M -m "$mem")
echo "$json" | grep -q "\"pmem_size\":$want_cap" || fail "pmem_size != $want_cap: $json"
echo "$json" | grep -q "\"serial\":$serial" || fail "serial != $serial: $json"

cxl list -B -D -E -P -u
bus=$(cxl list -B)
echo "$bus" | grep -q "\"provider\":\"$dev\"" || fail "bus provider is not $dev: $bus"
dec=$(cxl list -D -d root)
echo "$dec" | grep -q '"pmem_capable":true' || fail "root decoder not pmem capable: $dec"
cxl list -E | grep -q endpoint || fail "no endpoint"
cxl list -P | grep -q '"port":"port' || fail "no host-bridge port"
ndctl list -D | grep -q nmem || fail "ndctl list -D shows no nmem"

# mailbox round trip through the ioctl path
t0=$(now_us)
for i in $(seq 20); do cxl list -m "$mem" -H >/dev/null; done
t1=$(now_us)
say "cxl list -H (health via mailbox): $(((t1 - t0) / 20)) us per call"
cxl list -m "$mem" -H | grep -q health || fail "no health info"
t0=$(now_us)
cxl read-labels "$mem" -s 4096 -o /tmp/labels
t1=$(now_us)
say "read-labels 4 KiB: $(((t1 - t0))) us, mbox_cmds=$(attr "$dev" mbox_cmds)"

no_kernel_complaints
remove "$dev"
[ "$(device_count)" = 0 ] || fail "device still listed after remove"
grep -q "cxlv\|cxl_virt" /proc/iomem && fail "iomem still holds cxlv resources"
[ -z "$(cxl list -M)" ] || [ "$(cxl list -M)" = "[]" ] || fail "memdev left after remove: $(cxl list -M)"
rmmod cxl_virt
say PASS
