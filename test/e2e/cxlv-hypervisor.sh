#!/bin/bash
# vm: --mem 3G --numa-split 2G --memmap 1G$0x100000000
# kernels: 6.12 7.3
# kernel-expects: 1 Failed to synchronize CPU cache state
# cxl_virt regions on a CPU that reports a hypervisor (this VM's, as in KVM
# guests and cloud instances), where Linux 6.2+ refuses region commits that
# it cannot invalidate the CPU caches for (kmod/hooks/cxlv_coherent.c):
# (a) with the module's default a pmem region (devdax, data read back
# through mmap) and a RAM region (node 1, data written under --membind read
# back) commit and are destroyed, the kernel log says the check was
# answered for each, and cxlvctl info reports "skipped"; (b) with
# coherent_regions=0 it reports "off", region create fails with one line
# naming the reason and the switch, and the CXL and nd state is as before
# (no region, endpoint decoder without DPA); (c) a tracefs kprobe on
# cpu_cache_has_invalidate_memregion, set up before cxl_virt is loaded,
# counts every call of the stock cxl tool's commits and resets (the number
# the kernel's sources give); the hooks table says the hook is armed;
# coherent_regions=0 written at run time makes the next commit fail the
# kernel's way (its dev_WARN, the one kernel warning this scenario
# expects: the header above) and =1 makes the next one pass; a committed
# region deleted right away lets rmmod go only after its reset; (d) rmmod
# races delete_region of a committed region UNLOAD_RACES times (10; make
# stress: 50), every reset counted, and at least one unload must have begun
# before delete_region returned (else the race was never run).
# Prints TIME lines for the region creates.
#   cxlv-hypervisor.sh [UNLOAD_RACES=N]
# shellcheck source=test/vm/guest/cxlv.sh
. "$CXLV/test/vm/guest/cxlv.sh"
# shellcheck source=test/vm/guest/region-state.sh
. "$CXLV/test/vm/guest/region-state.sh"
# shellcheck source=test/e2e/cxlvctl-region-ram-lib.sh
. "$CXLV/test/e2e/cxlvctl-region-ram-lib.sh"

SKIPPED="CPU cache check answered yes: cxl_virt memory is host RAM"
REFUSED="Failed to synchronize CPU cache state"
TRACING=/sys/kernel/tracing
PARAM=/sys/module/cxl_virt/parameters/coherent_regions

# skip_lines: how many times the kernel log says cxl_virt skipped it.
skip_lines() { dmesg | grep -c "$SKIPPED" || true; }

# reports STATE: the module's cache_invalidation and cxlvctl info say STATE.
reports() {
	local info
	expect_eq cache_invalidation "$(cat "$CXLV_SYS/cache_invalidation")" "$1"
	info=$("$CXLVCTL" info --json) || return
	expect_eq "info cxl_virt_cache_invalidation" "$(jq -r .cxl_virt_cache_invalidation <<<"$info")" "$1"
	"$CXLVCTL" info | grep "^cxl_virt region cache invalidation: $1"
}

# calls: how often cpu_cache_has_invalidate_memregion ran, as the tracefs
# kprobe cxlvtest counts it (kprobe_profile: event, hits, misses).
calls() { awk '$1 == "cxlvtest" {print $2}' "$TRACING/kprobe_profile"; }

# hook_state: the coherent-regions row's state in the hooks table.
hook_state() { awk -F'\t' '$1 == "coherent-regions" {print $2}' "$CXLV_SYS/hooks"; }

# counted WANT WHAT CMD...: runs CMD; cpu_cache_has_invalidate_memregion
# must have been called exactly WANT times meanwhile.
counted() {
	local want=$1 what=$2 c0
	shift 2
	c0=$(calls)
	step "$what" "$@"
	expect_eq "cpu_cache_has_invalidate_memregion calls for: $what" "$(($(calls) - c0))" "$want"
}

# Calls per cache invalidation the kernel makes for a cxl_virt region when
# the check is answered yes: cxl_region_invalidate_memregion() asks
# cpu_cache_has_invalidate_memregion(), then cpu_cache_invalidate_memregion()
# asks it again (a real call on 6.12 and 7.3: arch/x86/mm/pat/set_memory.c,
# same unit, not inlined) before it writes back the caches. Answered no
# (coherent_regions=0), the first call is the only one.
PER_INVALIDATION=2
# Invalidations per commit: one (commit_store(), 7.x's __commit()). Per
# decommit (commit=0): 6.x's commit_store() invalidates before it looks at
# the direction and again in cxl_region_decode_reset(); 7.x only in the
# reset. Per delete of a committed region: one, the reset of the targets'
# detach (unregister_region() after device_del()).
case $KVER in
6.*) PER_DECOMMIT=2 ;;
*) PER_DECOMMIT=1 ;;
esac
# And one call when a pmem region's nd_region goes (libnvdimm's
# nd_region_remove(), drivers/nvdimm/region.c, on region disable or
# delete): outside any cxl_virt commit or reset, so the CPU's "no" stands
# and nothing is invalidated.
ND_REGION_GONE=1

