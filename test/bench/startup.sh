#!/usr/bin/env bash
# The host half of `make bench`, no VM: what cxlvctl costs before it reads
# anything. For bin/cxlvctl (make build) and, given BENCH_BASELINE (an
# earlier binary, e.g. built from main), for that one too: the packages
# whose init runs at start and their init time (GODEBUG=inittrace=1), the
# wall time of `cxlvctl version` on this host (BENCH_STARTUP_RUNS runs,
# default 200, the binaries interleaved run by run; median, min and max)
# and the binary's size. Also the package inits and size of
# bin/cxlvctl-info, the helper `cxlvctl info` execs: the one binary that
# links ghw, whose inits only info pays for (started on a missing sysfs
# root, so that it stops once initialised). Writes results/bench-startup.md.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
runs=${BENCH_STARTUP_RUNS:-200}
out=$repo/results/tmp/startup-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"

names=(bin/cxlvctl) bins=("$repo/bin/cxlvctl")
helper=$repo/bin/cxlvctl-info
for b in "${bins[0]}" "$helper"; do
	[ -x "$b" ] || { echo "startup: no $b: run 'make build' first" >&2; exit 1; }
done
if [ -n "${BENCH_BASELINE:-}" ]; then
	names+=("before (BENCH_BASELINE)") bins+=("$BENCH_BASELINE")
fi

# inits BIN ARGS...: "N | MS": the packages with init work when BIN starts,
# and the sum of their init clock times (inittrace: "init PKG @T ms, MS ms
# clock, ...").
inits() {
	GODEBUG=inittrace=1 "$@" 2>&1 >/dev/null |
		awk '$1 == "init" { n++; ms += $5 } END { printf "%d | %.2f", n, ms }'
}

# Wall time without a clock process of its own: bash's EPOCHREALTIME.
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 0; r < runs; r++)); do
	for i in "${!bins[@]}"; do
		t0=$EPOCHREALTIME
		"${bins[i]}" version >/dev/null
		t1=$EPOCHREALTIME
		echo $((${t1/./} - ${t0/./})) >>"$out/version-$i.us"
	done
done

# millis FILE: median [min-max] of the microseconds in FILE, in ms.
millis() {
	sort -n "$1" | awk '{ v[NR] = $1 } END { printf "%.2f [%.2f-%.2f]", v[int((NR + 1) / 2)] / 1000, v[1] / 1000, v[NR] / 1000 }'
}

{
	echo "# cxlvctl start-up (host, no VM)"
	echo
	echo "## Summary"
	echo
	echo "$(date -u +'%Y-%m-%d %H:%M UTC') on the host (kernel $(uname -r), $(nproc) CPUs, load before: $load_before);"
	echo "$runs runs of \`cxlvctl version\` per binary, interleaved; the host is shared, so the times move between runs."
	echo
	echo "| binary | package inits at start | their init time (ms) | \`cxlvctl version\` (ms), median [min-max] | size (bytes) |"
	echo "|---|---|---|---|---|"
	for i in "${!bins[@]}"; do
		echo "| ${names[i]} | $(inits "${bins[i]}" version) | $(millis "$out/version-$i.us") | $(stat -c %s "${bins[i]}") |"
	done
	echo "| bin/cxlvctl-info (\`cxlvctl info\` only) | $(inits "$helper" --sysfs-root /nonexistent) | - | $(stat -c %s "$helper") |"
} >"$repo/results/bench-startup.md"
cat "$repo/results/bench-startup.md"
