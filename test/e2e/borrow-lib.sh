# Shared by the borrow scenarios (sourced after guest/cxlv.sh; no vm header,
# so run-suite.sh skips it): System RAM taken from the running kernel with
# borrow=1 and given back with release.
# shellcheck shell=bash

# MEMDIR, memtotal_kb, timed, blocks_of, membind_pattern
# shellcheck source=test/e2e/cxlvctl-region-ram-lib.sh
. "$CXLV/test/e2e/cxlvctl-region-ram-lib.sh"

# blocks: "N online, M offline" over every memory block.
blocks() {
	cat $MEMDIR/memory*/state | sort | uniq -c | awk '{printf "%s%s %s", sep, $1, $2; sep=", "}'
}

# mem_state: MemTotal and the block states, compared before and after.
mem_state() { echo "MemTotal $(memtotal_kb) kB; blocks: $(blocks)"; }

# struct_pages_kb BYTES: the kB of struct pages (64 bytes a page) behind
# BYTES of memory: what a release may leave in MemTotal on top, the first
# time a range is given back (its boot memory map was outside MemTotal).
struct_pages_kb() {
	echo $(($1 / $(awk '/^KernelPageSize:/ {print $2 * 1024; exit}' /proc/self/smaps) * 64 / 1024))
}

# borrowed_field N [LINE]: field N of the first (or LINE-th) line of borrowed.
borrowed_field() { sed -n "${2:-1}p" "$CXLV_SYS/borrowed" | cut -d' ' -f"$1"; }

# one_line_error: last_error is one non-empty line.
one_line_error() {
	local e
	e=$(cat "$CXLV_SYS/last_error")
	[ -n "$e" ] && [ "$(printf '%s\n' "$e" | wc -l)" = 1 ] || fail "last_error is not one line: '$e'"
	echo "$e"
}

# refused WHAT FILE TEXT ERRNO [GREP]: the write fails with ERRNO and a
# one-line reason (matching GREP), and memory is as it was.
refused() {
	local what=$1 file=$2 text=$3 want=$4 pat=${5:-} before got e
	before=$(mem_state)
	got=$(ctl "$file" "$text")
	e=$(one_line_error)
	say "$what: $got: $e"
	expect_eq "$what: errno" "$got" "$want"
	[ -z "$pat" ] || [[ $e == *$pat* ]] || fail "$what: last_error does not say '$pat'"
	expect_eq "$what: memory after" "$(mem_state)" "$before"
	expect_eq "$what: borrowed after" "$(cat "$CXLV_SYS/borrowed")" ""
}

# Debian's 6.1 leaves hot-added memory offline (auto_online_blocks offline,
# CONFIG_MEMORY_HOTPLUG_DEFAULT_ONLINE unset); 6.12 and 7.3 online it. A
# release gives memory back per that policy, so the tests ask for online.
online_policy() {
	say "auto_online_blocks was $(cat $MEMDIR/auto_online_blocks)"
	sysw online $MEMDIR/auto_online_blocks
}

# system_ram_in START SIZE: some System RAM entry of /proc/iomem, at any
# depth, overlaps [START, START + SIZE).
system_ram_in() {
	local line r lo hi
	while IFS= read -r line; do
		[[ $line == *" : System RAM" ]] || continue
		r=${line%% : *} lo=$((0x${r%-*})) hi=$((0x${r#*-}))
		[ "$hi" -lt $(($1)) ] || [ "$lo" -ge $(($1 + $2)) ] || return 0
	done <<<"$(sed 's/^ *//' /proc/iomem)"
	return 1
}

# hibernate_refused WHAT NAMES: `echo disk >/sys/power/state` fails with
# EBUSY, and cxl_virt logs one line naming NAMES (pm_test must be freezer,
# so that a hibernation that goes through stops after the freezer).
hibernate_refused() {
	local n line
	n=$(dmesg | grep -c "cxl_virt: hibernation refused:" || true)
	expect_eq "hibernation $1" "$(ctl /sys/power/state disk)" EBUSY
	line=$(dmesg | grep "cxl_virt: hibernation refused:" | tail -n +$((n + 1)))
	say "$line"
	expect_eq "hibernation $1: lines logged" "$(printf '%s\n' "$line" | grep -c .)" 1
	[[ $line == *"hibernation refused: $2 hold data that the image would not keep"* ]] ||
		fail "hibernation $1: the line does not name '$2'"
}

# pci_bdf MEMDEV: the PCI endpoint of a memdev.
pci_bdf() { basename "$(dirname "$(readlink -f "/sys/bus/cxl/devices/$1")")"; }
