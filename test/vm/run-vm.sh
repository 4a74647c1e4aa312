#!/usr/bin/env bash
# shellcheck disable=SC2054 # QEMU options are comma-separated key=value lists
# Boots the guest kernel in QEMU (TCG), runs one guest script and returns its
# exit code. See test/vm/README.md.
#
# test/vm/run-vm.sh [--kver KVER] [--mem 2G] [--smp 2] [--memmap SPEC]... [--cxl]
#                   [--cxl-volatile] [--numa] [--numa-split LOW [--hmat]]
#                   [--hide-hypervisor] [--ndctl-tests] [--append ARGS] [--timeout SEC] [--out DIR]
#                   -- GUEST_SCRIPT [ARGS...]
#
# Every guest runs on the QEMU 10 that test/vm/qemu10.sh unpacked (make deps).
# --cxl-volatile gives QEMU's type-3 device a 512M volatile partition too
# (it implies --cxl); --numa gives the guest an SRAT (one node
# with all of its RAM and CPUs), so that Linux gives the CXL window a node of
# its own.
# --hmat (with --numa-split) gives the guest an ACPI HMAT that describes node
# 0 only, as DRAM (100 ns, 25.6 GB/s from the CPUs): the kernel's memory
# tiering takes its DRAM reference from it, and node 1, CPU-less with node 0
# as its initiator, has no figures but those a CXL region sets.
# --cxl-drop-writes is --cxl on a read-only backing file: QEMU drops every
# write to the device's memory and the guest is not told (negative test only).
# --hide-hypervisor: on 6.2+ the CPU does not report a hypervisor, for
# scenarios whose regions are on QEMU's device: those kernels refuse to commit
# them otherwise (cxl_virt's own regions commit with the bit, cxlv_coherent.c).
# --ndctl-tests puts the upstream source of the guest's ndctl, with ndctl's
# own CXL tests (test/ndctl/fetch.sh), at /ndctl in the guest.
# The repository is shared read-only at /cxlv, DIR (default: a new directory
# under test/vm/out/) read-write at /out. DIR receives console.log, dmesg.txt,
# guest.log and rc. Exit code: the guest script's, 124 if the guest hung
# (--timeout, or its script not begun BOOT_DEADLINE seconds after QEMU
# started), 125 if it never reported, 3 if the kernel log shows a WARN/BUG/Oops/lockup.
# A guest script that exits 0 after writing /out/reboot.cpio gets one more
# boot, as after a reboot, with that archive in front of the initramfs (where
# early ACPI tables and microcode go) and CXLV_BOOT=2 (1 on the first boot);
# the first boot's logs stay in DIR as console.first.log, dmesg.first.txt and
# guest.first.log.
# A guest script may expect one kernel warning: a '# kernel-expects: COUNT
# TEXT' line makes the kernel log check pass over exactly COUNT WARNING
# blocks whose text holds TEXT, and fail on any other count (test/vm/README.md).
# One brace group: bash parses it whole before running, so editing this file
# cannot break a run in progress.
{
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/vm/common.sh
. "$here/common.sh"

usage() {
	sed -n 's/^# \{0,1\}//; /^test\/vm\/run-vm.sh \[/,/^$/p' "${BASH_SOURCE[0]}" >&2
	exit 2
}

kver='' mem=2G smp=2 cxl=0 drop_writes=0 append='' timeout=600 out='' numa_split=''
cxl_volatile=0 numa=0 hide_hypervisor=0 hmat=0 ndctl_tarball=''
memmaps=()
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=$2 && shift 2 ;;
	--mem) mem=$2 && shift 2 ;;
	--smp) smp=$2 && shift 2 ;;
	--memmap) memmaps+=("memmap=$2") && shift 2 ;;
	--cxl) cxl=1 && shift ;;
	--numa-split) numa_split=$2 && shift 2 ;;
	--cxl-volatile) cxl=1 cxl_volatile=1 && shift ;;
	--numa) numa=1 && shift ;;
	--hmat) hmat=1 && shift ;;
	--cxl-drop-writes) cxl=1 drop_writes=1 && shift ;;
	--hide-hypervisor) hide_hypervisor=1 && shift ;;
	--ndctl-tests) ndctl_tarball=$(bash "$repo_root/test/ndctl/fetch.sh") && shift ;;
	--append) append="${append:+$append }$2" && shift 2 ;;
	--timeout) timeout=$2 && shift 2 ;;
	--out) out=$2 && shift 2 ;;
	--) shift && break ;;
	-h | --help) usage ;;
	*) die "unknown option '$1' (options end with '--' before the guest script)" ;;
	esac
