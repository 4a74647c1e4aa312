#!/usr/bin/env bash
# The README's "which scenarios prove each point" table is checked, not
# trusted: every scenario it names exists (test/e2e/NAME.sh with a '# vm:'
# line) and runs on every kernel series of its row ('# kernels:'), every
# scenario proves some row, and the suite table's "N scenarios" per kernel
# is what run-suite.sh runs. make unit runs it.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=test/vm/common.sh
. "$repo/test/vm/common.sh"
readme=$repo/README.md
errors=0
complain() {
	echo "readme-claims: $*" >&2
	errors=$((errors + 1))
}

scenarios=()
for f in "$repo"/test/e2e/*.sh; do
	[ -n "$(vm_options "$f")" ] && scenarios+=("$(basename "$f" .sh)")
done

rows=$(sed -n '/^<!-- claims -->$/,/^<!-- end claims -->$/p' "$readme" | grep '^| [^-]' | tail -n +2) ||
	{ echo "readme-claims: README.md has no <!-- claims --> table" >&2; exit 1; }
declare -A proven=()
while IFS='|' read -r _ point names kernels _; do
	point=$(sed 's/^ *//; s/ *$//' <<<"$point")
	for name in $(tr -d '`' <<<"$names"); do
		file=$repo/test/e2e/$name.sh
		if [ ! -f "$file" ] || [ -z "$(vm_options "$file")" ]; then
			complain "\"$point\": no scenario test/e2e/$name.sh"
			continue
		fi
		proven[$name]=1
		for series in $kernels; do
			runs_on_kernel "$file" "$series.0" || complain "\"$point\": $name does not run on $series"
		done
	done
done <<<"$rows"
for name in "${scenarios[@]}"; do
	[ -n "${proven[$name]:-}" ] || complain "$name proves no point of the README's claims table"
done

# The suite table's rows "| X.Y (...) | ... | ... N scenarios ...": N is the
# number of scenarios that run on series X.Y.
while read -r series said; do
	count=0
	for name in "${scenarios[@]}"; do
		runs_on_kernel "$repo/test/e2e/$name.sh" "$series.0" && count=$((count + 1))
	done
	[ "$said" = "$count" ] || complain "the suite table says $said scenarios for $series, the suite runs $count"
done < <(sed -n 's/^| \([0-9]*\.[0-9]*\) (.*| [^|]*\b\([0-9][0-9]*\) scenarios.*/\1 \2/p' "$readme")

[ "$errors" = 0 ] || { echo "readme-claims: $errors problem(s) in README.md" >&2; exit 1; }
