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
	local results=$1 label=$2 name=$3 start=$SECONDS
	shift 3
	if "$@" >"$results/$name.log" 2>&1; then
		echo pass >"$results/$name.verdict"
		echo "PASS $name ($((SECONDS - start))s, $label)"
		return
	fi
	echo fail >"$results/$name.verdict"
	report_failure "$results" "$label" "$name" $((SECONDS - start))
}

# report_failure DIR LABEL NAME SECONDS: the FAIL line with the log's failed
# steps, the bench's own lines and its last lines, in one write.
report_failure() {
	local results=$1 label=$2 name=$3 report
	report=$(
		echo "FAIL $name (${4}s, $label), log: $results/$name.log"
		{
			grep -E -e '--- FAILED|^\[vm\]' "$results/$name.log" || true
			echo "... last lines:"
			tail -n 30 "$results/$name.log"
		} 2>&1 | sed 's/^/    /'
	) || true
	printf '%s\n' "$report"
}

# run_group DIR LABEL KVER USERSPACE GROUP OPTIONS SCENARIO...: one boot
# with OPTIONS runs the scenarios one after the other (guest/boot-group.sh;
# a SCENARIO is a repo-relative script with its arguments, one word each,
# named as boot-group.sh names it); each gets its verdict and DIR/NAME.log as if it had
# booted alone, failing on its own exit code and on kernel problems logged
# while it ran. A problem logged outside every scenario (at boot), a hang or
# a guest that never reported fails every scenario of the boot.
run_group() {
	local results=$1 label=$2 kver=$3 userspace=$4 group=$5 start=$SECONDS out name log problems scenario
	local -a opts names=()
	read -ra opts <<<"$6"
	shift 6
	for scenario in "$@"; do
		names+=("$(scenario_name "$scenario")")
	done
	out=$results/boot-$group
	env CXLV_USERSPACE="$userspace" bash "$here/run-vm.sh" --kver "$kver" "${opts[@]}" \
		--timeout $((600 * $#)) --out "$out" -- test/vm/guest/boot-group.sh "$@" \
		>"$results/boot-$group.log" 2>&1 || true
	# (boot-group.sh keeps each scenario's kernel log apart; the rest is
	# the boot's and what came after the last scenario.)
	cat "$out/boot-dmesg.txt" "$out/dmesg.txt" >"$out/outside.dmesg" 2>/dev/null || true
	problems=''
	[[ $(cat "$out/rc" 2>/dev/null) == [01] ]] && check_kernel_log "$out/outside.dmesg" >"$out/outside.problems" 2>&1 ||
		problems="the shared boot failed outside its scenarios (log: $results/boot-$group.log)"
	for name in "${names[@]}"; do
		log=$results/$name.log
		{
			echo "shared boot '$group' ($kver): ${names[*]}; its log: $results/boot-$group.log"
			cat "$out/$name/guest.log" 2>/dev/null || echo "--- FAILED: the scenario never ran"
			[ -z "$problems" ] || { echo "--- FAILED: $problems"; cat "$out/outside.problems" 2>/dev/null; tail -n 30 "$results/boot-$group.log"; }
		} >"$log"
		if [ -z "$problems" ] && [ "$(cat "$out/$name/rc" 2>/dev/null)" = 0 ] &&
			check_kernel_log "$out/$name/dmesg.txt" >>"$log" 2>&1; then
			echo pass >"$results/$name.verdict"
			echo "PASS $name ($(cat "$out/$name/seconds")s of $((SECONDS - start))s shared, $label)"
			continue
		fi
		echo fail >"$results/$name.verdict"
		report_failure "$results" "$label" "$name" "$(cat "$out/$name/seconds" 2>/dev/null || echo '?')"
	done
}

# start DIR LABEL NAME CMD...: runs the scenario when E2E_FILTER selects it,
# in the background once fewer than E2E_JOBS run.
start() {
	[[ $3 =~ ${E2E_FILTER:-} ]] || return 0
	start_job run_scenario "$@"
}

# start_job CMD...: CMD in the background once fewer than E2E_JOBS run.
start_job() {
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
		wait -n || true
	done
	"$@" &
}

# queue_suite KVER USERSPACE SET SELFTEST: starts the suite's boots (the smoke
# set when SET is smoke, the bench self-test first when SELFTEST is 1) in a
# new results directory.
queue_suite() {
	local kver=$1 userspace=$2 set=$3 selftest=$4 results label test name opts group names
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
	local -A members=() group_opts=()
	local -a singles=()
	for test in "$repo_root"/test/e2e/*.sh; do
		is_scenario "$test" || continue
		runs_on_kernel "$test" "$kver" || continue
		[ -z "$set" ] || in_set "$test" "$set" || continue
		name=$(basename "$test" .sh)
		[[ $name =~ ${E2E_FILTER:-} ]] || continue
		group=$(boot_group "$test")
		if [ -z "$group" ]; then
			singles+=("$name")
			continue
		fi
		[ -z "$(kernel_expects "$test")" ] || die "$test: a scenario with '# kernel-expects:' cannot share a boot"
		[ -z "${group_opts[$group]+set}" ] || [ "${group_opts[$group]}" = "$(vm_options "$test")" ] ||
			die "$test: its '# vm:' line differs from the rest of boot group '$group'"
		group_opts[$group]=$(vm_options "$test")
		members[$group]+=" $name.sh"
	done
	# Shared boots first: the longest jobs, so none is left running alone at the end.
	for group in "${!members[@]}"; do
		read -ra names <<<"${members[$group]}"
		if [ "${#names[@]}" = 1 ]; then
			singles=("${names[0]%.sh}" "${singles[@]}")
			continue
		fi
		start_job run_group "$results" "$label" "$kver" "$userspace" "$group" "${group_opts[$group]}" \
			"${names[@]/#/test/e2e/}"
	done
	for name in "${singles[@]}"; do
		read -ra opts <<<"$(vm_options "$repo_root/test/e2e/$name.sh")"
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
