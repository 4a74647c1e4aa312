# Sourced by run-suite.sh and run-e2e.sh: one pool of guest boots (E2E_JOBS at
# a time) that the scenarios of every suite queued join, so a suite's last,
# long boot runs beside the next suite's first instead of alone on the
# machine. queue_suite starts a suite's boots, report_suites waits for all and
# prints one line per suite.
# shellcheck shell=bash

jobs_max=${E2E_JOBS:-1}
[[ $jobs_max =~ ^[1-9][0-9]*$ ]] || die "E2E_JOBS wants a positive number, got '$jobs_max'"
suites=()

# run_scenario DIR LABEL NAME CMD...: runs CMD with its output in DIR/NAME.log,
# prints the verdict in one write (jobs may finish together) and records it
# in DIR/NAME.verdict.
run_scenario() {
	local results=$1 label=$2 name=$3 start=$SECONDS report
	shift 3
	if "$@" >"$results/$name.log" 2>&1; then
		echo pass >"$results/$name.verdict"
		echo "PASS $name ($((SECONDS - start))s, $label)"
		return
	fi
	echo fail >"$results/$name.verdict"
	report=$(
		echo "FAIL $name ($((SECONDS - start))s, $label), log: $results/$name.log"
		{
			grep -E -e '--- FAILED|^\[vm\]' "$results/$name.log" || true
			echo "... last lines:"
			tail -n 30 "$results/$name.log"
		} 2>&1 | sed 's/^/    /'
	) || true
	printf '%s\n' "$report"
}

# start DIR LABEL NAME CMD...: runs the scenario when E2E_FILTER selects it,
# in the background once fewer than E2E_JOBS run.
start() {
	[[ $3 =~ ${E2E_FILTER:-} ]] || return 0
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
		wait -n || true
	done
	run_scenario "$@" &
}

# queue_suite KVER USERSPACE SET SELFTEST: starts the suite's boots (the smoke
# set when SET is smoke, the bench self-test first when SELFTEST is 1) in a
# new results directory.
queue_suite() {
	local kver=$1 userspace=$2 set=$3 selftest=$4 results label test name opts
	kernel_image "$kver" >/dev/null ||
		die "no guest kernel /boot/vmlinuz-$kver (nor in the trixie root); run 'make deps'"
	# A directory per run: suites started by different people must not collide.
	mkdir -p "$here/out"
	results=$(mktemp -d "$here/out/suite-$kver.XXXXXX")
	ln -sfn "$(basename "$results")" "$here/out/suite-latest-$kver"
	label="$kver, $userspace user space ($(dpkg-query --admindir="$([ "$userspace" = trixie ] && echo "$cache_dir/trixie-root")/var/lib/dpkg" -W -f='ndctl ${Version}' ndctl)), ${set:-whole} set"
	echo "queued: $label${E2E_FILTER:+ (E2E_FILTER $E2E_FILTER)}, logs: $results"
	suites+=("$results|$label")
	[ "$selftest" = 0 ] || start "$results" "$label" vm-selftest env KVER="$kver" CXLV_USERSPACE="$userspace" bash "$here/selftest.sh" "$results/vm-selftest"
	for test in "$repo_root"/test/e2e/*.sh; do
		is_scenario "$test" || continue
		runs_on_kernel "$test" "$kver" || continue
		[ -z "$set" ] || in_set "$test" "$set" || continue
		name=$(basename "$test" .sh)
		read -ra opts <<<"$(vm_options "$test")"
		start "$results" "$label" "$name" env CXLV_USERSPACE="$userspace" \
			bash "$here/run-vm.sh" --kver "$kver" "${opts[@]}" --out "$results/$name" -- "test/e2e/$name.sh"
	done
}

# report_suites [INDENT]: waits for every boot, prints `PASS|FAIL LABEL: N
# passed, N failed` per suite queued; fails if any suite failed or ran
# nothing. (Not in a pipeline: a subshell cannot wait for this shell's boots.)
report_suites() {
	local indent=${1:-} suite results label passed failed rc=0
	wait
	for suite in "${suites[@]}"; do
		results=${suite%%|*} label=${suite#*|}
		passed=$(cat "$results"/*.verdict 2>/dev/null | grep -c pass || true)
		failed=$(cat "$results"/*.verdict 2>/dev/null | grep -c fail || true)
		if [ "$failed" = 0 ] && [ "$passed" -gt 0 ]; then
			echo "${indent}PASS $label: $passed passed, $failed failed"
		else
			echo "${indent}FAIL $label: $passed passed, $failed failed"
			rc=1
		fi
	done
	return $rc
}
