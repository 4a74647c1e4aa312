#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000
# cxlvctl region/namespace on a cxl_virt device: region + fsdax + xfs mounted
# in one command with files read back; region + devdax with a pattern; the
# device removed and created again on the same range, and `region create
# --uuid` (which ndctl 76.1 cannot do) brings the namespace back from its
# labels with the pattern intact (destroyed with --keep-namespaces after the
# region's name: the flag is read wherever it stands); `region destroy R
# --dry-run`, `region destroy R regionBOGUS` and a misspelt flag write
# nothing; `cxlvctl version` names the loaded module; a create that fails part-way, or that
# SIGINT stops, leaves the state as it was; `remove --force` tears down
# namespace, region and DPA in order. Needs bin/cxlvctl and kmod/cxl_virt.ko.
# shellcheck source=test/vm/guest/cxlv.sh
. /cxlv/test/vm/guest/cxlv.sh
# shellcheck source=test/vm/guest/region-state.sh
. /cxlv/test/vm/guest/region-state.sh

[ -x /cxlv/bin/cxlvctl ] || fail "no bin/cxlvctl: CGO_ENABLED=0 go build -o bin/cxlvctl ./cmd/cxlvctl"
cp /cxlv/bin/cxlvctl /tmp/cxlvctl # from tmpfs: loading it over 9p dominates wall times
CXLVCTL=/tmp/cxlvctl
MNT=/mnt/cxlvctl

# check_version: `cxlvctl version` (and --version) print the CLI's version
# and the loaded module's version and srcversion, and they match.
check_version() {
	local mod=/sys/module/cxl_virt out
	out=$("$CXLVCTL" version 2>&1) || return
	printf '%s\n' "$out"
	has -Fx "cxlvctl $(cat $mod/version)" <<<"$out" &&
		has -Fx "cxl_virt $(cat $mod/version) srcversion $(cat $mod/srcversion)" <<<"$out" &&
		! has warning <<<"$out" || return
	[ "$("$CXLVCTL" --version 2>&1)" = "$out" ]
}

# refused LINE_EXIT LINE_SAYS ARGS...: cxlvctl ARGS fails with that exit code
# and message.
refused() {
	local code=$1 says=$2 out rc=0
	shift 2
	out=$("$CXLVCTL" "$@" 2>&1) || rc=$?
	printf '%s\n' "$out"
	[ "$rc" = "$code" ] && has -F "$says" <<<"$out" || { echo "exit $rc; want $code saying $says"; return 1; }
}

# destroy_lines_write_nothing REGION: the lines urfave/cli alone misread
# (a global flag after the name, a bogus second name, a misspelt flag) leave
# the region, its namespace and its DPA as they were.
destroy_lines_write_nothing() {
	local before out
	before=$(cxl_state)
	out=$("$CXLVCTL" region destroy "$1" --dry-run) || return
	printf '%s\n' "$out"
	has "/delete_region$" <<<"$out" || { echo "--dry-run printed no plan"; return 1; }
	same_state "$before" || return
	refused 6 "region regionBOGUS not found" region destroy "$1" regionBOGUS || return
	same_state "$before" || return
	refused 2 "did you mean --keep-namespaces?" region destroy "$1" --keep-namespace || return
	same_state "$before"
}

load_stack
step "cxlvctl version names the loaded module" check_version
json=$("$CXLVCTL" create --memstart 0x100000000 --size 1G --pmem --wait --json) || fail "cxlvctl create"
dev=$(jq -r .device <<<"$json")
say "made $dev"
initial=$(cxl_state)

mkdir -p "$MNT"
json=$("$CXLVCTL" region create --device "$dev" --fs xfs --mount "$MNT" --json) || fail "region create --fs xfs"
printf '%s\n' "$json"
pmem=$(jq -r '"/dev/" + .namespaces[0].blockdev' <<<"$json")
write_test_files "$MNT"
step "sync, umount, drop caches, remount" \
	eval "sync && umount $MNT && echo 3 >/proc/sys/vm/drop_caches && mount -o dax $pmem $MNT"
verify_test_files "$MNT"
step "umount" umount "$MNT"
step "region destroy" "$CXLVCTL" region destroy "$(jq -r .region <<<"$json")"
step "state as after device create" same_state "$initial"
step "SIGINT during region create --namespace fsdax rolls back" interrupted_create '/sys/bus/cxl/devices/region*' cxl_state --device "$dev" --namespace fsdax

json=$("$CXLVCTL" region create --device "$dev" --namespace devdax --json) || fail "region create devdax"
printf '%s\n' "$json"
region_uuid=$(jq -r .uuid <<<"$json")
ns_uuid=$(jq -r '.namespaces[0].raw_uuid' <<<"$json")
dax=$(jq -r '"/dev/" + .namespaces[0].chardev' <<<"$json")
step "write pattern through $dax" "$PATCHECK" write --mmap --seed 41 --size 32M "$dax"
region=$(jq -r .region <<<"$json")
step "destroy --dry-run, a bogus name, a misspelt flag write nothing" destroy_lines_write_nothing "$region"
step "pattern still reads back through $dax" "$PATCHECK" verify --mmap --seed 41 --size 32M "$dax"
step "region destroy $region --keep-namespaces (flag after the name)" "$CXLVCTL" region destroy "$region" --keep-namespaces
step "remove $dev" "$CXLVCTL" remove "$dev"
json=$("$CXLVCTL" create --memstart 0x100000000 --size 1G --pmem --wait --json) || fail "cxlvctl create again"
dev=$(jq -r .device <<<"$json")
json=$("$CXLVCTL" region create --device "$dev" --uuid "$region_uuid" --json) || fail "region create --uuid"
printf '%s\n' "$json"
step "namespace came back from its labels with its uuid" \
	test "$(jq -r '.namespaces[0] | .reassembled and .raw_uuid == "'"$ns_uuid"'"' <<<"$json")" = true
dax=$(jq -r '"/dev/" + .namespaces[0].chardev' <<<"$json")
step "pattern reads back through $dax" "$PATCHECK" verify --mmap --seed 41 --size 32M "$dax"

# A create that fails part-way (no DPA for 2G) leaves everything as it was.
"$CXLVCTL" region destroy --keep-namespaces "$(jq -r .region <<<"$json")" || fail "destroy before failure test"
before=$(cxl_state)
out=$("$CXLVCTL" region create --device "$dev" --size 2G 2>&1) && fail "a 2G region on a 1G device succeeded"
echo "$out"
step "failed create left the state as it was" same_state "$before"

step "region create --uuid again" "$CXLVCTL" region create --device "$dev" --uuid "$region_uuid"
step "remove --force tears down namespace, region, DPA, device" "$CXLVCTL" remove --force "$dev"
for d in /sys/bus/cxl_virt/devices/*; do
	[ ! -e "$d" ] || fail "remove --force left $d"
done
for r in /sys/bus/cxl/devices/region*; do
	[ ! -e "$r" ] || fail "remove --force left $r"
done
no_kernel_complaints
echo "=== cxlvctl region on cxl_virt: all steps passed"
