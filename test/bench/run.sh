#!/usr/bin/env bash
# `make bench`: boots ONE VM holding a cxl_virt device, QEMU's emulated CXL
# device, a legacy RAM-backed pmem range and anonymous RAM, runs
# test/bench/guest/bench.sh in it, and writes results/bench.{md,json,svg}
# (test/bench/report). Raw output of each run stays in results/tmp/ (ignored
# by git).
#
# Settings (environment): BENCH_RUNS (rounds and repetitions, default 5),
# BENCH_MEMCPY_SECONDS (default 2), BENCH_FIO_RUNTIME (default 3),
# BENCH_QUICK=1 (2 rounds of 1 s / 2 s: a harness check, noisy numbers),
# BENCH_PARTS (default "list emulator data mount scale"; set-up, create,
# region and namespace timings always run),
# BENCH_OUT (raw output directory, default results/tmp/run-<UTC time>),
# BENCH_BASELINE (an earlier cxlvctl binary, e.g. built from main: its list
# and start-up are timed in the same boot, as the "before" column).
# Exit: the guest script's (see test/vm/run-vm.sh); the report is written
# whenever the guest produced samples.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=test/vm/common.sh
. "$repo/test/vm/common.sh"
results=$repo/results
runs=${BENCH_RUNS:-5} memcpy_seconds=${BENCH_MEMCPY_SECONDS:-2} fio_runtime=${BENCH_FIO_RUNTIME:-3}
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	runs=2 memcpy_seconds=1 fio_runtime=2
fi
out=${BENCH_OUT:-$results/tmp/run-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out" "$results/tmp/bin"

# Guest memory map (q35 puts 2G low, the rest from 4G): legacy pmem right
# after 4G, then 8G reserved for cxl_virt devices (one 1G device for the data
# path, then up to 16 of 512M for the scale part) ending at the top of RAM.
pmem_spec='512M!0x100000000'
cxlv_base=0x180000000 cxlv_span=8G
guest_mem=12G

gcc -static -O2 -Wall -Wextra -Werror -o "$results/tmp/bin/memiops" "$here/memiops.c"
rm -f "$results/tmp/bin/cxlvctl-baseline"
if [ -n "${BENCH_BASELINE:-}" ]; then
	cp "$BENCH_BASELINE" "$results/tmp/bin/cxlvctl-baseline"
fi

# Host load: the machine is shared, so say how busy it was during the run:
# "load1 qemu_processes ours", ours = 1 once our VM holds a slot and runs.
sample_load() {
	while :; do
		printf '%s %s %s\n' "$(cut -d' ' -f1 /proc/loadavg)" "$(pgrep -c qemu-system || true)" \
			"$(pgrep -f -c "^qemu-system.*path=$out," || true)"
		sleep 5
	done >"$out/host-load.txt"
}
{
	echo "host_kernel=$(uname -r)"
	echo "qemu=$(qemu-system-x86_64 --version | head -1)"
	echo "gcc=$(gcc -dumpfullversion)"
	echo "cxl_virt_sha256=$(sha256sum "$repo/kmod/build/$(guest_kver)/cxl_virt.ko" 2>/dev/null | cut -c1-16 || echo none)"
	echo "cxlvctl_sha256=$(sha256sum "$repo/bin/cxlvctl" 2>/dev/null | cut -c1-16 || echo none)"
	echo "accelerator=TCG (-accel tcg,thread=multi; KVM does not work on this machine)"
	echo "host_cpus=$(nproc)"
	echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "started=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "settings=runs=$runs memcpy_seconds=$memcpy_seconds fio_runtime=$fio_runtime working_set=256M"
} >"$out/host.txt"
sample_load &
sampler=$!
trap 'kill $sampler 2>/dev/null || true' EXIT

set +e
bash "$repo/test/vm/run-vm.sh" --mem "$guest_mem" --smp 2 --cxl \
	--memmap "$pmem_spec" --memmap "$cxlv_span\$$cxlv_base" --timeout 2400 --out "$out" -- \
	test/bench/guest/bench.sh runs="$runs" memcpy_seconds="$memcpy_seconds" \
	fio_runtime="$fio_runtime" cxlv_base="$cxlv_base" cxlv_span="$cxlv_span" \
	parts="${BENCH_PARTS:-list emulator data mount scale}"
rc=$?
set -e
kill "$sampler" 2>/dev/null || true
echo "finished=$(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$out/host.txt"

if [ ! -s "$out/samples.tsv" ]; then
	echo "bench: the guest produced no samples (exit $rc); see $out/guest.log" >&2
	exit $((rc == 0 ? 1 : rc))
fi
(cd "$repo" && PATH=$PATH:/usr/local/go/bin go run ./test/bench/report -in "$out" -out "$results" -guest-exit "$rc")
echo "bench: results/bench.md, results/bench.json, results/bench.svg (raw: $out)"
exit "$rc"
