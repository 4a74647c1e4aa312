#!/bin/bash
# vm: --mem 8G --append nokaslr --append movablecore=4G
# A device without a reboot (issue 17), in a guest booted with no memmap=:
# borrow=1 takes 2 GiB of System RAM from the running kernel (the module
# picks the range, from the top of memory down), /proc/iomem shows it held
# by the module and no longer System RAM, and the device on it carries a
# pmem region, an fsdax namespace and xfs -o dax. Data written there
# survives a remove and a create on the same range without borrow=1 (the
# module's record of the borrow is the proof of ownership), the region
# re-assembled by uuid. release is refused while the device exists; remove
# with release=1 gives the memory back: MemTotal returns within the struct
# pages of the range, every memory block is online again, borrowed is empty.
# nokaslr: 6.1 and 6.12 cannot cut memory out of a System RAM entry below
# the kernel image (cxlv_compat.h), which physical KASLR puts anywhere. The
# guest's direct map uses 1 GiB pages (-cpu max): a range that cuts one has
# the kernel split it first (checked at the end with 512 MiB);
# the 8 GiB guest has 6 GiB above 4 GiB (a 4 GiB q35 guest only 2).
# movablecore=4G makes the top 4 GiB ZONE_MOVABLE, where the kernel puts no
# unmovable allocation, so an aligned 2 GiB run there always goes offline
# (the topmost GiB never does: early boot's memblock pages). Without it the
# page tables and slab allocated while memfill runs landed in every
# candidate now and then (6.1, stop 36's CI: "unmovable page", no 2 GiB
# run went offline); a host that lends RAM at run time keeps it movable
# the same way (movablecore=, or memory onlined movable).
# Scrubbing (issue 30): before the borrow a process fills free memory with
# a marker and exits (memfill; some of its pages must lie in the range that
# is then borrowed); the fresh device's label area (ndctl read-labels) and
# a raw namespace over its whole capacity read back as zeros.
# Hibernation (issue 30), with pm_test=freezer so that the guest never
# really hibernates: `echo disk >/sys/power/state` is refused with EBUSY
# and one cxl_virt line naming what would be lost, while the endpoint is
# unbound from cxl_pci (so the kernel's own cxl_mem_active() check, EPERM,
# is not what refuses), while the range is borrowed with no device on it,
# and while a device exists whose endpoint no driver has bound yet (made
# with cxl_pci unloaded); after remove with release=1 it goes through.
. /cxlv/test/vm/guest/cxlv.sh
# shellcheck source=test/e2e/borrow-lib.sh
. "$CXLV/test/e2e/borrow-lib.sh"

SIZE=$((2 << 30))
load_stack
online_policy
gb=$(awk '/^DirectMap1G:/ { print $2 }' /proc/meminfo)
[ "${gb:-0}" -gt 0 ] || fail "the guest's direct map has no 1 GiB pages"
before=$(mem_state)
total0=$(memtotal_kb)
say "before: $before"

# Half of MemAvailable: the allocator hands out high memory first, so the
# marker reaches the top GiBs the borrow takes, and the kernel's own
# unmovable allocations meanwhile find free memory of their kind instead of
# taking pageblocks of those GiBs (with all of it filled, 6.1 found no 2 GiB
# run that would go offline).
fill=$(awk '/^MemAvailable:/ { print int($2 / 2048) }' /proc/meminfo)
step "a process fills $fill MiB of free memory with a marker and exits" \
	sh -c "$CXLV/test/tools/bin/memfill $fill >/tmp/memfill.out"
t0=$(uptime_ms)
expect_eq "borrow 2 GiB" "$(ctl "$CXLV_DBG/create" "borrow=1,memsize=$SIZE,cxltype=3,pmem=1")" OK
echo "TIME borrow 2 GiB + create: $(($(uptime_ms) - t0)) ms"
dmesg | grep "cxl_virt: borrow" || true
step "borrowed" cat "$CXLV_SYS/borrowed"
expect_eq "borrowed ranges" "$(wc -l <"$CXLV_SYS/borrowed")" 1
start=$(borrowed_field 1)
expect_eq "borrowed size" "$(borrowed_field 2)" "$SIZE"
expect_eq "borrowed state" "$(borrowed_field 4)" cxlv0
dev=cxlv0
expect_eq "$dev memstart" "$(attr $dev memstart)" "$start"
expect_eq "$dev borrowed" "$(attr $dev borrowed)" 1
last=$(printf '%x' $((start + SIZE - 1)))
step "iomem: the module holds the range" grep -x "${start#0x}-$last : cxl_virt borrowed" /proc/iomem
dmesg | has "cxl_virt: borrowed 2048 MiB of System RAM at $start from node 0, zeroed in [0-9]* ms" ||
	fail "no log line of the zeroing"
