#!/usr/bin/env bash
# The README's benchmark tables come from results/, never by hand. A block
#   <!-- results/FILE.md: HEADING -->
#   ...
#   <!-- end -->
# holds the first table under the heading "HEADING" (any level) of
# results/FILE.md. `make bench` rewrites the blocks; --check (make unit)
# fails if one differs from its source.
#   scripts/readme-results.sh [--check]
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readme=$repo/README.md

# table FILE HEADING: the first table of the section HEADING in FILE.
table() {
	[ -f "$repo/$1" ] || { echo "readme-results: $1 is missing (make bench writes it)" >&2; return 1; }
	awk -v want="$2" '
		/^#+ / { h = $0; sub(/^#+ /, "", h); in_section = (h == want); if (done) exit; next }
		in_section && /^\|/ { print; seen = 1; next }
		seen { done = 1; exit }
		END { if (!seen) exit 1 }' "$repo/$1" ||
		{ echo "readme-results: no table under \"$2\" in $1" >&2; return 1; }
}

generated=$(mktemp)
trap 'rm -f "$generated"' EXIT
skipping=0
while IFS= read -r line; do
	if [ "$skipping" = 1 ]; then
		[ "$line" = '<!-- end -->' ] || continue
		skipping=0
	fi
	printf '%s\n' "$line"
	if [[ $line =~ ^'<!-- '(results/[^:]+):' '(.+)' -->'$ ]]; then
		table "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
		skipping=1
	fi
done <"$readme" >"$generated"
[ "$skipping" = 0 ] || { echo "readme-results: a results block in README.md has no <!-- end -->" >&2; exit 1; }

if [ "${1:-}" = --check ]; then
	diff -u "$readme" "$generated" >&2 ||
		{ echo "readme-results: README.md's benchmark tables differ from results/: run scripts/readme-results.sh" >&2; exit 1; }
else
	cp "$generated" "$readme"
fi
