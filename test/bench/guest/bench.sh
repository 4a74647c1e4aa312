#!/bin/bash
# shellcheck disable=SC2317 # the parts are functions run through optional and timed
# Guest side of `make bench` (test/bench/run.sh boots it through
# test/vm/run-vm.sh). One boot holds every target: a cxl_virt device, QEMU's
# emulated CXL type-3 device, a legacy RAM-backed pmem range (memmap=!) and
# anonymous RAM. It measures, in this order:
#   control plane: create -> memdev bound, region and namespace create,
#     `cxlvctl list --json` vs `cxl list -vvv`, `cxlvctl region create` to a
#     mounted DAX filesystem;
#   emulator: mailbox round trip (GET_LSA 2 KiB) and a full label read on
#     cxl_virt vs QEMU's device, the emulator's idle CPU (hrtimer events);
#   data path: 1 KiB random writes/reads, memcpy over the mmap (memiops) and
#     the RFC's fio job, targets interleaved round by round;
#   scale: create time and memory for 1, 4 and 16 devices.
# Arguments are KEY=VALUE settings (see the defaults below). Every sample goes
# to /out/samples.tsv (section, metric, target, value, unit), every skipped or
# failed part to /out/notes.txt; the host turns them into results/.
# One brace group: bash parses it whole before running, so editing this file
# cannot break a run in progress.
{
# shellcheck source=test/vm/guest/lib.sh
. /cxlv/test/vm/guest/lib.sh
# shellcheck source=test/vm/guest/cxlv.sh
. /cxlv/test/vm/guest/cxlv.sh

runs=3 memcpy_seconds=2 fio_runtime=3 working_set=256M list_calls=9 idle_seconds=10
cxlv_base=0x180000000 cxlv_span=8G cxlv_dev_size=1G scale_dev_size=512M scale_counts="1 4 16"
parts="list emulator data mount scale"
for setting in "$@"; do
	[[ $setting == *=* ]] || fail "argument '$setting' is not KEY=VALUE"
	declare "${setting%%=*}=${setting#*=}"
done

bench=/cxlv/test/bench
# Programs run from tmpfs like the initramfs's own tools: executing from the
# 9p share re-reads the binary from the host and would be timed with it.
mkdir -p /tmp/bench-bin
for program in /cxlv/bin/cxlvctl /cxlv/results/tmp/bin/memiops /cxlv/test/tools/bin/cxl-mbox-probe \
	/cxlv/results/tmp/bin/cxlvctl-baseline; do
	[ ! -x "$program" ] || cp "$program" /tmp/bench-bin/
done
PATH=/tmp/bench-bin:$PATH
memiops=/tmp/bench-bin/memiops
probe=/tmp/bench-bin/cxl-mbox-probe
qemu_serial=$((0x5157)) # run-vm.sh --cxl gives QEMU's device sn=0x5157
samples=/out/samples.tsv notes=/out/notes.txt
: >"$samples"
: >"$notes"

want() { [[ " $parts " == *" $1 "* ]]; }
now_us() { echo "${EPOCHREALTIME/./}"; }
sample() { printf '%s\t%s\t%s\t%s\t%s\n' "$@" | tee -a "$samples"; }
note() { echo "$*" | tee -a "$notes"; }
# bytes SIZE: SIZE with an optional K, M or G suffix, in bytes.
bytes() {
	case $1 in
	*[Kk]) echo $((${1%?} << 10)) ;;
	*[Mm]) echo $((${1%?} << 20)) ;;
	*[Gg]) echo $((${1%?} << 30)) ;;
	*) echo $(($1)) ;;
	esac
}

# timed SECTION METRIC TARGET CMD...: runs CMD once and records its wall time.
timed() {
	local section=$1 metric=$2 target=$3 t0 t1
	shift 3
	t0=$(now_us)
	"$@" >/tmp/timed.out 2>&1 || { cat /tmp/timed.out; return 1; }
	t1=$(now_us)
	sample "$section" "$metric" "$target" $(((t1 - t0) / 1000)).$(((t1 - t0) % 1000 / 100)) ms
}

