#!/bin/bash
# vm: --hide-hypervisor --cxl --mem 2G
# cxlvctl on QEMU's emulated CXL type-3 device (no cxl_virt): `list` links
# memdev -> root decoder -> region -> nd region -> namespace -> /dev node for
# a devdax and then an fsdax namespace, and its JSON equals `cxl list -M -D -R`
# of the same boot for every memdev, root decoder and region (checked by the
# cxlvctl test binary, TestLiveCrossCheck). Error paths: bad sizes, missing
# cxl_virt module, unknown names and non-root use give one-line errors and
# the documented exit codes. Needs bin/cxlvctl and bin/cxlvctl.test built
# with CGO_ENABLED=0 (make build).
# shellcheck source=test/vm/guest/cxlvctl.sh
. /cxlv/test/vm/guest/cxlvctl.sh

# Bad input, before any module: nothing is written, exit 2.
expect_fail 2 'invalid size "2GG"' create --memstart 2GG --size 1G --pmem
expect_fail 2 'unknown unit "Gb"' create --memstart 4G --size 2Gb --pmem
expect_fail 2 'too small' create --memstart 4G --size 128M --pmem
# No memdev yet: an unknown name (6); once QEMU's mem0 is there, it is no
# cxl_virt device's (2).
expect_fail 6 'memdev mem0 not found' remove mem0
# cxl_virt is not loaded in this scenario: exit 4 naming the fix.
expect_fail 4 'modprobe cxl_virt' create --memstart 4G --size 1G --pmem
expect_fail 4 'modprobe cxl_virt' remove cxlv0
expect_fail 2 'no completion for shell' completion tcsh

load_stack --qemu
[ -e /sys/bus/cxl/devices/mem0/driver ] || fail "mem0 never bound"
expect_fail 2 'invalid device name "mem0": no cxl_virt device has memdev mem0' remove mem0

cxlvctl list || fail "list"
# list -H --media-errors reads what the device offers: QEMU 10's answers
# Get Poison List but not Get Health Info, so mem0 goes without health, the
# warning naming the device, not the kernel, and has an empty media-error
# list (6.1: too old for poison, which the warning says).
cxlvctl list -H --media-errors >"$OUT/list-details.out" 2>"$OUT/list-details.err" || fail "list -H --media-errors"
cat "$OUT/list-details.out" "$OUT/list-details.err"
grep -q "warning: no health for mem0: mem0 does not offer Get Health Info" "$OUT/list-details.err" ||
	fail "list -H: no warning that mem0 offers no health"
case $(uname -r) in
6.1.*)
	grep -q "warning: no media errors: kernel too old" "$OUT/list-details.err" ||
		fail "list --media-errors: no warning that 6.1 is too old for the poison list"
	;;
*)
	! grep -q "media errors" "$OUT/list-details.err" || fail "list --media-errors warned on a device with a poison list"
	[ "$(awk '$2 == "mem0" {print $NF}' "$OUT/list-details.out")" = 0 ] ||
		fail "list --media-errors: mem0's MEDIA_ERRORS is not 0"
	;;
esac
cxlvctl list -v | has '^-  *mem0 ' || fail "list -v has no mem0 row"
[ "$(cxlvctl __complete remove '')" = "" ] || fail "completion offered cxl_virt devices that do not exist"
cxlvctl completion bash | has '__complete' || fail "bash completion script"

live_check bare

cxl create-region -m -d decoder0.0 -t pmem mem0 >/dev/null || fail "cxl create-region"
ndctl create-namespace -r region0 -m devdax >/dev/null || fail "ndctl create-namespace devdax"
cxlvctl list | tee "$OUT/cxlvctl-list-devdax.txt"
grep -Eq 'mem0 +pmem +512M +region0 +namespace0\.0 +devdax +/dev/dax0\.0' \
	"$OUT/cxlvctl-list-devdax.txt" || fail "devdax row not linked to /dev/dax0.0"
[ -c /dev/dax0.0 ] || fail "/dev/dax0.0 is not a character device"
live_check devdax
grep -q '"chardev": "dax0.0"' "$OUT/cxlvctl-list-devdax.json" || fail "JSON lacks chardev dax0.0"

ndctl destroy-namespace -f namespace0.0 >/dev/null || fail "ndctl destroy-namespace"
ndctl create-namespace -r region0 -m fsdax >/dev/null || fail "ndctl create-namespace fsdax"
cxlvctl list | tee "$OUT/cxlvctl-list-fsdax.txt"
grep -Eq 'region0 +namespace0\.[0-9]+ +fsdax +/dev/pmem0' "$OUT/cxlvctl-list-fsdax.txt" ||
	fail "fsdax row not linked to /dev/pmem0"
[ -b /dev/pmem0 ] || fail "/dev/pmem0 is not a block device"
live_check fsdax

# Non-root: list works, without what only root may read.
su -s /bin/sh -c "id -u >&2; $bin/cxlvctl list --json" nobody >"$OUT/cxlvctl-list-nonroot.json" || fail "non-root list"
grep -q '"memdev": "mem0"' "$OUT/cxlvctl-list-nonroot.json" || fail "non-root list lacks mem0"
# The root decoder's start is 0400: non-root output lacks its resource
# (the region's resource is readable by all).
[ "$(grep -c '"resource"' "$OUT/cxlvctl-list-nonroot.json")" -lt "$(grep -c '"resource"' "$OUT/cxlvctl-list-fsdax.json")" ] ||
	fail "non-root list shows a decoder start only root can read"
say "ok: non-root list"
cxlvctl ranges || fail "ranges"
cxlvctl info || fail "info"
cxlvctl info --json >"$OUT/info.json" 2>"$OUT/info.err" || fail "info --json"
[ ! -s "$OUT/info.err" ] || fail "info printed warnings: $(cat "$OUT/info.err")"
grep -q '"id": 0' "$OUT/info.json" || fail "info --json lacks node 0"
! grep -q '"total_usable_bytes": 0' "$OUT/info.json" || fail "info --json lacks the memory totals"
say "PASS"
