#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000 --memmap 512M$0x4000000000
# cxl_virt owns every byte it hands out (issue 14). A test module claims
# memory with request_mem_region() as another driver would: inside a free
# range, create is refused and nothing is adopted; on a live device every
# part of the PCI window but the registers cxl_pci maps (BAR0's other bytes,
# the host-bridge registers, the label storage area), the unused parts and
# the idle CXL window refuse such a claim; so do the register capabilities
# while root has cxl_pci unbound, and BAR0 after root removed the endpoint
# and a rescan brought it back (its labels intact, no resource freed that
# iomem no longer held). A claim made in the window while a
# region was there outlives the region: then remove and rmmod are refused,
# with the reason in dmesg, the device and its labels stay; once the claim
# is gone rmmod works. A memmap= range where firmware has no RAM is refused.
# Addresses are root-only, the control files need CAP_SYS_RAWIO, and once
# the kernel is locked down create is refused on both paths.
. /cxlv/test/vm/guest/cxlv.sh

CLAIM_KO=/cxlv/test/claim/build/$KVER/cxlv_test_claim.ko
DROPCAP=/cxlv/test/tools/bin/dropcap
CAP_SYS_RAWIO=17
G=$((1 << 30)) M=$((1 << 20))
base=0x100000000
spec="memstart=$base,memsize=$G,cxltype=3,pmem=1"

# claim ADDR [SIZE]: loads the test module over [ADDR, ADDR + SIZE (1 MiB)).
claim() { insmod "$CLAIM_KO" start="$1" ${2:+size=$2}; }
# refused ADDR SIZE WHAT: the claim fails and /proc/iomem stays as it was.
refused() {
	local io0
	io0=$(cat /proc/iomem)
	step "claim $3 at $(printf %#x "$1")+$(printf %#x "$2") refused" sh -c "! insmod $CLAIM_KO start=$1 size=$2"
	[ "$(cat /proc/iomem)" = "$io0" ] || fail "refused claim at $1 changed /proc/iomem"
}
unclaim() { rmmod cxlv_test_claim; }
claim_line() { grep -c ': cxlv_test_claim$' /proc/iomem; }

# expect_refused WANT FILE TEXT: the write fails with WANT, last_error says
# why, and /proc/iomem and the device count are as before.
expect_refused() {
	local io0 n0
	io0=$(cat /proc/iomem) n0=$(device_count)
	expect_eq "'$3' on $2" "$(ctl "$2" "$3")" "$1"
	say "$1: $(cat $CXLV_SYS/last_error)"
	[ -n "$(cat $CXLV_SYS/last_error)" ] || fail "empty last_error"
	[ "$(cat /proc/iomem)" = "$io0" ] || fail "'$3' changed /proc/iomem"
	expect_eq "devices" "$(device_count)" "$n0"
}

load_stack

# --- a claim inside a free range: create refused, nothing adopted ---
step "foreign claim at $base + 300 MiB" claim $((base + 300 * M))
for f in "$CXLV_DBG/create" "$CXLV_SYS/create"; do
	expect_refused EBUSY "$f" "$spec"
done
expect_eq "claim lines" "$(claim_line)" 1
step "the claim stays a direct child of Reserved" \
	grep -E '^  [0-9a-f]+-[0-9a-f]+ : cxlv_test_claim$' /proc/iomem
step "unload the foreign module" unclaim

# --- a range firmware does not call RAM (memmap= over nothing) ---
# The second memmap= lies where firmware puts neither RAM nor a PCI window
# (SeaBIOS under QEMU 10 puts the 64-bit one at 768 GiB): only the
# kernel's Reserved entry is there, so the firmware map is what refuses it.
nothing=$(grep -o 'memmap=[^ ]*' /proc/cmdline | sed -n '2s/.*\$//p')
step "memmap= over nothing is a top-level Reserved entry" \
	grep -E "^0*$(printf %x "$nothing")-[0-9a-f]+ : Reserved$" /proc/iomem
expect_refused EADDRNOTAVAIL "$CXLV_SYS/create" "memstart=$nothing,memsize=$((512 * M)),cxltype=3,pmem=1"
has firmware "$CXLV_SYS/last_error" || fail "last_error does not name the firmware map"

# --- the control files want CAP_SYS_RAWIO, not just uid 0 ---
out=$("$DROPCAP" $CAP_SYS_RAWIO sh -c "printf '%s' '$spec' >$CXLV_SYS/create" 2>&1) &&
	fail "create without CAP_SYS_RAWIO succeeded"
