#!/bin/bash
# vm: --mem 5632M --memmap 3584M$0x100000000 --ndctl-tests --timeout 1200
# kernels: 6.12 7.3
# ndctl's own CXL tests as the judge (issue 33): every test/cxl-*.sh of the
# guest's ndctl (81 in trixie's user space; run-vm.sh --ndctl-tests brings
# its upstream tarball, test/ndctl/fetch.sh), unpacked to a tmpfs with only
# its set-up adapted (test/ndctl/adapt.rules: cxl_virt sets instead of
# cxl_test, test/ndctl/setup.sh), run with the installed cxl, ndctl and
# daxctl. Each test's result (pass, fail at its first failing check, skip:
# exit 77) must be the one test/ndctl/expected.tsv gives, both ways, so the
# table stays true as features land; a test listed n/a (it checks
# cxl_test's mock itself) must not pass. Its own boot: the tests load and
# unload cxl_virt again and again and need a machine with nothing else on
# it. Results: /out/ndctl/results.tsv, one log per test beside it.
. /cxlv/test/vm/guest/cxlv.sh

table=/cxlv/test/ndctl/expected.tsv
load_stack --no-cxlv
# The tests read process substitutions, <(...), through /dev/fd, which a
# booted system has and the guest's devtmpfs has not.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
# cxl-destroy-region.sh takes a RAM region's memory to stay offline until
# asked ("default is memory is system-ram offline"), as the kernel's default
# hotplug policy has it; Debian's kernels online it.
echo offline >/sys/devices/system/memory/auto_online_blocks
# RAM regions (cxl-destroy-region.sh): their dax devices and kmem.
/sbin/modprobe -a kmem dax_cxl || fail "modprobe kmem dax_cxl"
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || [ -d /sys/kernel/tracing/events ] ||
	fail "no tracefs at /sys/kernel/tracing"

tarball=$(ls /ndctl/ndctl_*.orig.tar.gz) || fail "no ndctl tarball in /ndctl (run-vm.sh --ndctl-tests)"
version=${tarball##*/ndctl_}
version=${version%.orig.tar.gz}
expect_eq "ndctl version of the tests" "$(ndctl --version)" "$version"
tests=$(bash /cxlv/test/ndctl/adapt.sh "$tarball" /tmp/ndctl) || fail "adapting ndctl $version's tests"

# The table and the tarball name the same tests.
have=$(cd "$tests" && printf '%s\n' cxl-*.sh)
listed=$(awk -F'\t' '!/^#/ && NF {print $1}' "$table" | sort)
[ "$have" = "$listed" ] || fail "expected.tsv and ndctl $version's tests differ: $(diff <(echo "$listed") <(echo "$have") | grep '^[<>]' | xargs)"

export CXLV_KO CXLV_NDCTL_SETUP=/cxlv/test/ndctl/setup.sh
# 1 GiB for most tests; the whole reservation for the one whose memdevs
# need 1 GiB of RAM before their pmem (cxl-poison.sh injects at DPA 1 GiB).
export CXLV_NDCTL_RANGE=memstart=0x100000000,memsize=0x40000000
export CXLV_NDCTL_WIDE_RANGE=memstart=0x100000000,memsize=0xe0000000
export NDCTL CXL DAXCTL PATH=/cxlv/test/ndctl/bin:$PATH
NDCTL=$(command -v ndctl) CXL=$(command -v cxl) DAXCTL=$(command -v daxctl)

# first_failure LOG: "FILE:N: MESSAGE" of the check that failed (the
# tests' err prints "test/FILE: failed at line N", some with a message after
# N; cxl-security.sh's is in security.sh). Without one after N, MESSAGE is
# the last line the test printed before that is not a trace line (set -x),
# blank or indented, else the failing line of the test; no err line (an
# errexit in a function, where the tests' ERR trap does not reach): the
# last such line of the log.
first_failure() {
	local at msg
	at=$(grep -m1 '^test/[^:]*: failed at line [0-9]' "$1") || true
	msg=$(sed -n 's/^test\/[^:]*: failed at line [0-9]*:* *//p' <<<"$at")
	at=$(sed -n 's|^test/\([^:]*\): failed at line \([0-9]*\).*|\1:\2|p' <<<"$at")
	[ -n "$msg" ] ||
		msg=$(sed '/failed at line/q' "$1" | grep -v -e '^+' -e '^[][{}"[:space:]]' -e '^$' -e 'failed at line' | tail -n 1)
	[ -n "$msg" ] || [ -z "$at" ] || msg=$(sed -n "${at#*:}{s/^[[:space:]]*//;p}" "$tests/${at%:*}")
	echo "${at:+$at: }$msg"
}

mkdir -p /out/ndctl
results=/out/ndctl/results.tsv
printf 'test\tresult\tseconds\texpected\tdetail\n' >"$results"
mismatches=0
while IFS=$'\t' read -r test want reason; do
	case $test in '' | '#'*) continue ;; esac
	log=/out/ndctl/${test%.sh}.log
	start=$SECONDS
	rc=0
	# By the interpreter and flags of its #! line: the tarball leaves most
	# of them without the execute bit.
	read -r interpreter <"$tests/$test"
	# shellcheck disable=SC2086 # the line's flags are separate words
	(cd "$tests" && timeout 300 ${interpreter#\#!} "./$test") </dev/null >"$log" 2>&1 || rc=$?
	took=$((SECONDS - start))
	case $rc in
	0) got=pass detail='' ;;
	77) got=skip detail=$(grep -v '^+' "$log" | tail -n 1) ;;
	*) got=fail detail=$(first_failure "$log") ;;
	esac
	# Whatever a failed test left behind goes, as unloading cxl_test would.
	bash -c '. "$CXLV_NDCTL_SETUP" && cxlv_teardown' >>"$log" 2>&1 || fail "$test: cleanup failed (log: $log)"
	printf '%s\t%s\t%s\t%s\t%s\n' "$test" "$got" "$took" "$want" "$detail" >>"$results"
	say "$test: $got in ${took}s (expected $want)${detail:+: $detail}"
	if [ "$want" = n/a ] && [ "$got" = pass ]; then
		say "  $test passes: it is not cxl_test-only after all ($reason)"
		mismatches=$((mismatches + 1))
	elif [ "$want" != n/a ] && [ "$got" != "$want" ]; then
		say "  expected $want: $reason"
		mismatches=$((mismatches + 1))
	fi
done <"$table"
cat "$results"
[ "$mismatches" = 0 ] || fail "$mismatches of ndctl $version's CXL tests differ from test/ndctl/expected.tsv"
rmmod cxl_virt 2>/dev/null || true
no_kernel_complaints
