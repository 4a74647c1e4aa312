#!/bin/bash
# kernel-expects: 1 selftest: the one expected warning
# Guest half of test/vm/selftest.sh for the '# kernel-expects:' header
# above: writes warning blocks shaped like a WARN()'s into the kernel log.
#   selftest-expects.sh once|twice|other
#     once: the expected block once (the run passes); twice: twice (the
#     count is wrong: the run fails); other: once, and another warning
#     (that one fails the run).
. "$CXLV/test/vm/guest/lib.sh"

# block TEXT: one warning block holding TEXT, as the kernel prints one.
block() {
	local line
	for line in "------------[ cut here ]------------" "$1" \
		"WARNING: CPU: 0 PID: 1 at selftest-expects.sh block" "Call Trace:" \
		"---[ end trace 0000000000000000 ]---"; do
		echo "$line" >/dev/kmsg
	done
}

case $1 in
once) block "selftest: the one expected warning" ;;
twice) block "selftest: the one expected warning" && block "selftest: the one expected warning" ;;
other) block "selftest: the one expected warning" && block "selftest: another warning" ;;
*) fail "selftest-expects.sh: unknown mode $1" ;;
esac