done
[ $# -ge 1 ] || usage
script=$1
shift
kver=${kver:-$(guest_kver)}
kernel=$(kernel_image "$kver") ||
	die "no guest kernel /boot/vmlinuz-$kver (nor in the trixie root): run 'make deps', test/vm/trixie-root.sh kernel SERIES, or pass --kver"
export CXLV_USERSPACE
CXLV_USERSPACE=$(guest_userspace "$kver")
[[ $timeout =~ ^[0-9]+$ ]] || die "--timeout wants seconds, got '$timeout'"

# The guest sees the repository at /cxlv: accept a repo-relative path, a path
# under /cxlv, or a host path inside the repository.
case $script in
/cxlv/*) host_script=$repo_root/${script#/cxlv/} ;;
"$repo_root"/*) host_script=$script && script=/cxlv/${script#"$repo_root"/} ;;
/*) die "guest script $script is outside the repository (the guest only sees $repo_root as /cxlv)" ;;
*) host_script=$repo_root/$script && script=/cxlv/$script ;;
esac
[ -f "$host_script" ] || die "guest script $host_script does not exist"

if [ -z "$out" ]; then
	mkdir -p "$here/out"
	out=$(mktemp -d "$here/out/run.XXXXXX")
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out"/{console.log,dmesg.txt,guest.log,rc,reboot.cpio} "$out"/*.first.*

bash "$repo_root/test/tools/build.sh"
base=$(bash "$here/build-initramfs.sh" "$kver")

tmp=$(mktemp -d /tmp/cxlv-vm.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# initrd BOOT [EARLY_CPIO]: writes $tmp/initrd.cpio, the base initramfs with
# the per-run overlay (/init, the script to run and which boot this is),
# after EARLY_CPIO if given.
initrd() {
	rm -rf "$tmp/overlay"
	mkdir -p "$tmp/overlay/etc"
	install -m 755 "$here/guest/init.sh" "$tmp/overlay/init"
	[ -z "$ndctl_tarball" ] || install -D -m 644 "$ndctl_tarball" "$tmp/overlay/ndctl/${ndctl_tarball##*/}"
	{
		printf 'guest_script=%q\n' "$script"
		printf 'guest_args=('
		printf '%q ' "${guest_args[@]}"
		printf ')\n'
		printf 'guest_boot=%d\n' "$1"
	} >"$tmp/overlay/etc/cxlv-run"
	(cd "$tmp/overlay" && find . -mindepth 1 | cpio -o -H newc --quiet) >"$tmp/overlay.cpio"
	cat ${2:+"$2"} "$base" "$tmp/overlay.cpio" >"$tmp/initrd.cpio"
}
guest_args=("$@")
initrd 1

machine=q35
qemu_cxl=()
if [ "$cxl" = 1 ]; then
	# QEMU's emulated CXL type-3 device, below the first of two root ports
	# (the second, empty one made 6.1 program the host bridge decoder under
	# QEMU 7.2; the fixtures and scenarios know this topology). sn= must be
	# non-zero for namespaces to come back from their labels.
	machine=q35,cxl=on,cxl-fmw.0.targets.0=cxl.0,cxl-fmw.0.size=4G
	volatile=''
	if [ "$cxl_volatile" = 1 ]; then
		truncate -s 512M "$tmp/cxl-vmem0"
		qemu_cxl+=(-object "memory-backend-file,id=cxl-vmem0,share=on,mem-path=$tmp/cxl-vmem0,size=512M")
		volatile=,volatile-memdev=cxl-vmem0
	fi
	truncate -s 512M "$tmp/cxl-mem0"
	truncate -s 2M "$tmp/cxl-lsa0"
	read_only=''
	[ "$drop_writes" = 0 ] || read_only=,readonly=on
	qemu_cxl+=(
		-object "memory-backend-file,id=cxl-mem0,share=on,mem-path=$tmp/cxl-mem0,size=512M$read_only"
		-object "memory-backend-file,id=cxl-lsa0,share=on,mem-path=$tmp/cxl-lsa0,size=2M"
		-device pxb-cxl,bus_nr=12,bus=pcie.0,id=cxl.0
		-device cxl-rp,port=0,bus=cxl.0,id=cxl_rp0,chassis=0,slot=2
		-device "cxl-type3,bus=cxl_rp0,memdev=cxl-mem0,lsa=cxl-lsa0,id=cxl-pmem0,sn=0x5157$volatile"
		-device cxl-rp,port=1,bus=cxl.0,id=cxl_rp1,chassis=0,slot=3
	)
fi

# --numa-split LOW: node 0 gets the first LOW of --mem and every CPU, node 1
# the rest (q35 puts it from 4G up), CPU-less: a memmap= over all of node
# 1 makes cxl_virt's RAM come online as a memory-only node, as CXL memory.
qemu_numa=()
[ "$hmat" = 1 ] && node1_initiator=,initiator=0
if [ "$numa" = 1 ]; then
	qemu_numa=(-object "memory-backend-ram,id=node0,size=$mem"
		-numa "node,nodeid=0,cpus=0-$((smp - 1)),memdev=node0")