say "without CAP_SYS_RAWIO: $out: $(cat $CXLV_SYS/last_error)"
has "Operation not permitted" <<<"$out" || fail "want EPERM, got: $out"
expect_eq "devices" "$(device_count)" 0

# --- a live device ---
dev=$(create "$spec")
wait_ready "$dev"
ws=$(attr "$dev" window_start)
step "iomem: $dev and its windows" grep -E 'cxlv0|cxl_virt|CXL Window' /proc/iomem

# busy parts: the label storage area (memstart + label_offset) and the
# unused piece between the metadata and the window
lsa=$((base + $(attr "$dev" label_offset)))
for a in $lsa $((base + 2 * M)); do
	refused "$a" $M "in the metadata"
done
# and /dev/mem will not map them (busy iomem, STRICT_DEVMEM)
step "/dev/mem refuses the label storage area" \
	sh -c "! /cxlv/test/tools/bin/cxl-mbox-probe phys-read $lsa 64 >/dev/null"

# the PCI window: BAR0 (from the endpoint's resource file) but for what
# cxl_pci and the endpoint port map, and every 64 KiB beyond it, the
# host-bridge registers among them
memdev=$(attr "$dev" memdev)
ep=$(basename "$(dirname "$(readlink -f "/sys/bus/cxl/devices/$memdev")")")
read -r bar0 bar0_end _ <"/sys/bus/pci/devices/$ep/resource"
bar0=$((bar0)) bar0_end=$((bar0_end))
say "BAR0 of $ep: $(printf '%#x-%#x' $bar0 $bar0_end)"
expect_eq "BAR0 at memstart" "$bar0" "$((base))"
for off in 0 0x10 0x108 0x300 0x800 0x3000 0x8000 0xff00; do
	refused $((bar0 + off)) 0x10 "in BAR0's device registers"
done
for off in 0x10000 0x10800 0x12000 0x1f000; do
	refused $((bar0 + off)) 0x100 "in BAR0's component registers"
done
refused $((bar0 + 0x1000)) 0x20 "over cxl_pci's mailbox"
for ((a = bar0_end + 1; a < bar0 + M; a += 64 * 1024)); do
	refused "$a" 0x1000 "beyond BAR0"
done

# the capabilities are covered while their driver is not bound: root
# unbinds cxl_pci, which takes the memdev and the endpoint port with it
mbox=$((bar0 + 0x1000)) hdm=$((bar0 + 0x11100))
step "labels of $memdev" sh -c "cxl read-labels $memdev -o /tmp/lsa-bound >/dev/null"
step "unbind cxl_pci from $ep" sh -c "echo $ep >/sys/bus/pci/drivers/cxl_pci/unbind"
expect_eq "$dev memdev without cxl_pci" "$(attr "$dev" memdev)" ""
refused $((bar0 + 0x100)) 0x8 "over the device status, cxl_pci unbound"
refused $((bar0 + 0x200)) 0x8 "over the memory device status, cxl_pci unbound"
refused "$mbox" 0x20 "over the mailbox, cxl_pci unbound"
refused "$hdm" 0x10 "over the HDM decoders, no endpoint port"
step "rebind cxl_pci to $ep" sh -c "echo $ep >/sys/bus/pci/drivers/cxl_pci/bind"
wait_ready "$dev"
memdev=$(attr "$dev" memdev)
step "labels of $memdev read back" sh -c "cxl read-labels $memdev -o /tmp/lsa-rebound >/dev/null && cmp /tmp/lsa-bound /tmp/lsa-rebound"
refused "$mbox" 0x20 "over the mailbox cxl_pci maps again"
refused $((bar0 + 0x8000)) 0x10 "in BAR0's device registers after the rebind"

# root removes the endpoint: its covers go with it, before the PCI core
# frees the BAR; a rescan brings it back with BAR0 claimed and covered
step "remove $ep from PCI" sh -c "echo 1 >/sys/bus/pci/devices/$ep/remove"
step "$ep is gone" sh -c "! test -e /sys/bus/pci/devices/$ep"
step "no cover left in iomem" sh -c "! grep -q ' : cxl_virt registers$' /proc/iomem"
step "PCI rescan" sh -c "echo 1 >/sys/bus/pci/rescan"
wait_ready "$dev"
memdev=$(attr "$dev" memdev)
read -r a _ <"/sys/bus/pci/devices/$ep/resource"
expect_eq "BAR0 of $ep after the rescan" "$((a))" "$bar0"
step "labels of $memdev after the rescan" sh -c "cxl read-labels $memdev -o /tmp/lsa-rescanned >/dev/null && cmp /tmp/lsa-bound /tmp/lsa-rescanned"
for off in 0 0x8000 0x10800 0x1f000; do
	refused $((bar0 + off)) 0x10 "in BAR0 after the rescan"
