# Helpers for guest scripts run by test/vm/run-vm.sh. Source it first:
#   . "$CXLV/test/vm/guest/lib.sh"
# It turns on errexit/pipefail. Every check fails the script (exit 1) with the
# failing command's output, so a test is a flat list of steps.
# shellcheck shell=bash
set -eo pipefail

PATCHECK=${PATCHECK:-$CXLV/test/tools/bin/patcheck}
# Mount point used by the DAX filesystem checks.
DAX_MNT=${DAX_MNT:-/mnt/dax}

# step NAME CMD...: runs CMD, prints its output under a marker; on failure
# prints the exit code and fails the script. CMD runs in a subshell (its
# variable assignments are lost) and bash turns errexit off inside it: a
# function given to step must return its failures itself (cmd || return).
step() {
	local name=$1 rc=0 output
	shift
	echo "--- step: $name"
	output=$("$@" 2>&1) || rc=$?
	[ -z "$output" ] || printf '%s\n' "$output"
	if [ "$rc" != 0 ]; then
		echo "--- FAILED step: $name (exit $rc): $*"
		exit 1
	fi
}

# has GREP_ARGS...: grep for "does the input match", reading all of it. A
# `grep -q` exits at the first match, so under pipefail the writer's SIGPIPE
# can fail a check that matched.
has() {
	grep "$@" >/dev/null
}

# fail MESSAGE: fails the script with a message.
fail() {
	echo "--- FAILED: $*"
	exit 1
}

# wait_for SECONDS CMD...: retries CMD every 0.2 s until it succeeds.
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$deadline" ] || { echo "timed out waiting for: $*"; return 1; }
		sleep 0.2
	done
}

# load_cxl_stack [N]: loads the CXL, nvdimm and dax drivers (kmod's
# modprobe: busybox's cannot load the nvdimm modules) and waits until at least
# N (default 1; 0: do not wait) CXL memdevs exist, all bound by cxl_mem.
load_cxl_stack() {
	/sbin/modprobe -a cxl_acpi cxl_pci cxl_mem cxl_pmem libnvdimm nd_pmem dax_pmem device_dax ||
		return
	[ "${1:-1}" = 0 ] || wait_for 30 all_memdevs_bound "${1:-1}"
}

# all_memdevs_bound [N]: at least N (default 1) memdevs, each with a driver.
all_memdevs_bound() {
	local d n=0
	for d in /sys/bus/cxl/devices/mem*; do
		[ -e "$d/driver" ] || return 1
		n=$((n + 1))
	done
	[ "$n" -ge "${1:-1}" ]
}

# json_has JQ_FILTER CMD...: runs CMD (JSON output) and checks that the jq
# filter yields true; prints the JSON either way.
json_has() {
	local filter=$1 json
	shift
	json=$("$@") || return
	printf '%s\n' "$json"
	jq -e "$filter" >/dev/null <<<"$json" || { echo "expected: $filter"; return 1; }
}

# check_pattern DEV_OR_FILE SEED [patcheck options]: writes a pattern and
# verifies it in a second process.
check_pattern() {
	local target=$1 seed=$2
	shift 2
	"$PATCHECK" write --seed "$seed" "$@" "$target" && "$PATCHECK" verify --seed "$seed" "$@" "$target"
}

# check_devdax DEV [MIB]: pattern through mmap at both ends of a device-dax
# node (MIB MiB each, default 16; device-dax mappings are 2M aligned).
check_devdax() {
	local dev=$1 chunk=$((${2:-16} << 20)) size
	size=$(cat "/sys/bus/dax/devices/${dev#/dev/}/size")
	step "devdax pattern at start of $dev" check_pattern "$dev" 11 --mmap --size "$chunk"
	step "devdax pattern at end of $dev" \
		check_pattern "$dev" 12 --mmap --offset $((size - chunk)) --size "$chunk"
}

# write_test_files DIR: three files through read/write and one through a
# shared mapping (on a DAX mount: stores straight to the device).
write_test_files() {
	local i
	for i in 1 2 3; do
		step "write $1/file$i" "$PATCHECK" write --seed "$i" --size 4M "$1/file$i"
	done
	step "write $1/mapped (mmap)" "$PATCHECK" write --mmap --seed 4 --size 4M "$1/mapped"
}

# verify_test_files DIR: reads back what write_test_files wrote.
verify_test_files() {
	local i
	for i in 1 2 3; do
		step "read back $1/file$i" "$PATCHECK" verify --seed "$i" "$1/file$i"
	done
	step "read back $1/mapped (mmap)" "$PATCHECK" verify --mmap --seed 4 "$1/mapped"
}

# check_dax_fs BLOCKDEV xfs|ext4: makes the filesystem, mounts it with -o dax,
# writes files, syncs, unmounts, drops caches, checks the filesystem,
# remounts and verifies the files.
check_dax_fs() {
	local dev=$1 fs=$2
	mkdir -p "$DAX_MNT"
	case $fs in
	xfs) step "mkfs.xfs $dev" mkfs.xfs -f -m reflink=0 "$dev" ;;
	ext4) step "mkfs.ext4 $dev" mkfs.ext4 -F -q -b 4096 "$dev" ;;
	*) fail "check_dax_fs: unknown filesystem $fs" ;;
	esac
	step "mount -o dax $dev ($fs)" mount -t "$fs" -o dax "$dev" "$DAX_MNT"
	step "$fs is mounted with dax" grep -E "^$dev $DAX_MNT $fs [^ ]*dax" /proc/mounts
	write_test_files "$DAX_MNT"
	step "sync + umount $fs + drop caches" \
		eval "sync && umount $DAX_MNT && echo 3 >/proc/sys/vm/drop_caches"
	case $fs in
	xfs) step "xfs_repair -n $dev" xfs_repair -n "$dev" ;;
	ext4) step "e2fsck -fn $dev" e2fsck -fn "$dev" ;;
	esac
	step "remount $fs" mount -t "$fs" -o dax "$dev" "$DAX_MNT"
	verify_test_files "$DAX_MNT"
	step "umount $fs" umount "$DAX_MNT"
}
