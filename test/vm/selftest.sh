#!/usr/bin/env bash
# Proves the bench can fail: a failing guest step, a kernel WARNING in the
# guest's log and a hung guest must each make run-vm.sh exit non-zero with
# the reason shown; a guest script's '# kernel-expects: 1 TEXT' excuses one
# warning block with TEXT and nothing else (two of them, or another warning
# beside it, fail the run). Run by run-suite.sh as the scenario 'vm-selftest'.
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
cat "$out"/{fail,warn,hang,expects-once,expects-twice,expects-other}.result
exit "$rc"
}
