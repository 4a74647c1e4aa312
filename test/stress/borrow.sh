#!/usr/bin/env bash
# Borrowing on a small machine (issue 35): boots a fresh 6 GiB guest BOOTS
# times per kernel, one at a time, and in each runs borrow-guest.sh
# (`cxlvctl create --size 1G --pmem` without memmap=, a pattern read back,
# remove --release). Prints "KVER: borrowed in K of N boots"; a boot whose
# kernel log has a WARN/BUG/Oops (test/vm/kernel-errors.regex) counts as a
# failure and is named. Exit 0 when every kernel reached MIN of N.
#
# test/stress/borrow.sh [--boots N] [--min K] [KVER...]   (default: 20,
# 19, and 6.1, 6.12 and 7.3 as scripts/guest-kernels.sh names them)
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit
boots=20 min=19
while [ $# -gt 0 ]; do
	case $1 in
	--boots) boots=$2 && shift 2 ;;
	--min) min=$2 && shift 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- $(bash scripts/guest-kernels.sh | grep -E '^(6\.1\.|6\.12\..*deb13|7\.3\.)')
out=test/vm/out/stress-borrow
mkdir -p "$out"
status=0
for kver in "$@"; do
	ok=0 refused=0 broken=()
	for i in $(seq 1 "$boots"); do
		dir=$out/$kver-$i
		rm -rf "$dir"
		bash test/vm/run-vm.sh --kver "$kver" --mem 6G --append nokaslr --out "$dir" \
			-- test/stress/borrow-guest.sh >"$dir.log" 2>&1
		rc=$?
		case $rc in
		0) ok=$((ok + 1)) ;;
		10) refused=$((refused + 1)) ;;
		*) broken+=("$i:rc=$rc") ;;
		esac
		echo "$kver boot $i: rc $rc $(grep -h -m1 '^BORROW' "$dir/guest.log" 2>/dev/null)"
	done
	echo "$kver: borrowed in $ok of $boots boots ($refused refused${broken:+; failed: ${broken[*]}})"
	[ "$ok" -ge "$min" ] || status=1
done
exit $status