# optional NAME FUNC ARGS...: runs a part that may fail without taking the
# rest down; the subshell keeps errexit working inside it.
optional() {
	local name=$1 rc
	shift
	echo "=== $name"
	set +e
	(
		set -e
		"$@"
	)
	rc=$?
	set -e
	[ "$rc" = 0 ] || note "$name: FAILED (exit $rc), its numbers are missing"
	return 0
}

memdev_by_serial() {
	cxl list -M | jq -r --argjson s "$1" '.[] | select(.serial == $s) | .memdev'
}

# --- set-up: the stock drivers, QEMU's device, legacy pmem
echo "=== environment"
{
	echo "guest_kernel=$(uname -r)"
	echo "cxl_cli=$(cxl --version)"
	echo "ndctl=$(ndctl --version)"
	echo "fio=$(fio --version)"
	echo "guest_cpus=$(nproc)"
	echo "guest_mem_kib=$(awk '/^MemTotal/ {print $2}' /proc/meminfo)"
	echo "cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
} | tee /out/env.txt
for m in cxl_acpi cxl_pci cxl_mem cxl_pmem libnvdimm nd_pmem nd_e820 dax_pmem device_dax; do
	/sbin/modprobe "$m"
done
wait_for 30 all_memdevs_bound || fail "QEMU's CXL memdev never bound (was the VM booted with --cxl?)"
qemu_mem=$(memdev_by_serial $qemu_serial)
[ -n "$qemu_mem" ] || fail "no memdev with QEMU's serial $qemu_serial"
qemu_decoder=$(cxl list -D -d root | jq -r '.[0].decoder')
echo "QEMU device: $qemu_mem under $qemu_decoder"

wait_for 10 eval "ndctl list -R -b e820 | jq -e 'length > 0'" || fail "no legacy pmem region (memmap=nn!ss missing?)"
pmem_ns=$(ndctl list -N -b e820 | jq -r '.[0].dev')
t0=$(now_us)
pmem_dax=$(ndctl create-namespace -f -e "$pmem_ns" -m devdax | jq -r '.daxregion.devices[0].chardev')
t1=$(now_us)
sample control namespace_create_ms pmem $(((t1 - t0) / 1000)) ms
echo "legacy pmem: $pmem_ns -> /dev/$pmem_dax"

# --- cxl_virt: create -> memdev bound, several times; the last device stays
cxlv_dev='' cxlv_mem=''
# wait_bound DEV...: until cxl_mem has bound every device's memdev, polling
# every 10 ms (cxlv.sh's wait_ready polls every 100 ms: too coarse to time).
wait_bound() {
	local dev deadline=$((SECONDS + 60))
	for dev; do
		until [ -n "$(attr "$dev" memdev)" ]; do
			[ "$SECONDS" -lt "$deadline" ] || fail "$dev: memdev not bound after 60 s (state $(attr "$dev" state))"
			sleep 0.01
		done
	done
}
cxlv_create_cycles() {
	local i t0 t1 dev
	for ((i = 1; i <= runs; i++)); do
		t0=$(now_us)
		dev=$(create "memstart=$((cxlv_base)),memsize=$(bytes "$cxlv_dev_size"),cxltype=3,pmem=1")
		wait_bound "$dev"
		t1=$(now_us)
		sample control create_to_memdev_bound_ms cxl_virt $(((t1 - t0) / 1000)) ms
		[ "$i" = "$runs" ] || remove "$dev"
	done
}
if [ ! -e "$CXLV_KO" ]; then
	note "cxl_virt: $CXLV_KO not built: cxl_virt columns are missing"
elif ! (load_stack); then
	note "cxl_virt: insmod failed: cxl_virt columns are missing"
else
	optional "cxl_virt create cycles" cxlv_create_cycles
	for d in /sys/bus/cxl_virt/devices/*; do
		[ ! -e "$d" ] || cxlv_dev=${d##*/}
		break
	done
	[ -z "$cxlv_dev" ] || cxlv_mem=$(attr "$cxlv_dev" memdev)
	if [ -z "$cxlv_mem" ]; then
		note "cxl_virt: no device with a bound memdev: cxl_virt columns are missing"
		cxlv_dev=''
	fi
fi
echo "cxl_virt: ${cxlv_dev:-none} ${cxlv_mem}"