UNLOAD_RACES=10
for kv in "$@"; do
	case $kv in
	UNLOAD_RACES=*) UNLOAD_RACES=${kv#*=} ;;
	"") ;;
	*) fail "unknown argument '$kv'" ;;
	esac
done
ram_setup
step "the CPU reports a hypervisor" has -w hypervisor /proc/cpuinfo
# Before cxl_virt: its probes on the same function are registered after this
# one, so kprobes runs theirs first; this one must still see every call.
[ -e "$TRACING/kprobe_events" ] || step "mount tracefs" mount -t tracefs tracefs "$TRACING"
step "tracefs kprobe on cpu_cache_has_invalidate_memregion" \
	sh -c "echo 'p:cxlvtest cpu_cache_has_invalidate_memregion' >>$TRACING/kprobe_events"
step "enable it" sh -c "echo 1 >$TRACING/events/kprobes/cxlvtest/enable"
expect_eq "calls before cxl_virt" "$(calls)" 0
step "load the stack and cxl_virt" load_stack --ram --pmem
step "cache_invalidation: skipped" reports skipped

# (a) pmem: devdax written and read back, then destroyed.
step "create a pmem device" "$CXLVCTL" create --memstart 0x100000000 --size 1G --pmem --wait
skips0=$(skip_lines)
timed "pmem region create (hypervisor bit on)" sh -c "'$CXLVCTL' region create --device cxlv0 --namespace devdax --json >$OUT/pmem.json"
cat "$OUT/pmem.json"
region=$(jq -r .region "$OUT/pmem.json")
dax=/dev/$(jq -r '.namespaces[0].chardev' "$OUT/pmem.json")
step "$region committed" json_has '.[0].decode_state == "commit"' cxl list -R -r "$region"
check_devdax "$dax" 16
[ "$(skip_lines)" -gt "$skips0" ] || fail "no '$SKIPPED' line for the pmem commit"
dmesg | grep "$SKIPPED"
step "destroy $region" "$CXLVCTL" region destroy --force "$region"
step "remove cxlv0" "$CXLVCTL" remove cxlv0

# (a) ram: the same range as a pmem=0 device, its memory node 1, made
# the kernel's way (sysfs, as cxlv-ram does) on every kernel.
all_online() { daxctl list | jq -e '.[0].online_memblocks == .[0].total_memblocks' >/dev/null; }
dev=$(create "memstart=0x100000000,memsize=$((1 << 30)),cxltype=3,pmem=0")
wait_ready "$dev"
sysw online_movable "$MEMDIR/auto_online_blocks"
skips0=$(skip_lines)
t0=$(uptime_ms)
region=$(sysfs_region "$dev" ram)
echo "TIME ram region commit and bind (hypervisor bit on): $(($(uptime_ms) - t0)) ms"
step "$region committed" json_has '.[0].decode_state == "commit"' cxl list -R -r "$region"
[ "$(skip_lines)" -gt "$skips0" ] || fail "no '$SKIPPED' line for the ram commit"
wait_for 30 all_online || fail "memory of $region not online"
step "daxctl: system-ram on node 1" json_has '.[0].mode == "system-ram" and .[0].target_node == 1' daxctl list
step "a pattern on node 1 reads back" membind_pattern 1 64
for b in $(blocks_of dax0.0); do
	sysw offline "$MEMDIR/$b/state"
done
drop_region "$region"
remove "$dev"
step "unload cxl_virt" rmmod cxl_virt

# (b) coherent_regions=0: refused with one line, nothing left behind.
step "load cxl_virt coherent_regions=0" insmod "$CXLV_KO" coherent_regions=0
step "cache_invalidation: off" reports off
step "create a pmem device" "$CXLVCTL" create --memstart 0x100000000 --size 1G --pmem --wait
before=$(cxl_state)
echo "$before"
rc=0
"$CXLVCTL" region create --device cxlv0 --namespace devdax >"$OUT/off.out" 2>"$OUT/off.err" || rc=$?
cat "$OUT/off.out" "$OUT/off.err"
expect_eq "region create exit (not supported)" "$rc" 4
expect_eq "stderr lines" "$(wc -l <"$OUT/off.err")" 1
has "coherent_regions=1" "$OUT/off.err" || fail "the error does not name the switch"
has "hypervisor" "$OUT/off.err" || fail "the error does not name the reason"
[ ! -s "$OUT/off.out" ] || fail "region create printed on stdout"
step "nothing left behind" same_state "$before"
if compgen -G '/sys/bus/cxl/devices/region*' >/dev/null; then
	fail "a region object is left"
