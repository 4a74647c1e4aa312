#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000 --append iomem=relaxed
# boot: basic
# cxlvctl drives the cxl_virt module for real: ranges finds the memmap=
# range, create --wait names the new cxlvN and its memdev, list links it and
# matches `cxl list`, completion offers it, --dry-run writes nothing, the
# sysfs control files take over when debugfs is not mounted, remove --force
# tears down a region first, and each refusal (module missing, non-root,
# System RAM, unreserved or overlapping range, unknown or busy device,
# poison on a kernel before 6.4, events on one before 6.3) is a one-line error with the documented exit code and the module's reason.
# Needs bin/cxlvctl, bin/cxlvctl.test (make build) and kmod/cxl_virt.ko.
# shellcheck source=test/vm/guest/cxlvctl.sh
. /cxlv/test/vm/guest/cxlvctl.sh
# devices: the cxl_virt devices, space separated ("" when none).
devices() {
	local d names=()
	for d in /sys/bus/cxl_virt/devices/*; do
		[ -e "$d" ] && names+=("${d##*/}")
	done
	echo "${names[*]}"
}

load_stack --no-cxlv
expect_fail 4 'modprobe cxl_virt' create --memstart 4G --size 1G --pmem
insmod "$CXLV_KO" || fail "insmod cxl_virt"

cxlvctl ranges | tee "$OUT/ranges.txt"
cxlvctl ranges --json >"$OUT/ranges.json" || fail "ranges --json"
grep -q '"start": 4294967296' "$OUT/ranges.json" || fail "ranges does not offer the memmap= range at 4G"
grep -q '"cmdline"' "$OUT/ranges.json" || fail "ranges does not say the range comes from memmap="

# Refusals: nothing is created by any of them.
rc=0
su -s /bin/sh -c "$bin/cxlvctl create --memstart 4G --size 1G --pmem" nobody 2>/tmp/err || rc=$?
[ "$rc" = 3 ] || fail "non-root create: exit $rc, want 3: $(cat /tmp/err)"
grep -q 'run as root' /tmp/err || fail "non-root create does not say to run as root: $(cat /tmp/err)"
say "ok: non-root create -> exit 3: $(cat /tmp/err)"
expect_fail 5 'System RAM' create --memstart 1G --size 512M --pmem
expect_fail 1 'memmap=' create --memstart 8G --size 512M --pmem
expect_fail 6 'no device cxlv7' remove cxlv7
[ -z "$(devices)" ] || fail "a refused create left devices: $(devices)"

# --dry-run prints the write and writes nothing.
out=$(cxlvctl --dry-run create --memstart 4G --size 1G --pmem) || fail "dry-run create"
[ "$out" = "echo memstart=4294967296,memsize=1073741824,cxltype=3,pmem=1 > /sys/kernel/debug/cxl/cxlv/create" ] ||
	fail "dry-run printed '$out'"
[ -z "$(devices)" ] || fail "--dry-run created $(devices)"

# 512M of range: 1 MiB + 128 KiB of metadata, then 256 MiB aligned memory.
cxlvctl create --memstart 4G --size 512M --pmem --wait | tee "$OUT/create.txt" || fail "create --wait"
dev=$(devices)
[[ $dev =~ ^cxlv[0-9]+$ ]] || fail "create made '$(devices)'"
grep -Eq "^$dev +mem[0-9]+ +pmem +256M" "$OUT/create.txt" || fail "create did not print $dev with its memdev"
expect_fail 5 "0x110000000+512M overlaps $dev (0x100000000+512M)" create --memstart 0x110000000 --size 512M --pmem
expect_fail 5 "overlaps $dev" --dry-run create --memstart 0x110000000 --size 512M --pmem
expect_fail 2 "--memstart 0: " create --memstart 0 --size 512M --pmem
[ "$(cxlvctl __complete remove cx)" = "$dev" ] || fail "completion does not offer $dev"

cxlvctl list -v | tee "$OUT/list.txt"
grep -Eq "^$dev +mem[0-9]+ +pmem +256M +decoder[0-9]+\.0 .* 0x100000000 " "$OUT/list.txt" || fail "list -v row"
live_check cxlv

# A region makes the device busy; --force tears it down first.
cxlvctl region create --device "$dev" --namespace devdax >"$OUT/region.txt" 2>&1 ||
	fail "region create on $dev: $(cat "$OUT/region.txt")"
cxlvctl list | tee "$OUT/list-region.txt"
grep -Eq "^$dev +mem[0-9]+ +pmem +256M +region[0-9]+ +namespace[0-9.]+ +devdax +/dev/dax[0-9.]+$" \
	"$OUT/list-region.txt" || fail "list does not link $dev to its devdax namespace"
awk 'length > 80 { exit 1 }' "$OUT/list-region.txt" || fail "list is wider than 80 columns"
# Health through the mailbox, as cxl list -H reads it (live_check compares
# the whole object); the table says it in one word.
step "cxlvctl list -j -H: $dev's health" json_has '.[0].health.media_normal == true and .[0].health.maintenance_needed == false' \
	cxlvctl list -j -H "$dev"
cxlvctl list -H | tee "$OUT/list-health.txt"
grep -Eq "^$dev .* ok$" "$OUT/list-health.txt" || fail "list -H has no HEALTH ok for $dev"
live_check cxlv-region
# Poison needs the kernel's interfaces (trigger_poison_list, debugfs
# inject_poison: Linux 6.4+): 6.1 gets the typed refusal before any write,
# a newer kernel lists (cxlv-poison drives the rest there).
mem=$(cat "/sys/bus/cxl_virt/devices/$dev/memdev")
case $(uname -r) in
6.1.*)
	expect_fail 4 "kernel too old: poison inject, clear and list need Linux 6.4+ ($mem/trigger_poison_list missing)" \
		poison inject "$dev" --dpa 0x1000
	expect_fail 4 "kernel too old" poison clear "$mem" --dpa 0x1000
	expect_fail 4 "kernel too old" poison list "$dev"
	# 6.1's cxl_pci reads no event logs: no MSI vector, no msi_irqs
	expect_fail 4 "kernel too old: event logs read by cxl_pci need Linux 6.3+" \
		event inject "$dev" --type dram --dpa 0x1000
	;;
*)
	[ "$(cxlvctl poison list "$dev" --json | jq length)" = 0 ] || fail "poison list $dev on $(uname -r)"
	;;
esac
expect_fail 5 'remove --force' remove "$dev"
cxlvctl remove --force "$dev" || fail "remove --force"
[ -z "$(devices)" ] || fail "remove left $(devices)"
expect_fail 6 "no device $dev" remove "$dev"

# Without debugfs the sysfs control files do the same job.
umount /sys/kernel/debug || fail "umount debugfs"
cxlvctl create --memstart 4G --size 512M --pmem --wait >/dev/null || fail "create via /sys/bus/cxl_virt"
dev=$(devices)
cxlvctl remove "$dev" || fail "remove via /sys/bus/cxl_virt"
say "ok: create/remove through /sys/bus/cxl_virt with debugfs unmounted"
say "PASS"
