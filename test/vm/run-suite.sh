#!/usr/bin/env bash
# Runs the bench self-test (vm-selftest) and every end-to-end scenario
# (test/e2e/*.sh with a '# vm:' header line giving its run-vm.sh options),
# one VM boot each, sequentially (E2E_JOBS=2: two at a time).
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

jobs_max=${E2E_JOBS:-1}
kver=${E2E_KVER:-$(guest_kver)}
kernel_image "$kver" >/dev/null ||
	die "E2E_KVER: no guest kernel /boot/vmlinuz-$kver (nor in the trixie root); run 'make deps'"
export CXLV_USERSPACE
CXLV_USERSPACE=$(guest_userspace "$kver")
[[ $jobs_max =~ ^[1-9][0-9]*$ ]] || die "E2E_JOBS wants a positive number, got '$jobs_max'"
bash "$repo_root/test/tools/build.sh"
# A directory per run: suites started by different people must not collide.
mkdir -p "$here/out"
results=$(mktemp -d "$here/out/suite-$kver.XXXXXX")
ln -sfn "$(basename "$results")" "$here/out/suite-latest-$kver"
userspace="$CXLV_USERSPACE user space ($(dpkg-query --admindir="$([ "$CXLV_USERSPACE" = trixie ] && echo "$cache_dir/trixie-root")/var/lib/dpkg" -W -f='ndctl ${Version}' ndctl))"
echo "kernel $kver, $userspace, ${E2E_SET:-whole} set${E2E_FILTER:+ (E2E_FILTER $E2E_FILTER)}, logs: $results"

# run_scenario NAME CMD...: runs CMD with its output in NAME.log, prints the
# verdict in one write (jobs may finish together) and records it in
# NAME.verdict.
run_scenario() {
	local name=$1 start=$SECONDS report
	shift
	if "$@" >"$results/$name.log" 2>&1; then
		echo pass >"$results/$name.verdict"
		echo "PASS $name ($((SECONDS - start))s)"
		return
	fi
	echo fail >"$results/$name.verdict"
	report=$(
		echo "FAIL $name ($((SECONDS - start))s), log: $results/$name.log"
		{
			grep -E -e '--- FAILED|^\[vm\]' "$results/$name.log" || true
			echo "... last lines:"
			tail -n 30 "$results/$name.log"
		} 2>&1 | sed 's/^/    /'
	) || true
	printf '%s\n' "$report"
}

# start NAME CMD...: runs the scenario when E2E_FILTER selects it, in the
# background while fewer than E2E_JOBS run.
start() {
	[[ $1 =~ ${E2E_FILTER:-} ]] || return 0
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
		wait -n || true
	done
	run_scenario "$@" &
}

suite_start=$SECONDS
[ -n "${E2E_SET:-}" ] || [ "${E2E_SELFTEST:-1}" = 0 ] ||
	start vm-selftest env KVER="$kver" bash "$here/selftest.sh" "$results/vm-selftest"
for test in "$repo_root"/test/e2e/*.sh; do
	is_scenario "$test" || continue
	runs_on_kernel "$test" "$kver" || continue
	[ -z "${E2E_SET:-}" ] || in_set "$test" "$E2E_SET" || continue
	name=$(basename "$test" .sh)
	read -ra opts <<<"$(vm_options "$test")"
	start "$name" bash "$here/run-vm.sh" --kver "$kver" "${opts[@]}" --out "$results/$name" -- "test/e2e/$name.sh"
done
wait
passed=$(cat "$results"/*.verdict 2>/dev/null | grep -c pass || true)
failed=$(cat "$results"/*.verdict 2>/dev/null | grep -c fail || true)
echo "$passed passed, $failed failed on $kver, $userspace, in $((SECONDS - suite_start))s"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
}
