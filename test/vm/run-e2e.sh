#!/usr/bin/env bash
# make e2e: run-suite.sh once per guest kernel given, as
# scripts/guest-kernels.sh says: the whole suite on a suite kernel (and on
# one it does not list), the smoke set ('# sets: smoke') on a smoke kernel.
# A trixie kernel that guest-kernels.sh marks bookworm-smoke runs the smoke
# set a second time with Debian 12's user space (ndctl 76.1). The bench self-test runs once, in the first run. A failure in one
# run still runs the next; ends with one line per run and exits non-zero if
# any failed.
#   run-e2e.sh KVER...
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/vm/common.sh
. "$here/common.sh"
[ $# -gt 0 ] || die "usage: run-e2e.sh KVER... (make e2e passes scripts/guest-kernels.sh's)"

selftest=1 rc=0 summary=()
# suite USERSPACE SET KVER: one run-suite.sh run, its verdict in summary.
suite() {
	local userspace=$1 set=$2 kver=$3 start=$SECONDS verdict=PASS
	CXLV_USERSPACE=$userspace E2E_SET=$set E2E_SELFTEST=$selftest E2E_KVER=$kver \
		bash "$here/run-suite.sh" || verdict=FAIL rc=1
	selftest=0
	summary+=("$verdict $kver, $userspace user space, ${set:-whole} set ($((SECONDS - start))s)")
}

for kver in "$@"; do
	set=''
	[ "$(bash "$repo_root/scripts/guest-kernels.sh" --role "$kver")" != smoke ] || set=smoke
	userspace=$(guest_userspace "$kver")
	suite "$userspace" "$set" "$kver"
	if [ "$userspace" = trixie ] && bash "$repo_root/scripts/guest-kernels.sh" --bookworm-smoke "$kver"; then
		suite bookworm smoke "$kver"
	fi
done
echo "make e2e:"
printf '  %s\n' "${summary[@]}"
exit $rc