fi
step "remove cxlv0" "$CXLVCTL" remove cxlv0
step "unload cxl_virt" rmmod cxl_virt

if dmesg | grep "$REFUSED"; then
	fail "the CXL core refused a commit"
fi

# (c) every call counted; the switch at run time; a committed region deleted.
step "load cxl_virt" insmod "$CXLV_KO"
expect_eq "hooks: coherent-regions" "$(hook_state)" armed
cat "$CXLV_SYS/hooks"
step "create a pmem device" "$CXLVCTL" create --memstart 0x100000000 --size 1G --pmem --wait
dev=cxlv0
c0=$(calls)
region=$(make_region "$dev")
expect_eq "calls for one commit" "$(($(calls) - c0))" "$PER_INVALIDATION"
counted $((ND_REGION_GONE + PER_DECOMMIT * PER_INVALIDATION)) "disable and destroy $region (one decommit)" \
	sh -c "cxl disable-region $region && cxl destroy-region $region"

step "coherent_regions=0 at run time" sysw 0 "$PARAM"
expect_eq "hooks: coherent-regions" "$(hook_state)" off
expect_eq cache_invalidation "$(cat "$CXLV_SYS/cache_invalidation")" off
c0=$(calls)
if cxl create-region -m -d "$(attr "$dev" decoder)" -w 1 -t pmem "$(attr "$dev" memdev)"; then
	fail "cxl create-region passed with coherent_regions=0"
fi
expect_eq "calls for the refused commit (answered no)" "$(($(calls) - c0))" 1
expect_eq "'$REFUSED' lines" "$(dmesg | grep -c "$REFUSED")" 1
for r in $(cxl list -R | jq -r '.. | objects | .region? // empty'); do
	step "destroy the uncommitted $r" cxl destroy-region -f "$r"
done

step "coherent_regions=1 at run time" sysw 1 "$PARAM"
expect_eq "hooks: coherent-regions" "$(hook_state)" armed
c0=$(calls)
region=$(make_region "$dev")
expect_eq "calls for the commit after the switch" "$(($(calls) - c0))" "$PER_INVALIDATION"
# Deleted while committed: reset after its device is gone, and the module
# is held until then, then let go.
counted $((ND_REGION_GONE + PER_INVALIDATION)) "delete the committed $region" \
	sysw "$region" "/sys/bus/cxl/devices/$(attr "$dev" decoder)/delete_region"
step "rmmod after the delete (the reset let the module go)" rmmod cxl_virt

# (d) rmmod races delete_region of a committed region: unload-race unloads
# back to back and starts the delete once the first unload was refused (the
# region pins the module). The unload can only succeed after the reset,
# which must meet the probes: every call is counted (a reset after them
# would be answered no, and warn). Per round: cxl_virt's init asks once
# (cxlv_coherent_init()), a commit, the nd_region going, a reset.
early=0 tries=0
c0=$(calls)
for i in $(seq "$UNLOAD_RACES"); do
	insmod "$CXLV_KO" || fail "insmod $i"
	dev=$(create "memstart=0x100000000,memsize=$((1 << 30)),cxltype=3,pmem=1")
	wait_ready "$dev"
	region=$(make_region "$dev")
	race=$("$CXLV/test/tools/bin/unload-race" cxl_virt \
		"/sys/bus/cxl/devices/$(attr "$dev" decoder)/delete_region" "$region") ||
		fail "round $i: rmmod against delete_region $region: $race"
	set -- $race
	tries=$((tries + $2))
	[ "$4" = no ] || early=$((early + 1))
done
say "rmmod vs delete_region: $UNLOAD_RACES rounds, $tries refused unloads, $early successful unloads begun before delete_region returned"
[ "$early" -gt 0 ] || fail "no unload began before delete_region returned in $UNLOAD_RACES rounds: the race was not run"
expect_eq "calls for $UNLOAD_RACES loads, commits and deletes" "$(($(calls) - c0))" $((UNLOAD_RACES * (1 + 2 * PER_INVALIDATION + ND_REGION_GONE)))
expect_eq "'$REFUSED' lines after the race" "$(dmesg | grep -c "$REFUSED")" 1
no_kernel_complaints
say PASS
