# Guest-side helpers for the cxlvctl e2e scenarios (sourced, not run), on
# top of the bench's lib.sh (errexit, step, fail, say, has, load_stack):
#   . "$CXLV/test/vm/guest/cxlvctl.sh"
# Checks that bin/cxlvctl, bin/cxlvctl-info and bin/cxlvctl.test (make build, CGO_ENABLED=0)
# exist, and gives a cxlvctl function, expect_fail and live_check (cxlvctl
# list --json against cxl list and ndctl list of this boot).
# shellcheck shell=bash
# shellcheck source=test/vm/guest/lib.sh
. "${CXLV:-/cxlv}/test/vm/guest/lib.sh"

bin=/cxlv/bin
for f in $bin/cxlvctl $bin/cxlvctl-info $bin/cxlvctl.test; do
	[ -x "$f" ] || fail "no $f: run 'make build' on the host first"
done
cxlvctl() { $bin/cxlvctl "$@"; }

# expect_fail CODE WHAT ARGS...: cxlvctl exits CODE with exactly one line
# on stderr that contains WHAT, and nothing on stdout.
expect_fail() {
	local code=$1 what=$2 out err rc=0
	shift 2
	out=$(cxlvctl "$@" 2>/tmp/err) || rc=$?
	err=$(cat /tmp/err)
	[ "$rc" = "$code" ] || fail "cxlvctl $*: exit $rc, want $code (stderr: $err)"
	[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "cxlvctl $*: stderr is not one line: $err"
	[[ $err == *"$what"* ]] || fail "cxlvctl $*: stderr '$err' lacks '$what'"
	[ -z "$out" ] || fail "cxlvctl $*: printed '$out' on a failure"
	say "ok: cxlvctl $* -> exit $rc: $err"
}

# live_check NAME: saves cxlvctl list --json, cxl list -M -D -R and ndctl
# list -v -R -N to $OUT, then compares them object by object
# (TestLiveCrossCheck in cmd/cxlvctl).
live_check() {
	cxlvctl list --json >"$OUT/cxlvctl-list-$1.json" || fail "list --json ($1)"
	cxl list -M -D -R >"$OUT/cxl-list-$1.json" || fail "cxl list ($1)"
	ndctl list -v -R -N >"$OUT/ndctl-list-$1.json" || fail "ndctl list ($1)"
	local log=$OUT/crosscheck-$1.log
	CXLV_LIVE_CROSSCHECK=1 $bin/cxlvctl.test -test.run 'TestLiveCrossCheck$' -test.v >"$log" 2>&1 ||
		{ cat "$log"; fail "cxlvctl list --json differs from cxl list / ndctl list ($1)"; }
	go_test_passed TestLiveCrossCheck "$log" || { cat "$log"; fail "the live cross-check did not run ($1)"; }
	say "ok: list --json matches cxl list and ndctl list ($1)"
}