done
refused "$mbox" 0x20 "over the mailbox after the rescan"
refused "$hdm" 0x10 "over the HDM decoders after the rescan"
# no_freed_ghosts: the module released only what is still in iomem
no_freed_ghosts() {
	if dmesg | grep "Trying to free nonexistent resource"; then
		fail "a resource was freed that iomem no longer held (above)"
	fi
}
no_freed_ghosts

# physical addresses are for root only
for a in memstart memsize window_start; do
	step "nobody cannot read $a" sh -c "! su -s /bin/sh -c 'cat /sys/bus/cxl_virt/devices/$dev/$a' nobody"
	expect_eq "$a mode" "$(stat -c %a "/sys/bus/cxl_virt/devices/$dev/$a")" 400
done
step "nobody can read capacity" su -s /bin/sh -c "cat /sys/bus/cxl_virt/devices/$dev/capacity" nobody

# the idle window is fenced: no claim inside
step "the idle window is fenced" grep -q ' : cxl_virt idle$' /proc/iomem
refused "$ws" $M "in the idle CXL window"

# a claim made while a region opened the window outlives the region
region=$(make_region "$dev")
say "region $region"
step "foreign claim in $region at $ws" claim "$ws"
drop_region "$region"
expect_eq "claim lines" "$(claim_line)" 1
step "dmesg says where" wait_for 10 sh -c "dmesg | grep -q 'CXL Window $dev holds memory of another owner at $(printf %#x "$ws")'"
step "that range in /proc/iomem is the claimant's" \
	grep -E "^ +$(printf %x "$ws")-$(printf %x $((ws + M - 1))) : cxlv_test_claim$" /proc/iomem
step "labels of $memdev" sh -c "cxl read-labels $memdev -o /tmp/lsa0 >/dev/null"
io0=$(cat /proc/iomem)
for f in "$CXLV_DBG/remove" "$CXLV_SYS/remove"; do
	expect_eq "remove with a foreign claim" "$(ctl "$f" "cxlv_dev_id=${dev#cxlv}")" EBUSY
	say "EBUSY: $(cat $CXLV_SYS/last_error)"
	has "another owner" "$CXLV_SYS/last_error" || fail "last_error does not say why"
done
out=$(rmmod cxl_virt 2>&1) && fail "rmmod succeeded with a foreign claim in $dev's window"
say "rmmod: $out"
[ "$(cat /proc/iomem)" = "$io0" ] || fail "refused remove or rmmod changed /proc/iomem"
expect_eq "devices" "$(device_count)" 1
expect_eq "$dev state" "$(attr "$dev" state)" ready
step "labels read back" sh -c "cxl read-labels $memdev -o /tmp/lsa1 >/dev/null && cmp /tmp/lsa0 /tmp/lsa1"
step "unload the foreign module" unclaim
step "dmesg: the window is free again" wait_for 10 sh -c "dmesg | grep -q 'CXL Window $dev is free again'"
step "rmmod with the claim gone" rmmod cxl_virt
no_freed_ghosts
has -E 'cxlv|cxl_virt' /proc/iomem && fail "iomem still holds cxl_virt resources"
step "reload cxl_virt" insmod "$CXLV_KO"

# --- lockdown: create refused on every path, with a reason ---
grep -q ' /sys/kernel/security ' /proc/mounts || mount -t securityfs securityfs /sys/kernel/security
step "raise lockdown to integrity" sh -c 'echo integrity >/sys/kernel/security/lockdown'
step "lockdown" cat /sys/kernel/security/lockdown
expect_refused EPERM "$CXLV_SYS/create" "$spec"
has "locked down" "$CXLV_SYS/last_error" || fail "last_error does not name lockdown"
expect_eq "debugfs create under lockdown" "$(ctl "$CXLV_DBG/create" "$spec")" EPERM
expect_eq "devices" "$(device_count)" 0
no_kernel_complaints
step "rmmod at the end" rmmod cxl_virt
no_freed_ghosts
say PASS