marked=$(awk -v lo=$((start)) -v hi=$((start + SIZE)) '$1 >= lo && $1 < hi { n += $2 } END { print n + 0 }' /tmp/memfill.out)
say "pages of the marker in the borrowed range before the borrow: $marked"
[ "$marked" -gt 0 ] || fail "no page of the marker was in $start-0x$last: the zero checks would prove nothing"
! system_ram_in "$start" "$SIZE" || fail "System RAM left in the borrowed range"
say "after borrow: $(mem_state)"
# the range leaves MemTotal, less its struct pages, which the kernel frees
memmap_kb=$(struct_pages_kb "$SIZE")
gone=$((total0 - $(memtotal_kb)))
say "MemTotal dropped by $gone kB (range $((SIZE >> 10)) kB, its struct pages $memmap_kb kB)"
[ "$gone" -le $((SIZE >> 10)) ] && [ "$gone" -ge $(((SIZE >> 10) - memmap_kb)) ] ||
	fail "MemTotal dropped by $gone kB"

# --- a first borrow reads as zeros: label area and all of the capacity ---
wait_ready $dev
for ((i = 0; i < 100; i++)); do nmem=$(nmem_of "$dev") && break; sleep 0.1; done
[ -n "$nmem" ] || fail "no nvdimm for $dev"
lsa_size=$(attr $dev label_size)
step "ndctl read-labels $nmem" ndctl read-labels "$nmem" -o /tmp/lsa
expect_eq "label area read" "$(stat -c %s /tmp/lsa)" "$lsa_size"
step "the label area is empty: $lsa_size bytes of zeros" cmp -n "$lsa_size" /tmp/lsa /dev/zero

# --- hibernation: the kernel refuses while cxl_mem is bound, the module
# with the endpoint unbound
sysw freezer /sys/power/pm_test
expect_eq "hibernation while cxl_mem is bound (the kernel's cxl_mem_active())" \
	"$(ctl /sys/power/state disk)" EPERM
bdf=$(pci_bdf "$(attr $dev memdev)")
step "unbind cxl_pci from $bdf" sh -c "echo $bdf >/sys/bus/pci/drivers/cxl_pci/unbind"
expect_eq "$dev memdev after unbind" "$(attr $dev memdev)" ""
hibernate_refused "with the endpoint unbound" "$dev"
step "bind cxl_pci to $bdf" sh -c "echo $bdf >/sys/bus/pci/drivers/cxl_pci/bind"
wait_ready $dev

region=$(make_region $dev)
ruuid=$(cat "/sys/bus/cxl/devices/$region/uuid")
raw=$(make_namespace "$region" raw)
rawdev=/dev/$(jq -r .blockdev <<<"$raw")
bytes=$(blockdev --getsize64 "$rawdev")
expect_eq "raw namespace covers the capacity" "$bytes" "$(attr $dev capacity)"
t0=$(uptime_ms)
step "all $bytes bytes of $rawdev read as zeros" "$CXLV/test/tools/bin/memfill" -z "$rawdev" "$bytes"
echo "TIME read $bytes bytes of zeros: $(($(uptime_ms) - t0)) ms"
step "destroy the raw namespace" ndctl destroy-namespace -f "$(jq -r .dev <<<"$raw")"

# --- fsdax, xfs -o dax, data; then remove and create again ---
ns=$(make_namespace "$region" fsdax)
nsuuid=$(jq -r .uuid <<<"$ns")
pmem=/dev/$(jq -r .blockdev <<<"$ns")
mkdir -p "$DAX_MNT"
step "mkfs.xfs $pmem" mkfs.xfs -f -m reflink=0 "$pmem"
step "mount -o dax" mount -t xfs -o dax "$pmem" "$DAX_MNT"
step "xfs is mounted with dax" grep -E "^$pmem $DAX_MNT xfs [^ ]*dax" /proc/mounts
write_test_files "$DAX_MNT"
step "umount" umount "$DAX_MNT"
step "disable namespace" ndctl disable-namespace "$(jq -r .dev <<<"$ns")"
drop_region "$region"
remove $dev
expect_eq "borrowed after remove" "$(borrowed_field 4)" free
hibernate_refused "with the range borrowed and free" "borrowed $start-0x$last"
# the next device's endpoint finds no driver until cxl_pci is loaded again
step "modprobe -r cxl_pci" /sbin/modprobe -r cxl_pci
expect_eq "create on the free borrowed range (no borrow key)" \
	"$(ctl "$CXLV_SYS/create" "memstart=$start,memsize=$SIZE,cxltype=3,pmem=1")" OK
