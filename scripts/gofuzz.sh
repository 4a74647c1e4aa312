#!/usr/bin/env bash
# Runs every Go fuzz target for a bounded number of inputs (GOFUZZ_TIME,
# default 500000x each; a count, not a duration: a duration can end the run
# with a spurious "context deadline exceeded"). `go test` alone only replays
# the seed corpus in testdata/.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${GOFUZZ_TIME:-500000x}
grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u | while read -r pkg; do
	for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$pkg"/*_test.go | sed 's/^func //'); do
		echo "fuzz $pkg $target ($fuzztime)"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg"
	done
done
