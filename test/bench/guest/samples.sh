# Sourced by the per-kernel bench guests (ram-node.sh, borrow.sh) after
# setting their defaults: takes NAME=VALUE settings from the arguments and
# gives sample, which records "name<TAB>value" lines in /out/samples.tsv,
# and memiops_sample, which samples one memiops run.
# shellcheck shell=bash
for setting in "$@"; do
	declare "${setting%%=*}=${setting#*=}"
done
samples=/out/samples.tsv
: >"$samples"
sample() { printf '%s\t%s\n' "$1" "$2" | tee -a "$samples"; }
memtotal_kb() { awk '/^MemTotal:/ {print $2}' /proc/meminfo; }
# memiops_sample NAME OP TARGET [NODE]: one run of memiops (on PATH), 1 KiB
# random over 256 MiB for $seconds, its IOPS as NAME; the working set bound
# to NODE if given.
memiops_sample() {
	local name=$1 op=$2 target=$3 bind=() r
	[ -z "${4:-}" ] || bind=(numactl --membind="$4")
	r=$("${bind[@]}" memiops "$op" --bs 1024 --size $((256 << 20)) --seconds "$seconds" "$target") ||
		fail "memiops $op on $target: $r"
	r=${r%% *}
	sample "$name" "${r#iops=}"
}
