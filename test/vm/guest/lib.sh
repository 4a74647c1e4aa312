# Helpers for guest scripts run by test/vm/run-vm.sh. Source it first:
#   . "$CXLV/test/vm/guest/lib.sh"
# It turns on errexit/pipefail. Every check fails the script (exit 1) with the
# failing command's output, so a test is a flat list of steps.
# shellcheck shell=bash
set -eo pipefail

PATCHECK=${PATCHECK:-$CXLV/test/tools/bin/patcheck}
# Mount point used by the DAX filesystem checks.
DAX_MNT=${DAX_MNT:-/mnt/dax}

# step NAME CMD...: runs CMD, prints its output under a marker that gives the
# guest's uptime (where a scenario's time goes); on failure prints the exit
# code and fails the script. CMD runs in a subshell (its
# variable assignments are lost) and bash turns errexit off inside it: a
# function given to step must return its failures itself (cmd || return).
step() {
	local name=$1 rc=0 output uptime
	shift
	read -r uptime _ </proc/uptime
	echo "--- step: $name (at ${uptime}s)"
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

# go_test_passed NAME LOG: the -test.v log LOG of a Go test binary shows
# that test NAME ran and passed. The binary exits 0 with NAME skipped, or
# with no test at all when -test.run matches none (NAME renamed).
go_test_passed() {
	if has -E "^--- SKIP: $1 \(" "$2"; then
		echo "$2: $1 was skipped"
		return 1
	fi
	has -E "^--- PASS: $1 \(" "$2" || { echo "$2: no '--- PASS: $1': it did not run"; return 1; }
}

# say MESSAGE: a progress line.
say() { printf '[cxlv] %s\n' "$*"; }

# show CMD...: prints the command line, then runs it (the demos' narration;
# under errexit a failure ends the script).
show() {
	printf '$ %s\n' "$*"
	"$@"
}

# expect_eq WHAT GOT WANT: fails the script unless GOT is WANT.
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}

# fail MESSAGE: fails the script with a message.
fail() {
	echo "--- FAILED: $*"
	exit 1
}

# uptime_ms: a clock busybox has (its date has no %N).
uptime_ms() { awk '{printf "%d\n", $1 * 1000}' /proc/uptime; }

# node_kb NODE FIELD: a field of a NUMA node's meminfo, in kB.
node_kb() { awk -v k="$2:" '$3 == k {print $4}' "/sys/devices/system/node/node$1/meminfo"; }

# wait_for SECONDS CMD...: retries CMD every 0.2 s until it succeeds.
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$deadline" ] || { echo "timed out waiting for: $*"; return 1; }
		sleep 0.2
	done
}

# The module under test and its control files.
CXLV_KO=${CXLV_KO:-/cxlv/kmod/build/$KVER/cxl_virt.ko}
CXLV_SYS=/sys/bus/cxl_virt
CXLV_DBG=/sys/kernel/debug/cxl/cxlv