dev=$(ls /sys/bus/cxl_virt/devices)
expect_eq "borrowed: on $dev" "$(borrowed_field 4)" "$dev"
expect_eq "$dev memdev before any driver" "$(attr $dev memdev)" ""
hibernate_refused "with $dev between create and bind" "$dev"
step "modprobe cxl_pci" /sbin/modprobe cxl_pci
wait_ready "$dev"
region=$(remake_region "$dev" "$ruuid")
step "namespace back from labels" wait_for 30 eval \
	"ndctl list -N -r $region | jq -e '[.. | objects | select(.uuid? == \"$nsuuid\")] | length == 1'"
step "wait for $pmem" wait_for 30 test -b "$pmem"
step "remount -o dax" mount -t xfs -o dax "$pmem" "$DAX_MNT"
verify_test_files "$DAX_MNT"
step "umount" umount "$DAX_MNT"

# --- give it back ---
expect_eq "release while $dev is on it" "$(ctl "$CXLV_DBG/release" "memstart=$start")" EBUSY
say "EBUSY: $(one_line_error)"
step "destroy namespace" ndctl destroy-namespace -f "$(ndctl list -N -r "$region" | jq -r '[.. | objects | select(.dev?)][0].dev')"
drop_region "$region"
t0=$(uptime_ms)
expect_eq "remove with release=1" "$(ctl "$CXLV_DBG/remove" "cxlv_dev_id=${dev#cxlv},release=1")" OK
echo "TIME release 2 GiB: $(($(uptime_ms) - t0)) ms"
expect_eq "borrowed after release" "$(cat "$CXLV_SYS/borrowed")" ""
system_ram_in "$start" "$SIZE" || fail "the range is not System RAM again"
wait_for 30 sh -c "! grep -q offline $MEMDIR/memory*/state" || fail "blocks still offline: $(blocks)"
after=$(mem_state)
total1=$(memtotal_kb)
say "after release: $after"
delta=$((total1 - total0))
say "MemTotal delta after borrow + release: $delta kB (struct pages of the range: $memmap_kb kB)"
[ "${delta#-}" -le "$memmap_kb" ] || fail "MemTotal moved by $delta kB"
expect_eq "block states after release" "${after#*; }" "${before#*; }"
n=$(dmesg | grep -c "cxl_virt: hibernation refused:")
expect_eq "hibernation after the release (pm_test=freezer)" "$(ctl /sys/power/state disk)" OK
expect_eq "refusals logged after the release" "$(dmesg | grep -c "cxl_virt: hibernation refused:")" "$n"
sysw none /sys/power/pm_test

# 512 MiB inside a 1 GiB direct-map page (in ZONE_MOVABLE, so it goes
# offline; a device needs 256 MiB after its metadata): the kernel splits
# that page first, so DirectMap1G shrinks. The 2 GiB above may have split
# the GiB at 7 GiB already; the one at 6 GiB is whole until now.
cut=$(((6 << 30) + (256 << 20)))
gb=$(awk '/^DirectMap1G:/ { print $2 }' /proc/meminfo)
expect_eq "borrow 512 MiB that cuts a 1 GiB direct-map page" \
	"$(ctl "$CXLV_DBG/create" "borrow=1,memstart=$cut,memsize=$((512 << 20)),cxltype=3,pmem=1")" OK
gb1=$(awk '/^DirectMap1G:/ { print $2 }' /proc/meminfo)
say "DirectMap1G: $gb kB before, $gb1 kB after"
[ "$gb1" -lt "$gb" ] || fail "no 1 GiB page was split"
dev=$(borrowed_field 4)
expect_eq "remove $dev with release=1" "$(ctl "$CXLV_DBG/remove" "cxlv_dev_id=${dev#cxlv},release=1")" OK
system_ram_in "$cut" $((512 << 20)) || fail "$cut is not System RAM again"
step "rmmod" rmmod cxl_virt
no_kernel_complaints
say PASS
