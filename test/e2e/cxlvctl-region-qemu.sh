#!/bin/bash
# vm: --hide-hypervisor --cxl --mem 2G
# cxlvctl region/namespace on QEMU's emulated CXL type-3 device (512 MiB,
# sn=0x5157): region + fsdax + xfs mounted in one command, files read back
# after a remount; region + devdax with a pattern through /dev/daxX.Y;
# destroy releases everything (no region, endpoint DPA 0); a region
# re-created with --uuid brings its namespace back from the labels with the
# data; a region larger than the device is refused before any write; a
# create that fails part-way for real (the dax_pmem driver missing after the
# region and the namespace are made) leaves the state exactly as before;
# --dry-run changes nothing, nor do `region destroy R --force --dry-run`,
# `region destroy R regionBOGUS` and a misspelt flag; a destroy of a mounted
# namespace is refused, one that would delete labels without --force too. The xfs files also come back
# with --uuid. The checks both targets make are in cxlvctl-region-lib.sh.
. "$CXLV/test/vm/guest/lib.sh"
# shellcheck source=test/vm/guest/region-state.sh
. "$CXLV/test/vm/guest/region-state.sh"
# shellcheck source=test/e2e/cxlvctl-region-lib.sh
. "$CXLV/test/e2e/cxlvctl-region-lib.sh"

EP=/sys/bus/cxl/devices/decoder2.0 # mem0's endpoint decoder on this topology

pmem_setup
step "load CXL stack" load_stack --qemu
initial=$(cxl_state)
echo "$initial"

# --dry-run prints the whole sequence and writes nothing.
dry=$("$CXLVCTL" --dry-run region create --memdev mem0 --namespace fsdax 2>&1)
printf '%s\n' "$dry"
has "> /sys/bus/cxl/devices/decoder0.0/create_pmem_region" <<<"$dry" || fail "dry run lacks create_pmem_region"
has "> /sys/bus/nd/drivers/nd_pmem/bind" <<<"$dry" || fail "dry run lacks the pfn bind"
step "dry run changed nothing" same_state "$initial"

# 1. Region + fsdax + xfs + mount in one command.
t0=$(uptime_ms)
step "region create --namespace fsdax --fs xfs --mount" \
	"$CXLVCTL" region create --memdev mem0 --namespace fsdax --fs xfs --mount "$MNT"
t1=$(uptime_ms)
echo "TIME region create to mounted xfs: $((t1 - t0)) ms (wall, guest uptime clock)"
fs_survives_remount /dev/pmem0
step "region list shows region0 with its namespace" json_has \
	'.[0].region == "region0" and .[0].nd_region.namespaces[0].mode == "fsdax"' "$CXLVCTL" region list --json
out=$("$CXLVCTL" region destroy region0 2>&1) && fail "destroy of a mounted region succeeded: $out"
echo "$out"
has "/dev/pmem0 mounted on $MNT" <<<"$out" || fail "destroy of a mounted region: unclear refusal"
step "umount" umount "$MNT"
region_uuid=$("$CXLVCTL" region list --json | jq -r '.[0].uuid')

# The filesystem survives a region destroy that keeps the labels: the region
# re-created with its uuid brings the namespace back, and it is mounted as is.
step "region destroy --keep-namespaces" "$CXLVCTL" region destroy --keep-namespaces region0
step "region and DPA released" same_state "$initial"
step "endpoint DPA is 0" test "$(cat $EP/dpa_size)" = 0x0000000000000000
json=$("$CXLVCTL" region create --memdev mem0 --uuid "$region_uuid" --fs xfs --mount "$MNT" --json) ||
	fail "region create --uuid --fs xfs --mount"
printf '%s\n' "$json"
step "fsdax namespace came back from its labels" \
	test "$(jq -r '.namespaces[0].reassembled and .namespaces[0].mode == "fsdax"' <<<"$json")" = true
step "xfs is mounted with dax again" grep -E "^/dev/pmem0 $MNT xfs [^ ]*dax" /proc/mounts
verify_test_files "$MNT" # after re-assembly
step "umount" umount "$MNT"
step "region destroy --force" "$CXLVCTL" region destroy --force region0
step "destroy released everything" same_state "$initial"
step "endpoint DPA is 0" test "$(cat $EP/dpa_size)" = 0x0000000000000000

# 2. Region + devdax, pattern through /dev/daxX.Y.
# 3. Re-assembly from labels: destroy the region but keep the labels, then
# re-create it with the same uuid.
released() { step "region and DPA released" same_state "$initial"; }
devdax_comes_back released --memdev mem0
step "region destroy --force (namespaces too)" "$CXLVCTL" region destroy --force "$(jq -r .region <<<"$REASSEMBLED")"
step "everything released" same_state "$initial"

# 4. Creates that the kernel refuses part-way roll back completely.
step "size larger than the device refused before any write" \
	cli_refused 2 "region size 1G is more than the 512M free on mem0" region create --memdev mem0 --size 1G --namespace fsdax
step "state after the refusal" same_state "$initial"
step "unload dax_pmem" /sbin/modprobe -r dax_pmem
fails_cleanly "devdax without dax_pmem (namespace bind fails)" \
	"$CXLVCTL" region create --memdev mem0 --namespace devdax
step "reload dax_pmem" /sbin/modprobe dax_pmem
rc=0
out=$("$CXLVCTL" region create --memdev mem0 --uuid not-a-uuid 2>&1) || rc=$?
echo "$out"
[ "$rc" = 2 ] || fail "a malformed uuid should exit 2 (invalid input), got $rc"
step "state after bad input" same_state "$initial"

# 5. namespace create/destroy on their own.
json=$("$CXLVCTL" region create --memdev mem0 --json) || fail "region without namespace"
region=$(jq -r .nd_region.dev <<<"$json")
t0=$(uptime_ms)
json=$("$CXLVCTL" namespace create --region "$region" --mode fsdax --json) || fail "namespace create"
t1=$(uptime_ms)
printf '%s\n' "$json"
echo "TIME namespace create fsdax: $((t1 - t0)) ms (wall, includes process start)"
step "fsdax block pattern" check_pattern "/dev/$(jq -r .blockdev <<<"$json")" 31 --size 16M
step "namespace destroy --force" "$CXLVCTL" namespace destroy --force "$(jq -r .dev <<<"$json")"
step "raw namespace" "$CXLVCTL" namespace create --region "$region" --mode raw
step "region destroy --force" "$CXLVCTL" region destroy --force "$region" # CXL and nd region share the name
step "everything released" same_state "$initial"
echo "=== cxlvctl region e2e: all steps passed"
