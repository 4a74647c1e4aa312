# Guest-side helpers for the cxlvctl region scenarios (sourced, not run): the
# binary under test, and a snapshot of what a region create must leave as it
# found it when it fails.
# shellcheck shell=bash

# region_setup [CXLVCTL]: CXLVCTL is the binary under test (default
# bin/cxlvctl), run from tmpfs: loading it over 9p on every call dominates
# wall times. The cxlvctl-info beside it goes along (`info` execs it from
# its own directory).
region_setup() {
	local dir
	CXLVCTL=${1:-$CXLV/bin/cxlvctl}
	[ -x "$CXLVCTL" ] || fail "no $CXLVCTL: build it first (make build)"
	dir=$(dirname "$CXLVCTL")
	[ ! -x "$dir/cxlvctl-info" ] || cp "$dir/cxlvctl-info" /tmp/cxlvctl-info
	cp "$CXLVCTL" /tmp/cxlvctl && CXLVCTL=/tmp/cxlvctl
}

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

# same_state BEFORE [STATE]: the current state (cxl_state, or the function
# STATE) equals BEFORE (prints the difference).
same_state() {
	local now
	now=$("${2:-cxl_state}")
	[ "$now" = "$1" ] || {
		diff <(echo "$1") <(echo "$now")
		return 1
	}
}

# interrupted_create SIGN STATE ARGS...: SIGINT to `cxlvctl region create
# ARGS` as soon as the command SIGN succeeds (region_made: its first CXL
# write; region_committed: the last region step, before the bind that adds
# the memory, the longest step). It exits 130 with one line saying where it
# stopped and that it rolled back, and the function STATE prints what it
# printed before. Each sign leaves the create long work still to do: one
# that finished before the signal fails.
interrupted_create() {
	local sign=$1 state=$2 initial pid rc err
	shift 2
	initial=$("$state")
	"$CXLVCTL" region create "$@" >"$OUT/interrupted.out" 2>"$OUT/interrupted.err" &
	pid=$!
	until "$sign" || ! kill -0 "$pid" 2>/dev/null; do :; done
	kill -INT "$pid" 2>/dev/null
	rc=0
	wait "$pid" || rc=$?
	cat "$OUT/interrupted.out" "$OUT/interrupted.err"
	[ "$rc" = 130 ] || { echo "exit $rc, want 130 (the signal came after the create had finished?)"; return 1; }
	err=$(grep '^cxlvctl: ' "$OUT/interrupted.err")
	[ "$(wc -l <<<"$err")" = 1 ] &&
		has -E '^cxlvctl: region create: interrupted by SIGINT (before writing .*|while waiting for .*|before it finished); nothing was left behind$' <<<"$err" ||
		{ echo "want one line saying where it stopped and that nothing was left behind"; return 1; }
	same_state "$initial" "$state"
}

# region_made: a region device exists (interrupted_create's signs).
region_made() { compgen -G '/sys/bus/cxl/devices/region*' >/dev/null; }
# region_committed: a region's decoders are committed.
region_committed() { grep -qx 1 /sys/bus/cxl/devices/region*/commit 2>/dev/null; }