# load_stack [--qemu] [--ram] [--pmem] [--memdevs N] [--no-cxlv] [PARAM=VALUE...]:
# the one module loader (kmod's modprobe: busybox's cannot load the nvdimm
# modules). Loads cxl_pci, cxl_mem and the drivers a region needs, then
# insmods cxl_virt with the PARAMs and checks its control files.
#   --qemu       QEMU's device: cxl_acpi (its CXL root comes from ACPI), no
#                cxl_virt, and waits for one bound memdev (--memdevs N: N)
#   --ram        RAM regions: cxl_acpi, kmem, device_dax and dax_cxl; where
#                the kernel has no dax_cxl (6.1) the nvdimm drivers and
#                dax_pmem instead (memory through a devdax namespace)
#   --pmem       the nvdimm drivers and dax_pmem as well (the default
#                without --ram)
#   --memdevs N  waits until at least N memdevs exist, all bound by cxl_mem
#   --no-cxlv    leaves cxl_virt out
# Fails the script (or the step it runs in) naming what did not load.
load_stack() {
	local ram=0 pmem=0 cxlv=1 memdevs=0 mods=(cxl_pci cxl_mem)
	local nvdimm=(cxl_pmem libnvdimm nd_pmem dax_pmem)
	while [ $# -gt 0 ]; do
		case $1 in
		--qemu) mods=(cxl_acpi "${mods[@]}") cxlv=0 memdevs=1 ;;
		--ram) ram=1 ;;
		--pmem) pmem=1 ;;
		--memdevs) memdevs=$2 && shift ;;
		--no-cxlv) cxlv=0 ;;
		--*) fail "load_stack: unknown option $1" ;;
		*) break ;;
		esac
		shift
	done
	if [ "$ram" = 1 ]; then
		[ "${mods[0]}" = cxl_acpi ] || mods=(cxl_acpi "${mods[@]}")
		/sbin/modprobe -a "${mods[@]}" kmem device_dax || fail "modprobe ${mods[*]} kmem device_dax"
		/sbin/modprobe -q dax_cxl || /sbin/modprobe -a "${nvdimm[@]}" || fail "modprobe ${nvdimm[*]}"
		[ "$pmem" = 0 ] || /sbin/modprobe -a "${nvdimm[@]}" || fail "modprobe ${nvdimm[*]}"
	else
		/sbin/modprobe -a "${mods[@]}" "${nvdimm[@]}" device_dax || fail "modprobe ${mods[*]} ${nvdimm[*]} device_dax"
	fi
	[ "$memdevs" = 0 ] || wait_for 30 all_memdevs_bound "$memdevs" || fail "fewer than $memdevs memdevs bound"
	[ "$cxlv" = 1 ] || return 0
	insmod "$CXLV_KO" "$@" || fail "insmod $CXLV_KO $*"
	[ -d "$CXLV_SYS" ] || fail "no $CXLV_SYS after insmod"
	[ -w "$CXLV_DBG/create" ] || fail "no $CXLV_DBG/create after insmod"
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

# sysw VALUE FILE: one sysfs write, failing the script with the file's name.
sysw() {
	echo "$1" >"$2" || fail "write '$1' to $2"
}

# make_sysfs_region ROOT_DECODER "ENDPOINT_DECODER..." pmem|ram SIZE [UUID
# [GRANULARITY]]: the one region-create sequence in shell: a region of SIZE
# bytes under the root decoder, as many ways as endpoint decoders are given
# (in position order) at GRANULARITY bytes (default 256), each endpoint
# decoder's DPA allocated for its share, committed
# and bound, written to sysfs the way libcxl does it (ndctl 76.1's
# create-region takes no UUID and cannot make RAM regions); prints the
# region's name.
make_sysfs_region() {
	local root=$1 type=$3 size uuid=${5:-} name r ed pos=0
	local cxl=/sys/bus/cxl/devices
	local -a eds
	read -ra eds <<<"$2"
	size=$(printf '%#x' "$4")
	name=$(cat "$cxl/$root/create_${type}_region")
	sysw "$name" "$cxl/$root/create_${type}_region"
	r=$cxl/$name
	sysw "${6:-256}" "$r/interleave_granularity"
	sysw "${#eds[@]}" "$r/interleave_ways"
	[ -z "$uuid" ] || sysw "$uuid" "$r/uuid"
	sysw "$size" "$r/size"
	for ed in "${eds[@]}"; do
		sysw "$type" "$cxl/$ed/mode"
		sysw "$(printf '%#x' $(($4 / ${#eds[@]})))" "$cxl/$ed/dpa_size"
		sysw "$ed" "$r/target$pos"
		pos=$((pos + 1))
	done
	sysw 1 "$r/commit"
	sysw "$name" /sys/bus/cxl/drivers/cxl_region/bind
	echo "$name"
}
