# Guest-side helpers for the cxlvctl region scenarios (sourced, not run): a
# snapshot of what a region create must leave as it found it when it fails.
# shellcheck shell=bash

# cxl_state: the CXL and nd devices, each endpoint decoder's DPA and region,
# and the pmem/dax device nodes. (Decoder mode is left out: the kernel cannot
# set it back to "none" once it was set.)
cxl_state() {
	local d
	for d in /sys/bus/cxl/devices/* /sys/bus/nd/devices/* /dev/pmem* /dev/dax*; do
		[ -e "$d" ] && echo "$d"
	done
	for d in /sys/bus/cxl/devices/decoder*; do
		[ -e "$d/dpa_size" ] || continue
		echo "${d##*/} dpa_size=$(cat "$d/dpa_size") dpa_resource=$(cat "$d/dpa_resource") region=$(cat "$d/region")"
	done
}

# same_state BEFORE: the current state equals BEFORE (prints the difference).
same_state() {
	local now
	now=$(cxl_state)
	[ "$now" = "$1" ] || {
		diff <(echo "$1") <(echo "$now")
		return 1
	}
}