elif [ -n "$numa_split" ]; then
	total=$(numfmt --from=iec "$mem") low=$(numfmt --from=iec "$numa_split")
	[ "$low" -lt "$total" ] || die "--numa-split $numa_split leaves nothing of --mem $mem for node 1"
	qemu_numa=(-object "memory-backend-ram,id=node0,size=$low"
		-object "memory-backend-ram,id=node1,size=$((total - low))"
		-numa "node,nodeid=0,cpus=0-$((smp - 1)),memdev=node0"
		-numa "node,nodeid=1,memdev=node1${node1_initiator:-}")
fi
if [ "$hmat" = 1 ]; then
	[ -n "$numa_split" ] || die "--hmat needs --numa-split"
	machine=$machine,hmat=on
	qemu_numa+=(-numa hmat-lb,initiator=0,target=0,hierarchy=memory,data-type=access-latency,latency=100
		-numa hmat-lb,initiator=0,target=0,hierarchy=memory,data-type=access-bandwidth,bandwidth=25600M)
fi

# QEMU 10, never Debian 12's 7.2, whose TCG breaks x86 guests at random:
# a CPU may run the int3 of a text patch that already completed (6.12 and
# 7.3 died of "Oops: int3" at sched_clock_cpu+0x9 on '66 <90>', about one
# boot in 80, or hung silently before /init), and CMPXCHG16B takes its
# flags from a stale condition-code state (test/tools/cx16-flags.c, which
# the guest's init runs at every boot).
q10=$cache_dir/qemu10
[ -x "$q10/usr/bin/qemu-system-x86_64" ] || die "no QEMU 10 in $q10: run 'make deps' (test/vm/qemu10.sh)"
qemu=("$q10/usr/bin/qemu-system-x86_64" -L "$q10/usr/share/qemu" -L "$q10/usr/share/seabios")
export QEMU_MODULE_DIR=$q10/usr/lib/x86_64-linux-gnu/qemu

# From 6.2 on the kernel refuses to commit a CXL region when the CPU says it
# runs under a hypervisor (it cannot invalidate caches for it). The module
# lifts that for its own regions; QEMU's device needs the bit hidden.
cpu=max
[ "$hide_hypervisor" = 1 ] && kernel_at_least 6.2 "$kver" && cpu=$cpu,hypervisor=off

# tsc=reliable: TCG's TSC is the host's clock on every vCPU, in step by
# construction, and the flag takes the TSC off the clocksource watchdog
# (tsc_disable_clocksource_watchdog()). 7.3's watchdog runs a two-CPU skew
# check, watchdog_check_skew(), that spun past BOOT_DEADLINE in early boot
# on a loaded host, interrupts off on both vCPUs (hang-cpus.txt, twice).
cmdline="console=ttyS0 panic=-1 loglevel=5 tsc=reliable ${memmaps[*]} $append"
qemu+=(-machine "$machine" -accel tcg,thread=multi -cpu "$cpu"
	-smp "$smp" -m "$mem" -nographic -no-reboot -nic none
	-kernel "$kernel" -initrd "$tmp/initrd.cpio" -append "$cmdline"
	-pidfile "$tmp/qemu.pid"
	-chardev "pipe,id=monitor,path=$tmp/monitor" -mon chardev=monitor,mode=readline
	-fsdev "local,id=repo,path=$repo_root,security_model=none,readonly=on"
	-device virtio-9p-pci,fsdev=repo,mount_tag=cxlv
	-fsdev "local,id=out,path=$out,security_model=none"
	-device virtio-9p-pci,fsdev=out,mount_tag=out
	"${qemu_cxl[@]}" "${qemu_numa[@]}")

expects=$(kernel_expects "$host_script")
[ -z "$expects" ] || [[ $expects =~ ^[0-9]+\ [^[:space:]] ]] ||
	die "$host_script: '# kernel-expects: $expects' wants a count and the warning's text"

