# Sourced by the per-kernel bench guests (ram-node.sh, borrow.sh) after
# setting their defaults: takes NAME=VALUE settings from the arguments and
# gives sample, which records "name<TAB>value" lines in /out/samples.tsv.
# shellcheck shell=bash
for setting in "$@"; do
	declare "${setting%%=*}=${setting#*=}"
done
samples=/out/samples.tsv
: >"$samples"
sample() { printf '%s\t%s\n' "$1" "$2" | tee -a "$samples"; }
memtotal_kb() { awk '/^MemTotal:/ {print $2}' /proc/meminfo; }
