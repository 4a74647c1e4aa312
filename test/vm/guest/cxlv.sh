# Guest-side helpers for the cxl_virt e2e scenarios (sourced, not run), on
# top of the bench's lib.sh (step, fail, say, expect_eq, load_stack,
# make_sysfs_region, wait_for, check_devdax, check_dax_fs): the control
# files, device create/remove/attributes, regions and namespaces of a cxlvN.
# shellcheck shell=bash
# shellcheck source=test/vm/guest/lib.sh
. "${CXLV:-/cxlv}/test/vm/guest/lib.sh"

# ctl FILE TEXT: writes TEXT to a control file; prints the errno name
# ("OK" on success) so callers can check the failure class.
ctl() {
	local out
	if out=$(printf '%s' "$2" 2>&1 >"$1"); then
		echo OK
		return 0
	fi
	ctl_errno "$out"
}

# ctl_errno MESSAGE: the errno name of a failed write's error message.
ctl_errno() {
	case $1 in
	*"Invalid argument"*) echo EINVAL ;;
	*"No data available"*) echo ENODATA ;;
	*"result too large"* | *"Numerical result out of range"*) echo ERANGE ;;
	*"Operation not supported"*) echo EOPNOTSUPP ;;
	*"Device or resource busy"*) echo EBUSY ;;
	*"Cannot assign requested address"*) echo EADDRNOTAVAIL ;;
	*"File exists"*) echo EEXIST ;;
	*"No space left"*) echo ENOSPC ;;
	*"Too many open files"*) echo EMFILE ;;
	*"No such device or address"*) echo ENXIO ;;
	*"No such device"*) echo ENODEV ;;
	*"Argument list too long"*) echo E2BIG ;;
	*"Operation not permitted"*) echo EPERM ;;
	*"Cannot allocate memory"*) echo ENOMEM ;;
	*"No such file or directory"*) echo ENOENT ;;
	*"timed out"*) echo ETIMEDOUT ;;
	*"Interrupted system call"*) echo EINTR ;;
	*) echo "OTHER($1)" ;;
	esac
}

# ctl_raw FILE FORMAT: like ctl, but writes printf FORMAT in one write(2),
# so the text can hold NUL bytes (\0) that a shell variable cannot.
ctl_raw() {
	local out
	# shellcheck disable=SC2059 # the format is the point
	if out=$(printf "$2" 2>&1 >"$1"); then
		echo OK
		return 0
	fi
	ctl_errno "$out"
}

# create TEXT: creates through debugfs; prints the new cxlvN name.
create() {
	local before r d
	before=" $(ls /sys/bus/cxl_virt/devices | tr '\n' ' ')"
	r=$(ctl "$CXLV_DBG/create" "$1")
	[ "$r" = OK ] || fail "create '$1': $r: $(cat $CXLV_SYS/last_error)"
	for d in $(ls /sys/bus/cxl_virt/devices); do
		[[ $before == *" $d "* ]] || echo "$d"
	done
}

remove() {
	local r
	r=$(ctl "$CXLV_DBG/remove" "cxlv_dev_id=${1#cxlv}")
	[ "$r" = OK ] || fail "remove $1: $r: $(cat $CXLV_SYS/last_error)"
}

attr() { cat "/sys/bus/cxl_virt/devices/$1/$2"; }

# wait_ready DEV [SECONDS]: until cxl_mem has bound the device's memdev.
wait_ready() {
	local i
	for ((i = 0; i < ${2:-60} * 10; i++)); do
		[ -n "$(attr "$1" memdev)" ] && return 0
		sleep 0.1
	done
	fail "$1: memdev not bound after ${2:-60}s (state $(attr "$1" state))"
}

device_count() { ls /sys/bus/cxl_virt/devices | wc -l; }

# no_kernel_complaints: dmesg has no claim/enable failures of our devices.
no_kernel_complaints() {
	if dmesg | grep -E "not claimed|can't enable|failed to enumerate|cxl_virt.*(error|fail)" |
		grep -v "create:\|remove:\|module verification failed"; then
		fail "kernel complained (above)"
	fi
}

# rescans_start: global PCI rescans back to back in the background (each one
# scans, assigns and adds the devices of every root bus) until rescans_stop,
# which sets RESCAN_COUNT to how many ran and fails if none did.
rescans_start() {
	rm -f /tmp/rescan.stop /tmp/rescan.count
	(
		n=0
		while [ ! -e /tmp/rescan.stop ]; do
			echo 1 >/sys/bus/pci/rescan
			n=$((n + 1))
		done
		echo "$n" >/tmp/rescan.count
	) &
	RESCAN_PID=$!
}

rescans_stop() {
	touch /tmp/rescan.stop
	wait "$RESCAN_PID" || fail "PCI rescan loop failed"
	RESCAN_COUNT=$(cat /tmp/rescan.count)
	[ "$RESCAN_COUNT" -gt 0 ] || fail "no PCI rescan ran"
}

# now_us: wall clock in microseconds (busybox date has no %N).
now_us() { echo "${EPOCHREALTIME/./}"; }

