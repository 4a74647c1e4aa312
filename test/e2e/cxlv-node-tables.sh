#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000
# kernels: 6.12 7.3
# A node of its own on one-node firmware (issue 19). The guest's firmware
# has no SRAT, so Linux sees one NUMA node and the memmap= range has none.
# First boot: cxlvctl node-tables refuses ranges it cannot describe, then
# writes an early initramfs archive with an SRAT (every CPU and the other RAM
# in domain 0, the range hot-pluggable in domain 1) and an HMAT (domain 0 the
# initiator of domain 1), and the scenario asks run-vm.sh for a reboot with
# it in front of the initramfs. Second boot: the kernel installed both
# tables, every CPU and all the RAM of the first boot are in node 0, and a
# cxl_virt RAM region on the range comes online as CPU-less node 1, with
# the access coordinates of its CDAT figures and a lower memory tier than
# node 0's; node-tables now refuses, as the (upgraded) firmware places the
# range already.
. /cxlv/test/vm/guest/cxlv.sh
# shellcheck source=test/vm/guest/cxlvctl.sh
. /cxlv/test/vm/guest/cxlvctl.sh
# shellcheck source=test/e2e/cxlvctl-region-ram-lib.sh
. "$CXLV/test/e2e/cxlvctl-region-ram-lib.sh"
# shellcheck source=test/e2e/cdat-lib.sh
. "$CXLV/test/e2e/cdat-lib.sh"

window=$((4 << 30)) size=$((1 << 30))
tables=/sys/firmware/acpi/tables
nodes() { (cd /sys/devices/system/node && echo node[0-9]*); }
# system_ram: the bytes of the top-level System RAM ranges of /proc/iomem.
system_ram() {
	local r total=0
	for r in $(grep -v '^ ' /proc/iomem | sed -n 's/ : System RAM$//p'); do
		total=$((total + 0x${r#*-} - 0x${r%-*} + 1))
	done
	echo $total
}

if [ "$CXLV_BOOT" = 1 ]; then
	[ ! -e $tables/SRAT ] || fail "the guest's firmware has an SRAT: this scenario needs one without"
	expect_eq "nodes on one-node firmware" "$(nodes)" node0
	expect_fail 2 "not 256 MiB aligned" node-tables -o /tmp/t.cpio --memstart 4G --size 100M
	expect_fail 2 "not reserved" node-tables -o /tmp/t.cpio --memstart 1G --size 256M
	expect_fail 2 "--memstart and --size go together" node-tables -o /tmp/t.cpio --memstart 4G
	step "--dry-run writes nothing" cxlvctl node-tables -o /tmp/t.cpio --dry-run
	[ ! -e /tmp/t.cpio ] || fail "node-tables --dry-run wrote /tmp/t.cpio"
	cxlvctl node-tables -o "$OUT/reboot.cpio" --json | tee /tmp/plan.json
	step "the plan: SRAT and HMAT, the reserved window, every CPU" json_has \
		".tables == [\"SRAT\", \"HMAT\"] and .windows == [{start: $window, size: $size}] and .cpus == $(nproc) and .firmware_srat == false" \
		cat /tmp/plan.json
	step "the archive lists the tables where the kernel looks" \
		bash -c "cpio -it <$OUT/reboot.cpio | grep -x kernel/firmware/acpi/cxlv-srat.aml"
	system_ram >"$OUT/system-ram.first"
	no_kernel_complaints
	say "first boot done: rebooting with the tables"
	exit 0
fi

# --- second boot: the tables as the kernel took them ---
for t in SRAT HMAT; do
	step "$t installed from the initramfs" bash -c "dmesg | grep -q 'Table Upgrade: install \[$t-CXLV  -CXLVNODE\]'"
	[ -e "$tables/$t" ] || fail "no $tables/$t"
done
expect_eq "node 0's CPUs" "$(cat /sys/devices/system/node/node0/cpulist)" "$(cat /sys/devices/system/cpu/online)"
expect_eq "possible nodes" "$(cat /sys/devices/system/node/possible)" 0-1
# An SRAT that left out some RAM would make the kernel drop it (or all of
# NUMA); the upgraded tables themselves take a page of it. (MemTotal falls
# more: with hot-pluggable memory above 4 GiB the kernel sets up a 64 MiB
# SWIOTLB, as on any host with RAM there.)
ram_first=$(cat "$OUT/system-ram.first") ram_now=$(system_ram)
say "System RAM: $ram_first bytes on the first boot, $ram_now now"
[ $((ram_first - ram_now)) -ge 0 ] && [ $((ram_first - ram_now)) -le 65536 ] ||
	fail "System RAM changed by $((ram_first - ram_now)) bytes: the SRAT does not cover it all"
expect_fail 2 "already puts 0x100000000-0x13fffffff in proximity domain 1" node-tables -o /tmp/t.cpio

rlat=350 wlat=450 rbw=24000 wbw=18000
load_stack --ram
dev=$(cxlvctl create --memstart $window --size $size --read-latency ${rlat}ns --write-latency ${wlat}ns \
	--read-bandwidth ${rbw}M --write-bandwidth ${wbw}M --json | jq -r .device)
wait_ready "$dev"
expected_coords $rlat $wlat $rbw $wbw
sysw online_movable $MEMDIR/auto_online_blocks
region=$(sysfs_region "$dev" ram)
wait_for 30 blocks_in online dax0.0 || fail "memory of $region not online"
step "daxctl: system-ram on node 1" json_has '.[0].target_node == 1' daxctl list
expect_eq "node 1's CPUs (CPU-less)" "$(cat /sys/devices/system/node/node1/cpulist)" ""
expect_eq "node 1's memory (KiB): the region's" "$(node_kb 1 MemTotal)" $(($(daxctl list | jq '.[0].size') >> 10))
check_coords "$region" 1
t0=$(tier_of 0) t1=$(tier_of 1)
say "node 0 in $t0, node 1 in $t1"
[ "${t1#memory_tier}" -gt "${t0#memory_tier}" ] || fail "node 1 ($t1) is not in a lower tier than node 0 ($t0)"
step "cxlvctl info: node 1's tier and coordinates" json_has \
	".nodes[1].memory_tier == ${t1#memory_tier} and .nodes[1].access0 == $(coords $want_rlat $want_wlat $want_rbw $want_wbw)" \
	cxlvctl info --json
cxlvctl info
step "membind pattern on node 1 reads back" membind_pattern 1 64
no_kernel_complaints
say PASS
