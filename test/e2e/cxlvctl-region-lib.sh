# Guest-side checks of the cxlvctl pmem region scenarios (sourced, not run;
# no vm header, so run-suite.sh skips it), shared by cxlvctl-region-cxlv.sh
# (a cxl_virt device: --device cxlvN) and cxlvctl-region-qemu.sh (QEMU's
# type-3 device: --memdev mem0). Needs lib.sh and region-state.sh.
# shellcheck shell=bash

MNT=/mnt/cxlvctl

# pmem_setup [CXLVCTL]: the binary under test from tmpfs (region_setup) and
# the mount point.
pmem_setup() {
	region_setup "${1:-}"
	mkdir -p "$MNT"
}

# fs_survives_remount PMEM: xfs mounted -o dax on MNT from PMEM; files
# written, synced, unmounted with the caches dropped, the filesystem checked,
# remounted and read back. Leaves it mounted.
fs_survives_remount() {
	step "xfs is mounted with dax" grep -E "^$1 $MNT xfs [^ ]*dax" /proc/mounts
	write_test_files "$MNT"
	step "sync, umount, drop caches" eval "sync && umount $MNT && echo 3 >/proc/sys/vm/drop_caches"
	step "xfs_repair -n" xfs_repair -n "$1"
	step "remount -o dax" mount -t xfs -o dax "$1" "$MNT"
	verify_test_files "$MNT"
}

# came_back JSON REGION_UUID NS_UUID [DAX_UUID]: `region create --uuid
# --json` printed JSON: the same region uuid, and the namespace
# re-assembled from its labels with its uuid (and its dax claim's).
came_back() {
	step "same region uuid" test "$(jq -r .uuid <<<"$1")" = "$2"
	step "namespace came back from its labels" test "$(jq -r '.namespaces[0].reassembled' <<<"$1")" = true
	step "namespace has its uuid" test "$(jq -r '.namespaces[0].raw_uuid' <<<"$1")" = "$3"
	[ -z "${4:-}" ] || step "dax claim has its uuid" test "$(jq -r '.namespaces[0].uuid' <<<"$1")" = "$4"
}

# fails_cleanly NAME CMD...: CMD must fail with an error saying the
# rollback was complete and leave the state as it was.
fails_cleanly() {
	local name=$1 before out rc=0
	shift
	before=$(cxl_state)
	out=$("$@" 2>&1) || rc=$?
	printf '%s\n' "$out"
	[ "$rc" != 0 ] || fail "$name: expected a failure, got exit 0"
	has 'nothing was left behind' <<<"$out" || fail "$name: the error does not say the rollback was complete"
	step "$name: state as before" same_state "$before"
}

# cli_refused EXIT SAYS ARGS...: cxlvctl ARGS fails with that exit code and
# message.
cli_refused() {
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
	cli_refused 5 "holds data and a label: --force destroys them, --keep-namespaces keeps the label" region destroy "$1" || return
	same_state "$before" || return
	out=$("$CXLVCTL" region destroy "$1" --force --dry-run) || return
	printf '%s\n' "$out"
	has "/delete_region$" <<<"$out" || { echo "--dry-run printed no plan"; return 1; }
	same_state "$before" || return
	cli_refused 6 "region regionBOGUS not found" region destroy "$1" regionBOGUS || return
	same_state "$before" || return
	cli_refused 2 "did you mean --keep-namespaces?" region destroy "$1" --keep-namespace || return
	same_state "$before"
}

# patterns_back DAX: the patterns check_devdax wrote at both ends of DAX
# (16 MiB each) read back.
patterns_back() {
	local dax=$1 size
	size=$(cat "/sys/bus/dax/devices/${dax#/dev/}/size")
	step "pattern at start of $dax reads back" "$PATCHECK" verify --mmap --seed 11 --size 16M "$dax"
	step "pattern at end of $dax reads back" \
		"$PATCHECK" verify --mmap --seed 12 --offset $((size - (16 << 20))) --size 16M "$dax"
}

# devdax_comes_back BETWEEN TARGET...: `region create TARGET --namespace
# devdax`, patterns at both ends of its dax device; the destroy lines that
# must write nothing (the patterns still there after them); `region destroy
# R --keep-namespaces` (the flag after the name); the function BETWEEN,
# which may set the array TARGET anew; `region create TARGET --uuid`: the
# namespace back from its labels (came_back) with the patterns. Sets
# REGION_UUID, and REASSEMBLED to the JSON of the re-created region.
devdax_comes_back() {
	local between=$1 json region ns_uuid dax_uuid dax
	shift
	TARGET=("$@")
	json=$("$CXLVCTL" region create "${TARGET[@]}" --namespace devdax --json) || fail "region create devdax"
	printf '%s\n' "$json"
	echo "TIME region create: $(jq '.region_ns / 1e6 | floor' <<<"$json") ms, namespace create: $(jq '.namespace_ns / 1e6 | floor' <<<"$json") ms, total: $(jq '.total_ns / 1e6 | floor' <<<"$json") ms"
	region=$(jq -r .region <<<"$json")
	REGION_UUID=$(jq -r .uuid <<<"$json")
	ns_uuid=$(jq -r '.namespaces[0].raw_uuid' <<<"$json")
	dax_uuid=$(jq -r '.namespaces[0].uuid' <<<"$json")
	dax=$(jq -r '"/dev/" + .namespaces[0].chardev' <<<"$json")
	step "$dax is a character device" test -c "$dax"
	check_devdax "$dax"
	step "destroy --dry-run, a bogus name, a misspelt flag write nothing" destroy_lines_write_nothing "$region"
	patterns_back "$dax"
	step "region destroy $region --keep-namespaces (flag after the name)" \
		"$CXLVCTL" region destroy "$region" --keep-namespaces
	"$between"
	json=$("$CXLVCTL" region create "${TARGET[@]}" --uuid "$REGION_UUID" --json) || fail "region create --uuid"
	printf '%s\n' "$json"
	came_back "$json" "$REGION_UUID" "$ns_uuid" "$dax_uuid"
	patterns_back "$(jq -r '"/dev/" + .namespaces[0].chardev' <<<"$json")"
	REASSEMBLED=$json
}