# --- list: cxlvctl list --json vs cxl list -vvv, and vs the cxlvctl of
# BENCH_BASELINE (run.sh) when given: before and after in the same boot.
baseline=/tmp/bench-bin/cxlvctl-baseline
list_timings() {
	local state=$1 i
	for ((i = 0; i < list_calls; i++)); do
		timed control "list_ms_$state" cxlvctl cxlvctl list --json
		timed control "list_ms_$state" cxl-cli cxl list -vvv
		[ ! -x "$baseline" ] || timed control "list_ms_$state" cxlvctl-baseline "$baseline" list --json
	done
}
# process start-up alone, the floor under both listings: each prints its
# version (cxlvctl also reads the loaded module's, as the user would see)
startup_timings() {
	local i
	for ((i = 0; i < list_calls; i++)); do
		timed control list_ms_startup cxlvctl cxlvctl version
		timed control list_ms_startup cxl-cli cxl version
		[ ! -x "$baseline" ] || timed control list_ms_startup cxlvctl-baseline "$baseline" version
	done
}
if [ -n "$cxlv_dev" ] && want list; then
	optional "list timing, devices only" list_timings devices
	optional "start-up timing" startup_timings
fi

# --- emulator: mailbox round trip and a full label read
# label_read_ms MEMDEV TARGET: cxl read-labels of 128 KiB, whole process, and
# per GET_LSA command (commands counted by tracing the process's ioctls).
label_read() {
	local mem=$1 target=$2 cmds t0 t1
	strace -f -e trace=ioctl -o /tmp/ioctls cxl read-labels "$mem" -s 131072 -o /tmp/labels >/dev/null 2>&1
	cmds=$(grep -c 'CXL_MEM_SEND_COMMAND\|0xce, 0x2' /tmp/ioctls) || true
	t0=$(now_us)
	cxl read-labels "$mem" -s 131072 -o /tmp/labels >/dev/null 2>&1
	t1=$(now_us)
	sample emulator label_read_128k_ms "$target" $(((t1 - t0) / 1000)) ms
	[ "$cmds" -gt 0 ] && sample emulator label_read_us_per_cmd "$target" $(((t1 - t0) / cmds)) us
	sample emulator label_read_cmds "$target" "$cmds" commands
}
mailbox() {
	local i mem target
	[ -x "$probe" ] || { note "mailbox: no cxl-mbox-probe (test/tools/build.sh builds it)"; return 1; }
	for ((i = 0; i < runs; i++)); do
		for target in cxl_virt qemu; do
			mem=$qemu_mem
			[ "$target" = qemu ] || mem=$cxlv_mem
			sample emulator get_lsa_2k_us "$target" \
				"$($probe get-lsa "/dev/cxl/$mem" 0 2048 64 | sed -n 's/^us_per_cmd=//p')" us
			label_read "$mem" "$target"
		done
	done
}
# idle_cost: the emulator's poll timer over idle_seconds with the device idle,
# from the hrtimer expire entry/exit events of its callback.
idle_cost() {
	local tr=/sys/kernel/tracing event
	[ -d "$tr/events" ] || mount -t tracefs tracefs "$tr"
	sleep 2 # let the poll period decay to idle after the mailbox part
	echo 0 >"$tr/tracing_on"
	echo >"$tr/trace"
	for event in entry exit; do echo 1 >"$tr/events/timer/hrtimer_expire_$event/enable"; done
	echo 1 >"$tr/tracing_on"
	sleep "$idle_seconds"
	echo 0 >"$tr/tracing_on"
	for event in entry exit; do echo 0 >"$tr/events/timer/hrtimer_expire_$event/enable"; done
	cp "$tr/trace" /out/idle-trace.txt
	# entry of our callback -> the next exit of the same hrtimer on that CPU
	awk -v secs="$idle_seconds" '
		match($0, /\[[0-9]+\]/) { cpu = substr($0, RSTART, RLENGTH) }
		match($0, / [0-9]+\.[0-9]+: /) { ts = substr($0, RSTART + 1, RLENGTH - 3) }
		/hrtimer_expire_entry:.*function=cxlv_emu_poll/ {
			match($0, /hrtimer=[0-9a-fx]+/); open[cpu] = substr($0, RSTART, RLENGTH); start[cpu] = ts
		}
		/hrtimer_expire_exit:/ && (cpu in open) {
			match($0, /hrtimer=[0-9a-fx]+/)
			if (substr($0, RSTART, RLENGTH) == open[cpu]) { n++; busy += ts - start[cpu]; delete open[cpu] }
		}
		END {
			printf "emulator\tidle_callbacks_per_s\tcxl_virt\t%.1f\tper_s\n", n / secs
			if (n) printf "emulator\tidle_callback_us\tcxl_virt\t%.2f\tus\n", busy / n * 1e6
			printf "emulator\tidle_cpu_pct\tcxl_virt\t%.4f\tpct_of_one_vcpu\n", busy / secs * 100
		}' /out/idle-trace.txt | tee -a "$samples"
}
if [ -n "$cxlv_dev" ] && want emulator; then
	optional "mailbox round trip" mailbox
	optional "emulator idle cost" idle_cost
