#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000 --append iomem=relaxed
# boot: basic
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
expect_eq window_start "$(attr "$dev" window_start)" "$(printf '%#x' $((start + (256 << 20))))"
serial=$(attr "$dev" serial)
expect_eq serial "$serial" $(((0x43584c56 << 32) | (start >> 20)))
expect_eq state "$(attr "$dev" state)" ready
mem=$(attr "$dev" memdev)
root=$(attr "$dev" root)
[[ $root =~ ^root[0-9]+$ ]] || fail "root attribute '$root'"
grep -q "$(printf '%x' $start)" /proc/iomem || fail "range not in /proc/iomem"
grep -A8 "$(printf '%x' $start)-" /proc/iomem
for a in memstart memsize pmem serial capacity window_start label_offset label_size \
	pci_domain memdev root decoder state mbox_cmds commits; do
	v=$(attr "$dev" "$a")
	say "$dev/$a = $v"
	[[ $v == *ffff8* ]] && fail "kernel address in $a"
done

cxl list -M -u
json=$(cxl list -M -m "$mem")
echo "$json" | has "\"pmem_size\":$want_cap" || fail "pmem_size != $want_cap: $json"
echo "$json" | has "\"serial\":$serial" || fail "serial != $serial: $json"

cxl list -B -D -E -P -u
bus=$(cxl list -B)
echo "$bus" | has "\"provider\":\"$dev\"" || fail "bus provider is not $dev: $bus"
dec=$(cxl list -D -d root)
echo "$dec" | has '"pmem_capable":true' || fail "root decoder not pmem capable: $dec"
cxl list -E | has endpoint || fail "no endpoint"
cxl list -P | has '"port":"port' || fail "no host-bridge port"
ndctl list -D | has nmem || fail "ndctl list -D shows no nmem"

# mailbox round trip: through the ioctl alone, and through the whole tool
say "GET_LSA 256 B x200: $(/cxlv/test/tools/bin/cxl-mbox-probe get-lsa "/dev/cxl/$mem" 0 256 200)"
t0=$(now_us)
for i in $(seq 20); do cxl list -m "$mem" -H >/dev/null; done
t1=$(now_us)
say "cxl list -H (health via mailbox): $(((t1 - t0) / 20)) us per call"
cxl list -m "$mem" -H | has health || fail "no health info"
t0=$(now_us)
cxl read-labels "$mem" -s 4096 -o /tmp/labels
t1=$(now_us)
say "read-labels 4 KiB: $(((t1 - t0))) us, mbox_cmds=$(attr "$dev" mbox_cmds)"

no_kernel_complaints
remove "$dev"
[ "$(device_count)" = 0 ] || fail "device still listed after remove"
grep -q "cxlv\|cxl_virt" /proc/iomem && fail "iomem still holds cxlv resources"
reserved_covers $start || fail "Reserved entry lost: $(cat /proc/iomem)"
expect_eq "memdevs after remove" "$(cxl_count -M)" 0

# volatile, through the bus attribute, with an explicit serial
expect_eq "sysfs create" "$(ctl "$CXLV_SYS/create" "serial=0x1234
cxltype=3
pmem=0
memsize=$size
memstart=$start
")" OK
dev=cxlv0
wait_ready "$dev"
mem=$(attr "$dev" memdev)
json=$(cxl_one -M -m "$mem")
echo "$json"
jq -e ".ram_size == $want_cap and .serial == $((0x1234)) and (.pmem_size // 0) == 0" <<<"$json" >/dev/null ||
	fail "volatile memdev: $json"
jq -e '.volatile_capable == true' <<<"$(cxl_one -D -d root)" >/dev/null ||
	fail "root decoder not volatile capable: $(cxl list -D -d root)"
expect_eq "last_error after success" "$(cat $CXLV_SYS/last_error)" ""
expect_eq "sysfs remove" "$(ctl "$CXLV_SYS/remove" "cxlv_dev_id=0")" OK
rmmod cxl_virt
say PASS
