# Sourced by the *-ram-movable fixture setups (no vm header): ram_region
# makes a RAM region over all of mem0's volatile capacity with the plain
# sysfs sequence (make_sysfs_region in lib.sh, not cxlvctl) under
# auto_online_blocks online_movable, which it then puts back.
# shellcheck shell=bash
ram_region() {
	local d=/sys/bus/cxl/devices size auto
	size=$(cat $d/mem0/ram/size)
	size=$((size / (256 << 20) * (256 << 20)))
	auto=$(cat /sys/devices/system/memory/auto_online_blocks)
	echo online_movable >/sys/devices/system/memory/auto_online_blocks || return
	make_sysfs_region decoder0.0 decoder2.0 ram "$size" || return
	wait_for 30 test -e /sys/bus/dax/devices/dax0.0/driver
	echo "$auto" >/sys/devices/system/memory/auto_online_blocks
}