fi

# --- region + devdax namespace: timed; the last one stays for the data path
# make_devdax MEMDEV ROOT_DECODER TARGET: prints the dax chardev.
make_devdax() {
	local mem=$1 decoder=$2 target=$3 region t0 t1 t2 dax
	t0=$(now_us)
	region=$(cxl create-region -m -d "$decoder" -t pmem "$mem" | jq -r '.region')
	t1=$(now_us)
	dax=$(ndctl create-namespace -r "$region" -m devdax | jq -r '.daxregion.devices[0].chardev')
	t2=$(now_us)
	[ -c "/dev/$dax" ] || return 1
	sample control region_create_ms "$target" $(((t1 - t0) / 1000)) ms >&2
	sample control namespace_create_ms "$target" $(((t2 - t1) / 1000)) ms >&2
	echo "$dax"
}
# drop_devdax MEMDEV: destroys the namespaces and the region on a memdev.
drop_devdax() {
	local region ns
	region=$(cxl list -R -m "$1" 2>/dev/null | jq -r '.[0].region // empty')
	[ -n "$region" ] || return 0
	for ns in $(ndctl list -N -r "$region" | jq -r '.[].dev'); do
		ndctl destroy-namespace -f "$ns"
	done
	cxl destroy-region -f "$region"
}
devdax_cycles() {
	local i
	for ((i = 1; i < runs; i++)); do
		make_devdax "$@" >/dev/null
		drop_devdax "$1"
	done
}
optional "QEMU device region/namespace cycles" devdax_cycles "$qemu_mem" "$qemu_decoder" qemu
qemu_dax=$(make_devdax "$qemu_mem" "$qemu_decoder" qemu) || fail "QEMU device: no devdax namespace"
cxlv_dax=''
if [ -n "$cxlv_dev" ]; then
	cxlv_decoder=$(attr "$cxlv_dev" decoder)
	optional "cxl_virt region/namespace cycles" devdax_cycles "$cxlv_mem" "$cxlv_decoder" cxl_virt
	cxlv_dax=$(make_devdax "$cxlv_mem" "$cxlv_decoder" cxl_virt) ||
		{ note "cxl_virt: no devdax namespace: data-path cxl_virt columns are missing"; cxlv_dax=''; }
	! want list || optional "list timing, with region + devdax" list_timings region
fi