# make_region DEV: a 1-way pmem region over all of DEV's memdev; prints its
# name.
make_region() {
	local json
	json=$(cxl create-region -m -d "$(attr "$1" decoder)" -w 1 -t pmem "$(attr "$1" memdev)") ||
		fail "cxl create-region on $1 failed"
	jq -r .region <<<"$json"
}

# drop_region REGION: disables and destroys a region.
drop_region() {
	step "disable $1" cxl disable-region "$1"
	step "destroy $1" cxl destroy-region "$1"
}

# make_namespace REGION MODE [ndctl options]: prints the namespace JSON.
make_namespace() {
	local region=$1 mode=$2
	shift 2
	ndctl create-namespace -r "$region" -m "$mode" "$@" || fail "ndctl create-namespace -r $region -m $mode failed"
}

# nmem_of CXLV_DEV: the nvdimm of a device; its nvdimm bus hangs below the
# device's own CXL root.
nmem_of() {
	local n
	for n in /sys/bus/nd/devices/nmem*; do
		readlink -f "$n" | has "/cxl_virt/$1/" && basename "$n" && return 0
	done
	return 1
}

# cxl_count ARGS...: how many objects `cxl list ARGS` prints (it prints a bare
# object for one, an array for several, and `[]` or nothing for none).
cxl_count() {
	cxl list "$@" 2>/dev/null | jq -s '[.[] | if type == "array" then .[] else . end] | length'
}

# endpoint_decoder MEMDEV: the first decoder of MEMDEV's endpoint port.
endpoint_decoder() {
	local ep
	ep=$(cxl list -E | jq -r --arg m "$1" \
		'[.. | objects | select(.host? == $m) | .endpoint][0]')
	echo "decoder${ep#endpoint}.0"
}

# sysfs_region DEV pmem|ram [UUID]: a whole-device region of DEV (all its
# endpoints, in position order, at its granularity) through sysfs
# (make_sysfs_region); prints the region name.
sysfs_region() {
	local m eds=
	for m in $(attr "$1" memdev); do
		eds+="${eds:+ }$(endpoint_decoder "$m")"
	done
	make_sysfs_region "$(attr "$1" decoder)" "$eds" "$2" "$(attr "$1" capacity)" "${3:-}" \
		"$(attr "$1" granularity)"
}

# remake_region DEV UUID: re-creates DEV's whole-device pmem region with a
# known UUID, so the namespaces in the device's labels come back.
remake_region() {
	sysfs_region "$1" pmem "$2"
}

# labelled_namespace REGION UUID MODE: waits until the namespace UUID comes
# back in REGION from the labels and checks its MODE; sets NS to its JSON.
labelled_namespace() {
	step "namespace back from labels" wait_for 30 eval \
		"ndctl list -N -r $1 | jq -e '[.. | objects | select(.uuid? == \"$2\")] | length == 1'"
	NS=$(ndctl list -N -r "$1" | jq -c '[.. | objects | select(.uuid? == "'"$2"'")][0]')
	expect_eq "namespace mode" "$(jq -r .mode <<<"$NS")" "$3"
}

# recreate DEV SPEC REGION_UUID NS_UUID MODE: removes the idle DEV, creates
# SPEC again (same serials), re-creates its region with REGION_UUID and waits
# for the namespace NS_UUID of MODE from the labels; sets DEV, REGION and NS.
recreate() {
	local serials
	serials=$(attr "$1" serials)
	remove "$1"
	DEV=$(create "$2")
	wait_ready "$DEV"
	expect_eq "serials after re-create" "$(attr "$DEV" serials)" "$serials"
	REGION=$(remake_region "$DEV" "$3")
	say "re-created $REGION with uuid $3"
	labelled_namespace "$REGION" "$4" "$5"
}

# reserved_covers ADDR: a top-level "Reserved" entry of /proc/iomem holds ADDR
# (firmware may merge a memmap= range with a neighbouring reserved area).
reserved_covers() {
	local range name lo hi
	while IFS= read -r line; do
		[[ $line == " "* ]] && continue
		range=${line%% : *} name=${line#* : }
		[ "$name" = Reserved ] || continue
		lo=$((0x${range%-*})) hi=$((0x${range#*-}))
		[ "$1" -ge "$lo" ] && [ "$1" -le "$hi" ] && return 0
	done </proc/iomem
	return 1
}

# cxl_one ARGS...: the first object `cxl list ARGS` prints, bare or in an array.
cxl_one() {
	cxl list "$@" | jq -s '[.[] | if type == "array" then .[] else . end][0]'
}

# teardown_set NAMESPACE REGION DEV: destroys the namespace and the region
# and removes the device, the last one.
teardown_set() {
	step "destroy $1" ndctl destroy-namespace -f "$1"
	drop_region "$2"
	expect_eq "$3 state without a region" "$(attr "$3" state)" ready
	remove "$3"
	expect_eq "devices after remove" "$(device_count)" 0
}

# teardown_all NAMESPACE REGION DEV: teardown_set, then unloads the module
# and checks the kernel log.
teardown_all() {
	teardown_set "$@"
	rmmod cxl_virt
	no_kernel_complaints
}
