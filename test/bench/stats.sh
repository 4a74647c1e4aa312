# Sourced by the per-kernel bench scripts (ram-node.sh): the
# statistics of a guest's samples.tsv ("name<TAB>value" lines), read from the
# file $samples names.
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