acquire_vm_slot
# A kernel reaches its script in 15 s here: one that has not begun it
# BOOT_DEADLINE seconds after QEMU started hung in early boot, and would
# otherwise sit silent until --timeout.
boot_deadline=${BOOT_DEADLINE:-180}
[[ $boot_deadline =~ ^[0-9]+$ ]] || die "BOOT_DEADLINE wants seconds, got '$boot_deadline'"
# The monitor, on two FIFOs that QEMU holds open: what each vCPU was
# running when a boot hung (cpus_where).
mkfifo "$tmp/monitor.in" "$tmp/monitor.out"
# cpus_where: each vCPU's registers, the instructions at its RIP (a hlt
# waits for an interrupt, a pause spins on a lock, an int3 is a text patch)
# and its local APIC (a timer armed with its vector pending in IRR is an
# interrupt QEMU never delivered), into $out/hang-cpus.txt; the RIP,
# instruction and APIC timer lines go to the log.
cpus_where() {
	local cpu
	{
		echo "info registers -a"
		for ((cpu = 0; cpu < smp; cpu++)); do
			echo "cpu $cpu"
			echo "x/4i \$pc"
			echo "info lapic $cpu"
		done
	} >"$tmp/monitor.in"
	# (the monitor echoes each typed key with cursor moves: dropped)
	timeout 5 cat "$tmp/monitor.out" | sed 's/\x1b\[[0-9;]*[A-Za-z]//g; s/\r//g' >"$out/hang-cpus.txt" || true
	grep -E '^(CPU#|RIP=|0x[0-9a-f]+:|dumping local APIC|LVTT|Timer|IRR|ISR)' "$out/hang-cpus.txt" >&2 || true
}
# watch_boot: stops QEMU, and leaves $tmp/boot-hung, when the console shows
# no guest script within the deadline.
watch_boot() {
	local waited
	for ((waited = 0; waited < boot_deadline; waited++)); do
		sleep 1
		grep -q '^=== TEST-BEGIN' "$out/console.log" 2>/dev/null && return 0
	done
	touch "$tmp/boot-hung"
	cpus_where
	[ ! -s "$tmp/qemu.pid" ] || kill "$(cat "$tmp/qemu.pid")" 2>/dev/null || true
}
# boot: one guest run, its verdict in rc (see the exit codes above).
boot() {
	log "boot $kver ($CXLV_USERSPACE user space) mem=$mem smp=$smp cpu=$cpu${memmaps[*]:+ ${memmaps[*]}}$([ "$cxl" = 1 ] && echo ' +cxl'): $script ${guest_args[*]} (out: $out)"
	local start=$SECONDS qemu_rc kernel_log expects_ok=1 watcher
	rm -f "$tmp/qemu.pid" "$tmp/boot-hung"
	watch_boot &
	watcher=$!
	set +e
	timeout -k 10 "$timeout" "${qemu[@]}" </dev/null 2>&1 | sed -u 's/\r$//; s/\x1b[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' | tee "$out/console.log"
	qemu_rc=${PIPESTATUS[0]}
	kill "$watcher" 2>/dev/null
	wait "$watcher"
	set -e
	local elapsed=$((SECONDS - start))

	if [ -e "$tmp/boot-hung" ]; then
		log "guest hung in early boot: its script had not begun ${boot_deadline}s after QEMU started (BOOT_DEADLINE). What the kernel said of it, then the last console lines:"
		grep -m 30 -E 'rcu:|watchdog:|INFO:|BUG:|NMI backtrace|clocksource' "$out/console.log" >&2 || true
		tail -n 40 "$out/console.log" >&2
		exit 124
	fi

	if [ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ]; then
		log "guest hung: killed after ${timeout}s. Last console lines:"
		tail -n 40 "$out/console.log" >&2
		exit 124
	fi
	if [ -s "$out/rc" ]; then
		rc=$(cat "$out/rc")
	else
		log "guest never reported an exit code (qemu exit $qemu_rc, kernel panic?). Last console lines:"
		tail -n 40 "$out/console.log" >&2
		rc=125
	fi
	kernel_log=$out/dmesg.txt
	[ -s "$kernel_log" ] || kernel_log=$out/console.log
	# A '# kernel-expects: COUNT TEXT' header excuses exactly COUNT warning
	# blocks holding TEXT (common.sh); the rest of the log is checked as is.
	if [ -n "$expects" ]; then
		excuse_expected "$kernel_log" "${expects%% *}" "${expects#* }" "$tmp/kernel.log" || expects_ok=0
		kernel_log=$tmp/kernel.log
	fi
	if ! check_kernel_log "$kernel_log" || [ "$expects_ok" = 0 ]; then
		[ "$rc" != 0 ] || rc=3
	fi
	log "guest exit $rc after ${elapsed}s (out: $out)"
}
boot
# A guest script that passed and wrote /out/reboot.cpio asks for one more
# boot with that archive at the front of the initramfs (test/vm/README.md):
# the first boot's logs are kept as *.first.*.
if [ "$rc" = 0 ] && [ -e "$out/reboot.cpio" ]; then
	for f in console.log dmesg.txt guest.log; do
		mv "$out/$f" "$out/${f%.*}.first.${f##*.}"
	done
	rm -f "$out/rc"
	mv "$out/reboot.cpio" "$tmp/reboot.cpio"
	initrd 2 "$tmp/reboot.cpio"
	boot
fi
exit "$rc"
}
