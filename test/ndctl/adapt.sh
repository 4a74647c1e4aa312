#!/bin/bash
# Unpacks ndctl's upstream source (test/ndctl/fetch.sh's tarball) into DIR
# and applies adapt.rules to its test/ directory: only the set-up lines
# that load cxl_test and name its bus change, each rule changing exactly
# the number of lines it says, or nothing runs. Prints the adapted test
# directory. Runs in the guest (on a tmpfs) as well as on the host.
#   test/ndctl/adapt.sh TARBALL DIR
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# = 2 ] || { echo "usage: adapt.sh TARBALL DIR" >&2; exit 2; }
tarball=$1 dir=$2
mkdir -p "$dir"
tar -xzf "$tarball" -C "$dir"
tests=$(echo "$dir"/ndctl-*/test)
[ -f "$tests/common" ] || { echo "adapt.sh: no ndctl-*/test/common in $tarball" >&2; exit 1; }

while IFS=$'\t' read -r file lines expr; do
	case $file in '' | '#'*) continue ;; esac
	[ -f "$tests/$file" ] || { echo "adapt.sh: $file is not in $tarball" >&2; exit 1; }
	changed=$(sed -n "${expr}p" "$tests/$file" | wc -l)
	if [ "$changed" != "$lines" ]; then
		echo "adapt.sh: '$expr' changes $changed lines of $file, not $lines: upstream changed its set-up" >&2
		exit 1
	fi
	sed -i "$expr" "$tests/$file"
done <"$here/adapt.rules"
# Nothing of cxl_test's set-up is left: a test or set-up line the rules do
# not know of fails here, not as a test that quietly runs on nothing.
if left=$(cd "$tests" && grep -n -E '^[^#]*(modprobe[^#]*cxl[-_]test|(-b |--bus=)cxl_test)' common security.sh cxl-*); then
	echo "adapt.sh: cxl_test's set-up left after adapt.rules:" >&2
	echo "$left" >&2
	exit 1
fi
echo "$tests"