# --- data path
targets=() paths=()
add_target() {
	# Writes that do not land (qemu-lost-writes shows how) must not pass as speed.
	if [ "$2" != anon ] && ! check_pattern "$2" 7 --mmap --size 16M >/dev/null; then
		note "$1: data written to $2 does not read back: not benchmarked"
		return 0
	fi
	targets+=("$1") paths+=("$2")
}
[ -z "$cxlv_dax" ] || add_target cxl_virt "/dev/$cxlv_dax"
add_target qemu "/dev/$qemu_dax"
add_target pmem "/dev/$pmem_dax"
add_target anon anon
echo "=== data path: ${targets[*]}"
daxctl list -R -D >/out/daxctl-list.json 2>&1 || true # alignments, for the record
run_fio() { # TARGET PATH NUMJOBS
	local job=$bench/fio/devdax-randwrite.fio
	[ "$2" != anon ] || job=$bench/fio/tmpfs-randwrite.fio
	DAX=$2 FILE=/tmp/fio-anon RUNTIME=$fio_runtime SIZE=$working_set NUMJOBS=$3 \
		fio --output-format=json "$job" >/tmp/fio.json 2>/tmp/fio.err || { cat /tmp/fio.err; return 1; }
	sample data "fio_randwrite_nj$3" "$1" "$(jq '.jobs[0].write.iops | floor' /tmp/fio.json)" iops
}
want data || targets=()
for ((round = 1; round <= runs; round++)); do
	# each round starts at the next target: no target always runs first
	for ((k = 0; k < ${#targets[@]}; k++)); do
		i=$(((k + round - 1) % ${#targets[@]}))
		for op in write read; do
			out=$($memiops $op --bs 1024 --size "$(bytes "$working_set")" --seconds "$memcpy_seconds" \
				--seed "$round" "${paths[i]}")
			sample data "memcpy_rand${op}" "${targets[i]}" "$(sed -n 's/^iops=\([0-9]*\).*/\1/p' <<<"$out")" iops
		done
		run_fio "${targets[i]}" "${paths[i]}" 1
		run_fio "${targets[i]}" "${paths[i]}" 2
		rm -f /tmp/fio-anon
	done
done

# --- cxlvctl region create -> mounted DAX filesystem
region_to_mount() { # TARGET MEMDEV CXLVCTL_DEVICE_OPTION...
	local target=$1 mem=$2 region
	shift 2
	mkdir -p /mnt/bench
	timed control region_create_to_dax_mount_ms "$target" \
		cxlvctl region create "$@" --fs xfs --mount /mnt/bench
	grep -qE ' /mnt/bench xfs [^ ]*dax' /proc/mounts || { echo "not mounted with dax"; return 1; }
	umount /mnt/bench
	region=$(cxl list -R -m "$mem" | jq -r '.[0].region')
	cxlvctl region destroy "$region"
}
if ! want mount; then
	:
elif [ -n "$cxlv_dev" ] && cxlvctl region --help >/dev/null 2>&1; then
	drop_devdax "$cxlv_mem"
	drop_devdax "$qemu_mem"
	optional "cxlvctl region create to a DAX mount, cxl_virt" region_to_mount cxl_virt "$cxlv_mem" --device "$cxlv_dev"
	optional "cxlvctl region create to a DAX mount, QEMU device" region_to_mount qemu "$qemu_mem" --memdev "$qemu_mem"
else
	note "cxlvctl region create: not measured (no cxl_virt device or no 'cxlvctl region' command)"
fi

# --- scale: N devices from create to every memdev bound, and their memory
mem_available_kib() { awk '/^MemAvailable/ {print $2}' /proc/meminfo; }
scale() {
	local n i t0 t1 m0 devs=() size fits
	drop_devdax "$cxlv_mem"
	remove "$cxlv_dev"
	size=$(bytes "$scale_dev_size")
	fits=$(($(bytes "$cxlv_span") / size))
	for n in $scale_counts; do
		[ "$n" -le "$fits" ] || { note "scale: $n devices of $scale_dev_size do not fit in $cxlv_span"; continue; }
		sync && echo 3 >/proc/sys/vm/drop_caches
		m0=$(mem_available_kib)
		devs=()
		t0=$(now_us)
		for ((i = 0; i < n; i++)); do
			devs+=("$(create "memstart=$((cxlv_base + i * size)),memsize=$size,cxltype=3,pmem=1")")
		done
		wait_bound "${devs[@]}"
		t1=$(now_us)
		sample scale "create_ms_${n}_devices" cxl_virt $(((t1 - t0) / 1000)) ms
		sync && echo 3 >/proc/sys/vm/drop_caches
		sample scale "memory_kib_${n}_devices" cxl_virt $((m0 - $(mem_available_kib))) KiB
		list_calls=3 list_timings "${n}dev"
		for i in "${devs[@]}"; do remove "$i"; done
	done
}
[ -z "$cxlv_dev" ] || ! want scale || optional "scale" scale

no_kernel_complaints
echo "=== bench done"
exit
}
