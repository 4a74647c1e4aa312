#!/usr/bin/env bash
# make stress: the full counts of the reliability tests (issue 7), where
# `make test` runs bounded ones. The parser harness in user space, then each
# test/e2e/reliability-*.sh scenario and cxlv-mailbox.sh (decoder commit
# cycles, issue 14; cxl_pci reloads) in one VM with its stress settings
# (KEY=VALUE arguments the scenario reads), on the first suite kernel it runs
# on (cxlv-hypervisor: 6.12 and later). Prints `N passed, N failed`.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=test/vm/common.sh
. "$root/test/vm/common.sh"
cd "$root" || exit
out=test/vm/out/stress
mkdir -p "$out"

declare -A settings=(
	[reliability-fuzz]="FUZZ_SEED=2 FUZZ_COUNT=50000"
	[reliability-lifecycle]="LIFE_CYCLES=200 MOD_CYCLES=50 RACE_ROUNDS=50 REGION_RACES=10 RMMOD_RACES=20"
	[reliability-data]=""
	[cxlv-mailbox]="COMMIT_CYCLES=500 RELOAD_CYCLES=50"
	[cxlv-hypervisor]="UNLOAD_RACES=50"
)
passed=0 failed=0

result() {
	if [ "$2" = 0 ]; then
		echo "PASS $1 ($3 s)"
		passed=$((passed + 1))
	else
		echo "FAIL $1 ($3 s, exit $2)"
		failed=$((failed + 1))
	fi
}

start=$SECONDS
make -s -C test/fuzz test FUZZ_SEED=2 FUZZ_COUNT=500000 >"$out/harness.log" 2>&1
rc=$?
tail -3 "$out/harness.log"
result fuzz-harness "$rc" $((SECONDS - start))

for script in test/e2e/reliability-*.sh test/e2e/cxlv-mailbox.sh test/e2e/cxlv-hypervisor.sh; do
	name=$(basename "$script" .sh)
	for kver in $(bash scripts/guest-kernels.sh --suite); do
		runs_on_kernel "$script" "$kver" && break
	done
	read -r -a vm <<<"$(vm_options "$script")"
	read -r -a args <<<"${settings[$name]:-}"
	start=$SECONDS
	test/vm/run-vm.sh --kver "$kver" "${vm[@]}" --timeout 5400 --out "$out/$name" -- "$script" "${args[@]}" >"$out/$name.log" 2>&1
	rc=$?
	grep -E '^\s*\[cxlv\]' "$out/$name.log" | tail -20
	result "$name" "$rc" $((SECONDS - start))
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
