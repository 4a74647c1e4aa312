#!/usr/bin/env bash
# Runs the bench self-test (vm-selftest) and every end-to-end scenario
# (test/e2e/*.sh with a '# vm:' header line giving its run-vm.sh options),
# one VM boot each, sequentially. E2E_FILTER=REGEX selects by name. Prints
# PASS/FAIL per scenario (with the log tail on failure) and ends with
# 'N passed, N failed'; exits non-zero on any failure.
# One brace group: bash parses it whole before running, so editing this file
# cannot break a run in progress.
{
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/vm/common.sh
. "$here/common.sh"

bash "$repo_root/test/tools/build.sh"
# A directory per run: suites started by different people must not collide.
mkdir -p "$here/out"
results=$(mktemp -d "$here/out/suite.XXXXXX")
ln -sfn "$(basename "$results")" "$here/out/suite-latest"
echo "logs: $results"
passed=0 failed=0

# run_scenario NAME CMD...: runs CMD with its output in NAME.log and reports.
run_scenario() {
	local name=$1 start=$SECONDS
	shift
	[[ $name =~ ${E2E_FILTER:-} ]] || return 0
	if "$@" >"$results/$name.log" 2>&1; then
		echo "PASS $name ($((SECONDS - start))s)"
		passed=$((passed + 1))
	else
		echo "FAIL $name ($((SECONDS - start))s), log: $results/$name.log"
		{
			grep -E -e '--- FAILED|^\[vm\]' "$results/$name.log" || true
			echo "... last lines:"
			tail -n 30 "$results/$name.log"
		} 2>&1 | sed 's/^/    /' || true
		failed=$((failed + 1))
	fi
}

run_scenario vm-selftest bash "$here/selftest.sh" "$results/vm-selftest"
for test in "$repo_root"/test/e2e/*.sh; do
	is_scenario "$test" || continue
	name=$(basename "$test" .sh)
	read -ra opts <<<"$(vm_options "$test")"
	run_scenario "$name" bash "$here/run-vm.sh" "${opts[@]}" --out "$results/$name" -- "test/e2e/$name.sh"
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
}
