#!/bin/bash
# vm: --mem 6G --memmap 512M$0x100000000 --memmap 512M$0x140000000 --memmap 512M$0x180000000 --memmap 512M$0x1c0000000
# Four devices on four reserved ranges at once, each enumerated; remove each;
# create again on the same ranges; four regions with devdax namespaces at
# once, each with its own data (rmmod refused meanwhile); rmmod removes idle
# devices; load again. Nothing may be left behind: sysfs, iomem, the
# firmware's Reserved entries, PCI domains, memdevs.
. /cxlv/test/vm/guest/cxlv.sh

M=$((1 << 20))
starts=($((0x100000000)) $((0x140000000)) $((0x180000000)) $((0x1c0000000)))

create_all() {
	local s d
	devs=()
	for s in "${starts[@]}"; do
		devs+=("$(create "pmem=1,cxltype=3,memsize=$((512 * M)),memstart=$(printf '%#x' "$s")")")
	done
	for d in "${devs[@]}"; do
		wait_ready "$d"
		expect_eq "$d capacity" "$(attr "$d" capacity)" $((256 * M))
		expect_eq "$d state" "$(attr "$d" state)" ready
	done
	expect_eq "memdevs" "$(cxl_count -M)" 4
	expect_eq "buses" "$(cxl_count -B)" 4
	expect_eq "endpoints" "$(cxl_count -E)" 4
	expect_eq "nmems" "$(ndctl list -D | jq -s '[.[] | if type == "array" then .[] else . end] | length')" 4
	expect_eq "distinct serials" \
		"$(for d in "${devs[@]}"; do attr "$d" serial; done | sort -u | wc -l)" 4
	for d in "${devs[@]}"; do
		cxl list -M -m "$(attr "$d" memdev)" | has "\"serial\":$(attr "$d" serial)" ||
			fail "$d: memdev serial differs from $(attr "$d" serial)"
	done
}

assert_clean() {
	expect_eq "cxl_virt devices" "$(ls /sys/bus/cxl_virt/devices 2>/dev/null | wc -l)" 0
	grep -q "cxlv\|cxl_virt\|CXL Window" /proc/iomem && fail "iomem not clean: $(grep -i cxl /proc/iomem)"
	ls /sys/bus/pci/devices | has '^1[0-9a-f]\{4\}:' && fail "PCI domain left: $(ls /sys/bus/pci/devices)"
	for s in "${starts[@]}"; do
		reserved_covers "$s" || fail "Reserved entry at $(printf '%#x' "$s") lost: $(cat /proc/iomem)"
	done
	expect_eq "memdevs left" "$(cxl_count -M)" 0
}

load_stack
create_all
domains=$(for d in "${devs[@]}"; do attr "$d" pci_domain; done | tr '\n' ' ')
say "round 1: ${devs[*]} in PCI domains $domains"
for d in "${devs[@]}"; do
	remove "$d"
done
assert_clean

create_all
expect_eq "PCI domains reused" "$(for d in "${devs[@]}"; do attr "$d" pci_domain; done | tr '\n' ' ')" "$domains"
say "round 2: ${devs[*]}"

# a region and a devdax namespace on each, all at once, data kept apart
regions=() namespaces=() daxdevs=()
for d in "${devs[@]}"; do
	regions+=("$(make_region "$d")")
	ns=$(make_namespace "${regions[-1]}" devdax)
	namespaces+=("$(jq -r .dev <<<"$ns")")
	daxdevs+=("/dev/$(jq -r '.daxregion.devices[0].chardev' <<<"$ns")")
done
for i in 0 1 2 3; do
	step "write ${daxdevs[i]}" "$PATCHECK" write --mmap --seed $((40 + i)) --size 8M "${daxdevs[i]}"
done
for i in 0 1 2 3; do
	step "verify ${daxdevs[i]}" "$PATCHECK" verify --mmap --seed $((40 + i)) --size 8M "${daxdevs[i]}"
done
rmmod cxl_virt 2>/dev/null && fail "rmmod succeeded with four regions"
for i in 0 1 2 3; do
	step "destroy ${namespaces[i]}" ndctl destroy-namespace -f "${namespaces[i]}"
	drop_region "${regions[i]}"
done

# rmmod takes the four idle devices down with it
rmmod cxl_virt
[ -e /sys/bus/cxl_virt ] && fail "/sys/bus/cxl_virt still there after rmmod"
assert_clean

insmod "$CXLV_KO"
create_all
say "after reload: ${devs[*]}"
rmmod cxl_virt
assert_clean
no_kernel_complaints
say PASS
