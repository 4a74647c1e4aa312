#!/bin/bash
# vm: --mem 3G --numa-split 2G --memmap 1G$0x100000000
# kernels: 6.12 7.3
# cxl_virt regions on a CPU that reports a hypervisor (this VM's, as in KVM
# guests and cloud instances), where Linux 6.2+ refuses region commits that
# it cannot invalidate the CPU caches for (kmod/cxlv_coherent.c):
# (a) with the module's default a pmem region (devdax, data read back
# through mmap) and a RAM region (node 1, data written under --membind read
# back) commit and are destroyed, the kernel log says the invalidation was
# skipped for each, and cxlvctl info reports "skipped"; (b) with
# coherent_regions=0 it reports "off", region create fails with one line
# naming the reason and the switch, and the CXL and nd state is as before
# (no region, endpoint decoder without DPA); (c) the kernel log has no
# "Failed to synchronize CPU cache state" (run-vm.sh fails the run on any
# WARN). Prints TIME lines for the region creates.
#   cxlv-hypervisor.sh [CXLVCTL]  (default: bin/cxlvctl)
# shellcheck source=test/vm/guest/cxlv.sh
. "$CXLV/test/vm/guest/cxlv.sh"
# shellcheck source=test/vm/guest/region-state.sh
. "$CXLV/test/vm/guest/region-state.sh"
# shellcheck source=test/e2e/cxlvctl-region-ram-lib.sh
. "$CXLV/test/e2e/cxlvctl-region-ram-lib.sh"

SKIPPED="CPU cache invalidation skipped: cxl_virt memory is host RAM"

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

ram_setup "${1:-}"
step "the CPU reports a hypervisor" has -w hypervisor /proc/cpuinfo
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

# (c) the kernel never refused.
if dmesg | grep "Failed to synchronize CPU cache state"; then
	fail "the CXL core refused a commit"
fi
no_kernel_complaints
say PASS
