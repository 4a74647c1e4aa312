#!/bin/bash
# vm: --mem 3G --numa-split 2G --hmat --memmap 1G$0x100000000
# kernels: 6.12 7.3
# CDAT over DOE and what the kernel makes of it (issue 19). A volatile
# device is created with its own figures (cxlvctl create --read-latency
# ... --write-bandwidth, in ns, us, G and M); the endpoint's CDAT, as the kernel
# read it through the DOE mailbox (endpointN/CDAT), is parsed here and every
# field checked against the create string; the link trains at 32 GT/s x8;
# the memdev gets the root decoder's qos_class, the one --qos-class gave
# the platform. A RAM region on the guest's
# CPU-less node 1 (HMAT describes node 0 only, as DRAM: 100 ns, 25.6 GB/s)
# then has the access coordinates the kernel's own arithmetic gives: the
# CDAT figure plus the link's flit time and the host bridge's 10 ns, the
# bandwidth the smallest of figure, link and host bridge; node 1's access0
# and access1 say the same, and node 1 sits in the memory tier those
# figures give against node 0's DRAM (a lower one). With demotion enabled, a
# tmpfs pattern larger than node 0 makes kswapd demote pages to node 1
# (pgdemote_kswapd grows) and reads back intact. cxlvctl list and info show
# the figures, the coordinates and the tier. (The DOE mailbox abused
# from user space: cxlv-mailbox-abuse, on every kernel.)
. /cxlv/test/vm/guest/cxlv.sh
# shellcheck source=test/vm/guest/cxlvctl.sh
. /cxlv/test/vm/guest/cxlvctl.sh

# shellcheck source=test/e2e/cxlvctl-region-ram-lib.sh
. "$CXLV/test/e2e/cxlvctl-region-ram-lib.sh"
# shellcheck source=test/e2e/cdat-lib.sh
. "$CXLV/test/e2e/cdat-lib.sh"
# shellcheck source=test/vm/guest/demotion.sh
. "$CXLV/test/vm/guest/demotion.sh"

rlat=400 wlat=500 rbw=20000 wbw=16000 qos=7
dram_lat=100 dram_bw=25600 # run-vm.sh --hmat: node 0

load_stack --ram
dev=$(cxlvctl create --memstart 4G --size 1G --read-latency ${rlat}ns --write-latency 0.$((wlat / 100))us \
	--read-bandwidth $((rbw / 1000))G --write-bandwidth ${wbw}M --qos-class $qos --json | jq -r .device)
wait_ready "$dev"
cap=$(attr "$dev" capacity) mem=$(attr "$dev" memdev)
for f in read_latency:$rlat write_latency:$wlat read_bandwidth:$rbw write_bandwidth:$wbw; do
	expect_eq "$dev ${f%:*}" "$(attr "$dev" "${f%:*}")" "${f#*:}"
done

# --- the CDAT as the kernel read it ---
check_cdat "$(endpoint_cdat "$mem")" "$cap" 0 $rlat $wlat $rbw $wbw

# --- link and qos_class ---
bdf=$(basename "$(readlink -f "/sys/bus/cxl/devices/$mem/..")")
rp=$(basename "$(dirname "$(readlink -f "/sys/bus/pci/devices/$bdf")")")
for d in "$bdf" "$rp"; do
	lspci -s "$d" -vv | grep -E 'LnkCap:|LnkSta:'
	expect_eq "$d link speed" "$(cat "/sys/bus/pci/devices/$d/current_link_speed")" "32.0 GT/s PCIe"
	expect_eq "$d link width" "$(cat "/sys/bus/pci/devices/$d/current_link_width")" 8
done
decoder=$(attr "$dev" decoder)
expect_eq "root decoder qos_class" "$(cat "/sys/bus/cxl/devices/$decoder/qos_class")" $qos
expect_eq "$mem ram qos_class" "$(cat "/sys/bus/cxl/devices/$mem/ram/qos_class")" $qos
step "cxl list -M shows the qos_class" json_has ".ram_qos_class == $qos" cxl_one -m "$mem"

# --- region and node coordinates: the kernel's arithmetic ---
expected_coords $rlat $wlat $rbw $wbw
sysw online_movable $MEMDIR/auto_online_blocks
region=$(sysfs_region "$dev" ram)
wait_for 30 blocks_in online dax0.0 || fail "memory of $region not online"
step "daxctl: system-ram on node 1" json_has '.[0].target_node == 1' daxctl list
check_coords "$region" 1
step "cxlvctl list: the figures and the region's coordinates" json_has \
	".[0].performance == $(coords $rlat $wlat $rbw $wbw) and .[0].regions[0].access0 == $(coords $want_rlat $want_wlat $want_rbw $want_wbw)" \
	cxlvctl list --json "$dev"
cxlvctl list -v

# memory tier: mt_perf_to_adistance() against node 0's HMAT figures
adist=$((576 * (want_rlat + want_wlat) / (2 * dram_lat) * (2 * dram_bw) / (want_rbw + want_wbw)))
ls /sys/devices/virtual/memory_tiering/
expect_eq "node 0's tier (DRAM)" "$(tier_of 0)" memory_tier4
expect_eq "node 1's tier (adistance $adist)" "$(tier_of 1)" "memory_tier$((adist >> 7))"
step "cxlvctl info: node 1's tier and coordinates" json_has \
	".nodes[1].memory_tier == $((adist >> 7)) and .nodes[0].memory_tier == 4 and .nodes[1].access1 == $(coords $want_rlat $want_wlat $want_rbw $want_wbw)" \
	cxlvctl info --json
cxlvctl info

# --- demotion ---
sysw 1 /sys/kernel/mm/numa/demotion_enabled
demotion_fill $(($(node_kb 0 MemTotal) / 1024 + 256)) 1919 1
[ "$demoted_kswapd" -gt 0 ] || fail "kswapd demoted no page to node 1"
no_kernel_complaints
say PASS
