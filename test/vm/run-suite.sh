#!/usr/bin/env bash
# Runs the bench self-test (vm-selftest) and every end-to-end scenario
# (test/e2e/*.sh with a '# vm:' header line giving its run-vm.sh options),
# one VM boot each (E2E_JOBS=2: two at a time; test/vm/suite.sh).
# E2E_FILTER=REGEX selects by name; E2E_KVER=RELEASE picks the guest kernel
# (default: the 6.1 one), and scenarios with a '# kernels: X.Y ...' line run
# only on those kernel series. E2E_SET=smoke runs only the scenarios with a
# '# sets: smoke' line; E2E_SELFTEST=0 leaves out the self-test (make e2e runs
# it once, test/vm/run-e2e.sh). Prints PASS/FAIL per scenario (with the log
# tail on failure) and ends with 'N passed, N failed'; exits non-zero on any
# failure.
# One brace group: bash parses it whole before running, so editing this file
# cannot break a run in progress.
{
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/vm/common.sh
. "$here/common.sh"
# shellcheck source=test/vm/suite.sh
. "$here/suite.sh"

kver=${E2E_KVER:-$(guest_kver)}
bash "$repo_root/test/tools/build.sh"
suite_start=$SECONDS
queue_suite "$kver" "${CXLV_USERSPACE:-$(guest_userspace "$kver")}" "${E2E_SET:-}" "${E2E_SELFTEST:-1}"
rc=0
report_suites || rc=1
echo "in $((SECONDS - suite_start))s"
exit $rc
}
