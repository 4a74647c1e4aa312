#!/bin/bash
# Guest half of a shared boot (test/vm/suite.sh, '# boot: NAME' headers):
# runs each scenario given, one after the other, as its own boot would:
# its output in /out/NAME/guest.log, its exit code in /out/NAME/rc, its
# time in /out/NAME/seconds and the kernel log it caused in
# /out/NAME/dmesg.txt (read and cleared after it, so one scenario's lines
# neither mix with the next one's nor push them out of the ring buffer;
# the boot's own lines go to /out/boot-dmesg.txt). OUT is /out/NAME.
# Between scenarios the machine goes back to how a fresh boot has it: the
# memmap= ranges zeroed (a device's labels, passphrases and data live in
# its range), debugfs mounted; a scenario that leaves a region, a DAX mount
# or a cxl_virt it cannot unload fails, and what it left is torn down so the
# next one starts clean.
#   boot-group.sh "test/e2e/A.sh" "test/vm/guest/selftest.sh fail"...
# (each argument one scenario: a script and its arguments; it is named as
# scenario_name in test/vm/common.sh does: A, selftest-fail)
# Exits 0, or 1 when a scenario failed. One brace group: bash parses it
# whole before running, so editing this file cannot break a run in progress.
{
# shellcheck source=test/vm/guest/lib.sh
. "$CXLV/test/vm/guest/lib.sh"
set +e

# Each scenario gets the time a boot of its own would (run-vm.sh's default).
SCENARIO_TIMEOUT=600

# leftovers: what a scenario left behind that a fresh boot would not have,
# torn down after it is named.
leftovers() {
	local r
	grep -q " $DAX_MNT " /proc/mounts && echo "$DAX_MNT is still mounted" && umount "$DAX_MNT"
	for r in /sys/bus/cxl/devices/region*; do
		[ -e "$r" ] || continue
		echo "region ${r##*/} still exists"
		cxl destroy-region -f "${r##*/}" >/dev/null 2>&1
	done
	if grep -q '^cxl_virt ' /proc/modules && ! rmmod cxl_virt 2>&1; then
		echo "cxl_virt cannot be unloaded"
	fi
}

# zero_ranges: every memmap=SIZE$START range of the command line back to
# the zeros a fresh machine has (the test module cxlv_test_claim, zero=1:
# /dev/mem stops at the end of the kernel's direct map).
zero_ranges() {
	local arg size start
	for arg in $(cat /proc/cmdline); do
		[[ $arg =~ ^memmap=([0-9]+)([MG])\$(0x[0-9a-f]+)$ ]] || continue
		size=$((BASH_REMATCH[1] << 20)) start=${BASH_REMATCH[3]}
		[ "${BASH_REMATCH[2]}" = M ] || size=$((size << 10))
		insmod "$CXLV/test/claim/build/$KVER/cxlv_test_claim.ko" start="$start" size="$size" zero=1 &&
			rmmod cxlv_test_claim || echo "--- FAILED: cannot zero $arg"
	done
}

rc=0
dmesg -c >/out/boot-dmesg.txt
for scenario in "$@"; do
	read -ra command <<<"$scenario"
	name=$(basename "${command[0]}" .sh)
	[ "${#command[@]}" = 1 ] || name=$(IFS=-; echo "$name-${command[*]:1}")
	mkdir -p "/out/$name"
	echo "=== SCENARIO-BEGIN $name"
	began=$SECONDS
	OUT=/out/$name timeout -k 10 "$SCENARIO_TIMEOUT" bash "${command[@]}" </dev/null >"/out/$name/guest.log" 2>&1
	scenario_rc=$?
	[ "$scenario_rc" != 124 ] || echo "--- FAILED: no end after ${SCENARIO_TIMEOUT}s" >>"/out/$name/guest.log"
	left=$(leftovers)
	if [ -n "$left" ]; then
		printf -- '--- FAILED: left behind for the next scenario: %s\n' "$left" >>"/out/$name/guest.log"
		[ "$scenario_rc" != 0 ] || scenario_rc=1
	fi
	grep -q " /sys/kernel/debug debugfs " /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug
	if [ "$scenario" != "${*: -1}" ]; then
		zero_ranges >>"/out/$name/guest.log"
		[ "$scenario_rc" != 0 ] || ! has -- '--- FAILED: cannot zero' "/out/$name/guest.log" || scenario_rc=1
	fi
	dmesg -c >"/out/$name/dmesg.txt"
	echo $((SECONDS - began)) >"/out/$name/seconds"
	echo "$scenario_rc" >"/out/$name/rc"
	echo "=== SCENARIO-END $name rc=$scenario_rc"
	[ "$scenario_rc" = 0 ] || rc=1
done
exit "$rc"
}
