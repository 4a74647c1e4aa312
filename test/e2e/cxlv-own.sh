#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000 --memmap 512M$0xc000000000
# cxl_virt owns every byte it hands out (issue 14). A test module claims
# 1 MiB with request_mem_region() as another driver would: inside a free
# range, create is refused and nothing is adopted; inside a live device's
# window, remove is refused and the claim stays in /proc/iomem; the busy
# parts of a device (metadata, unused) refuse such a claim. A memmap= range
# where firmware has no RAM is refused. Addresses are root-only, the control
# files need CAP_SYS_RAWIO, and once the kernel is locked down create is
# refused on both paths.
. /cxlv/test/vm/guest/cxlv.sh

CLAIM_KO=/cxlv/test/claim/build/$KVER/cxlv_test_claim.ko
DROPCAP=/cxlv/test/tools/bin/dropcap
CAP_SYS_RAWIO=17
G=$((1 << 30)) M=$((1 << 20))
base=0x100000000
spec="memstart=$base,memsize=$G,cxltype=3,pmem=1"

# claim ADDR: loads the test module over [ADDR, ADDR + 1 MiB).
claim() { insmod "$CLAIM_KO" start="$1"; }
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
expect_refused EADDRNOTAVAIL "$CXLV_SYS/create" "memstart=0xc000000000,memsize=$((512 * M)),cxltype=3,pmem=1"
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

# busy parts: the label storage area (memstart + 512 KiB) and the unused
# piece between the metadata and the window
for a in $((base + 512 * 1024)) $((base + 2 * M)); do
	step "claim at $(printf %#x "$a") refused" sh -c "! insmod $CLAIM_KO start=$a"
done
# and /dev/mem will not map them (busy iomem, STRICT_DEVMEM)
step "/dev/mem refuses the label storage area" \
	sh -c "! /cxlv/test/tools/bin/cxl-mbox-probe phys-read $((base + 512 * 1024)) 64 >/dev/null"

# physical addresses are for root only
for a in memstart memsize window_start window_size; do
	step "nobody cannot read $a" sh -c "! su -s /bin/sh -c 'cat /sys/bus/cxl_virt/devices/$dev/$a' nobody"
	expect_eq "$a mode" "$(stat -c %a "/sys/bus/cxl_virt/devices/$dev/$a")" 400
done
step "nobody can read capacity" su -s /bin/sh -c "cat /sys/bus/cxl_virt/devices/$dev/capacity" nobody

# a claim inside the window: remove refused, the claim stays
step "foreign claim in the CXL window at $ws" claim "$ws"
io0=$(cat /proc/iomem)
for f in "$CXLV_DBG/remove" "$CXLV_SYS/remove"; do
	expect_eq "remove with a foreign claim" "$(ctl "$f" "cxlv_dev_id=${dev#cxlv}")" EBUSY
	say "EBUSY: $(cat $CXLV_SYS/last_error)"
	has "another owner" "$CXLV_SYS/last_error" || fail "last_error does not say why"
done
[ "$(cat /proc/iomem)" = "$io0" ] || fail "refused remove changed /proc/iomem"
step "dmesg says why" sh -c "dmesg | grep 'remove refused'"
expect_eq "claim lines" "$(claim_line)" 1
expect_eq "devices" "$(device_count)" 1
step "unload the foreign module" unclaim
remove "$dev"
expect_eq "devices after remove" "$(device_count)" 0
has -E 'cxlv|cxl_virt' /proc/iomem && fail "iomem still holds cxl_virt resources"

# --- lockdown: create refused on every path, with a reason ---
grep -q ' /sys/kernel/security ' /proc/mounts || mount -t securityfs securityfs /sys/kernel/security
step "raise lockdown to integrity" sh -c 'echo integrity >/sys/kernel/security/lockdown'
step "lockdown" cat /sys/kernel/security/lockdown
expect_refused EPERM "$CXLV_SYS/create" "$spec"
has "locked down" "$CXLV_SYS/last_error" || fail "last_error does not name lockdown"
expect_eq "debugfs create under lockdown" "$(ctl "$CXLV_DBG/create" "$spec")" EPERM
expect_eq "devices" "$(device_count)" 0
no_kernel_complaints
rmmod cxl_virt
say PASS
