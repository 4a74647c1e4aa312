#!/usr/bin/env bash
# Proves the bench can fail: a failing guest step, a kernel WARNING in the
# guest's log and a hung guest must each make run-vm.sh exit non-zero with
# the reason shown; a guest script's '# kernel-expects: 1 TEXT' excuses one
# warning block with TEXT and nothing else (two of them, or another warning
# beside it, fail the run); in a shared boot (suite.sh run_group) the
# scenario with the failing step and the one with the WARNING fail, each
# with its reason, and the one between them passes. Run by run-suite.sh as
# the scenario 'vm-selftest'.
# One brace group: bash parses it whole before running, so editing this file
# cannot break a run in progress.
{
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/vm/common.sh
. "$here/common.sh"
out=${1:-$here/out/selftest}	# KVER in the environment picks the kernel

# expect MODE WANT_RC WANT_TEXT [run-vm options]: runs the misbehaving guest
# and checks run-vm.sh's exit code and that its output names the reason.
# A MODE of expects-M runs selftest-expects.sh M.
expect() {
	local mode=$1 want_rc=$2 want_text=$3 rc=0 guest=test/vm/guest/selftest.sh
	shift 3
	case $mode in expects-*) guest=test/vm/guest/selftest-expects.sh ;; esac
	bash "$here/run-vm.sh" ${KVER:+--kver "$KVER"} "$@" --out "$out/$mode" -- "$guest" "${mode#expects-}" \
		>"$out/$mode.log" 2>&1 || rc=$?
	if [ "$rc" != "$want_rc" ] || ! grep -q -- "$want_text" "$out/$mode.log"; then
		echo "selftest $mode: run-vm.sh exited $rc (want $want_rc) or did not print '$want_text'"
		tail -n 20 "$out/$mode.log"
		return 1
	fi
	echo "selftest $mode: exit $rc, '$want_text' shown: ok"
}

# expect_group: one shared boot of a failing, a passing and a warning
# scenario; each must get its own verdict and the failures their reason.
expect_group() {
	local results=$out/group verdicts
	# shellcheck source=test/vm/suite.sh
	. "$here/suite.sh"
	mkdir -p "$results"
	rm -f "$results"/*.verdict
	run_group "$results" selftest "${KVER:-$(guest_kver)}" "$(guest_userspace "${KVER:-$(guest_kver)}")" \
		selftest "--mem 2G" "test/vm/guest/selftest.sh fail" test/vm/guest/noop.sh \
		"test/vm/guest/selftest.sh warn" >"$out/group.log" 2>&1
	verdicts=$(cd "$results" && grep -H . selftest-fail.verdict noop.verdict selftest-warn.verdict | tr '\n' ' ')
	if [ "$verdicts" != "selftest-fail.verdict:fail noop.verdict:pass selftest-warn.verdict:fail " ] ||
		! grep -q 'FAILED step: a step that fails' "$results/selftest-fail.log" ||
		! grep -q 'WARNING: CPU: 0 PID: .* at selftest' "$results/selftest-warn.log"; then
		echo "selftest group: verdicts '$verdicts' (want fail, pass, fail) or a reason missing"
		cat "$out/group.log"
		return 1
	fi
	echo "selftest group: $verdicts, reasons shown: ok"
}
mkdir -p "$out"
# In parallel: the hang takes the longest, the other two fit beside it.
expect hang 124 'guest hung: killed after 40s' --timeout 40 >"$out/hang.result" &
hang=$!
expect fail 1 'FAILED step: a step that fails' >"$out/fail.result" &
fail=$!
rc=0
expect warn 3 'WARNING: CPU: 0 PID: 1 at selftest' >"$out/warn.result" || rc=1
wait "$fail" || rc=1
expect expects-once 0 'guest exit 0' >"$out/expects-once.result" || rc=1
wait "$hang" || rc=1
expect expects-twice 3 "2 warning block(s) with 'selftest: the one expected warning', the guest script expects 1" \
	>"$out/expects-twice.result" &
twice=$!
expect expects-other 3 'WARNING: CPU: 0 PID: 1 at selftest-expects.sh block' >"$out/expects-other.result" || rc=1
wait "$twice" || rc=1
expect_group >"$out/group.result" || rc=1
cat "$out"/{fail,warn,hang,expects-once,expects-twice,expects-other,group}.result
exit "$rc"
}
