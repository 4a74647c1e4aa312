# Sourced by the *-ram-movable fixture setups (no vm header): ram_region
# makes a RAM region over all of mem0's volatile capacity with the plain
# sysfs sequence (not cxlvctl) under auto_online_blocks online_movable,
# which it then puts back.
# shellcheck shell=bash
ram_region() {
	local d=/sys/bus/cxl/devices r size auto
	size=$(cat $d/mem0/ram/size)
	size=$((size / (256 << 20) * (256 << 20)))
	auto=$(cat /sys/devices/system/memory/auto_online_blocks)
	echo online_movable >/sys/devices/system/memory/auto_online_blocks || return
	r=$(cat $d/decoder0.0/create_ram_region) &&
		echo "$r" >$d/decoder0.0/create_ram_region &&
		echo 256 >$d/$r/interleave_granularity && echo 1 >$d/$r/interleave_ways &&
		echo "$(printf '%#x' "$size")" >$d/$r/size &&
		echo ram >$d/decoder2.0/mode && echo "$(printf '%#x' "$size")" >$d/decoder2.0/dpa_size &&
		echo decoder2.0 >$d/$r/target0 && echo 1 >$d/$r/commit &&
		echo "$r" >/sys/bus/cxl/drivers/cxl_region/bind || return
	wait_for 30 test -e /sys/bus/dax/devices/dax0.0/driver
	echo "$auto" >/sys/devices/system/memory/auto_online_blocks
}
