# Sourced by the per-kernel bench scripts (ram-node.sh, demotion.sh): the
# statistics of a guest's samples.tsv ("name<TAB>value" lines), read from the
# file $samples names, and the host's state before each boot, kept in $out.
# shellcheck shell=bash

# stat NAME: "median (min-max)" of the samples called NAME.
stat() {
	awk -v k="$1" -F'\t' '$1 == k {print $2}' "$samples" | sort -n |
		awk '{v[NR] = $1} END {
			if (NR == 0) { print "-"; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.0f (%.0f-%.0f)\n", m, v[1], v[NR] }'
}
value() { awk -v k="$1" -F'\t' '$1 == k && $2 != "" {v = $2; exit} END {print v == "" ? "-" : v}' "$samples"; }
median() { stat "$1" | cut -d' ' -f1; }
ratio() { awk -v a="$(median "$1")" -v b="$(median "$2")" 'BEGIN {printf "%.2fx", a / b}'; }
# paired_ratio A B: the median over rounds of A's i-th sample over B's i-th
# (taken in the same round, so a change in the host's load between rounds
# moves both).
paired_ratio() {
	awk -v a="$1" -v b="$2" -F'\t' '$1 == a {x[++n] = $2} $1 == b {y[++m] = $2}
		END { for (i = 1; i <= n && i <= m; i++) print x[i] / y[i] }' "$samples" | sort -g |
		awk '{v[NR] = $1} END {
			if (NR == 0) { print "-"; exit }
			printf "%.2fx\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# record_host KVER: the host's load, QEMU processes and the date, before the
# boot on KVER (the host is shared: they say how far to trust the numbers).
record_host() {
	{
		echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
		echo "vms_before=$(pgrep -c qemu-system || true)"
		echo "date=$(date -u +%Y-%m-%d\ %H:%M)"
	} >"$out/host-$1.txt"
}
# host KVER KEY: what record_host noted.
host() { sed -n "s/^$2=//p" "$out/host-$1.txt"; }

# section_head KVER: the heading of one kernel's section of a report and
# the host's state before its boot (guest_userspace: test/vm/common.sh).
section_head() {
	echo "## Linux $1 ($(guest_userspace "$1") user space)"
	echo
	echo "$(host "$1" date) UTC; host load before: $(host "$1" load_before) with $(host "$1" vms_before) other QEMU"
	echo "processes running (the host is shared, so absolute numbers move between runs)."
}

# each_kernel FUNCTION: FUNCTION KVER for each kernel of kvers, with
# samples set to the one of its boot ($out/vm-KVER/samples.tsv).
each_kernel() {
	local k
	for k in "${kvers[@]}"; do
		samples=$out/vm-$k/samples.tsv
		"$1" "$k"
	done
}
