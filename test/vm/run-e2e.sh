#!/usr/bin/env bash
# make e2e: one suite per guest kernel given, as scripts/guest-kernels.sh
# says: the whole suite on a suite kernel (and on one it does not list), the
# smoke set ('# sets: smoke') on a smoke kernel, each with its own
# distribution's user space. The bench self-test runs once, first.
# Every suite's boots join one pool (test/vm/suite.sh), so no suite waits for
# the last boot of the one before; a failure in one still runs the rest. Ends
# with one line per suite and exits non-zero if any failed.
#   run-e2e.sh KVER...
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/vm/common.sh
. "$here/common.sh"
[ $# -gt 0 ] || die "usage: run-e2e.sh KVER... (make e2e passes scripts/guest-kernels.sh's)"

# shellcheck source=test/vm/suite.sh
. "$here/suite.sh"

bash "$repo_root/test/tools/build.sh"
e2e_start=$SECONDS selftest=1
for kver in "$@"; do
	set=''
	[ "$(bash "$repo_root/scripts/guest-kernels.sh" --role "$kver")" != smoke ] || set=smoke
	queue_suite "$kver" "$(guest_userspace "$kver")" "$set" $selftest
	selftest=0
done
rc=0
wait
echo "make e2e:"
report_suites "  " || rc=1
echo "  in $((SECONDS - e2e_start))s"
exit $rc
