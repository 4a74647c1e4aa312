#!/usr/bin/env bash
# Boots one VM per fixture scenario and captures its sysfs trees and tool JSON
# into test/fixtures/<scenario>/ for the Go unit tests (make fixtures).
#
#   test/vm/capture-fixtures.sh [SCENARIO|SETUP_SCRIPT]...
#
# A scenario is a setup script, test/vm/fixture-setup/<scenario>.sh by default
# (or any path in the repository), sourced in the guest after lib.sh, whose
# '# vm:' header gives the run-vm.sh options and whose '# kernels:' line, if
# any, the kernel series it needs (the first guest kernel of that series
# boots). Without arguments every script in test/vm/fixture-setup/ with a
# '# vm:' header is captured (the others are libraries they source).
# One brace group: bash parses it whole before running, so editing this file
# cannot break a run in progress.
{
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/vm/common.sh
. "$here/common.sh"

setups=()
if [ $# -eq 0 ]; then
	for setup in "$here"/fixture-setup/*.sh; do
		is_scenario "$setup" && setups+=("$setup")
	done
fi
for arg in "$@"; do
	case $arg in
	*.sh) setups+=("$(cd "$(dirname "$arg")" && pwd)/$(basename "$arg")") ;;
	*) setups+=("$here/fixture-setup/$arg.sh") ;;
	esac
done

bash "$repo_root/test/tools/build.sh"
failed=0
for setup in "${setups[@]}"; do
	[ -f "$setup" ] || die "no fixture setup script $setup"
	is_scenario "$setup" || die "$setup has no '# vm:' header line"
	name=$(basename "$setup" .sh)
	read -ra opts <<<"$(vm_options "$setup")"
	kver=''
	for k in $(bash "$repo_root/scripts/guest-kernels.sh"); do
		runs_on_kernel "$setup" "$k" && kver=$k && break
	done
	[ -n "$kver" ] || die "$setup: no installed guest kernel of its '# kernels:' series"
	out=$(mktemp -d "${TMPDIR:-/tmp}/cxlv-fixture.XXXXXX")
	if bash "$here/run-vm.sh" --kver "$kver" "${opts[@]}" --out "$out" -- \
		test/vm/guest/capture.sh "/cxlv/${setup#"$repo_root"/}" >"$out/run.log" 2>&1; then
		rm -rf "$repo_root/test/fixtures/$name"
		# git keeps only the executable bit: record the real modes of the
		# attribute files that are not 0644 (0444 read-only, 0200 write-only...).
		(cd "$out/fixture" && find . -type f ! -perm 644 -printf '%m %P\n' | LC_ALL=C sort >modes.txt)
		mv -T "$out/fixture" "$repo_root/test/fixtures/$name"
		echo "captured test/fixtures/$name ($(du -sh --apparent-size "$repo_root/test/fixtures/$name" | cut -f1), $(find "$repo_root/test/fixtures/$name" | wc -l) entries)"
		rm -rf "$out"
	else
		echo "FAILED to capture $name (log: $out/run.log):"
		tail -n 30 "$out/run.log"
		failed=1
	fi
done
exit "$failed"
}
