#!/bin/bash
# The firmware update commands of a cxl_virt device (CXL 3.0 8.2.9.3; issue
# 33), sourced by cxlv-mailbox-abuse.sh, which has the device's bare
# registers at hand (cxl_pci unbound) and a remove and create to spare:
#   fw_raw_refused      bad input and parts out of order refused, nothing changed
#   fw_raw_activate REV a full transfer to slot 2 and its online activation
#   fw_stock_update     cxl update-firmware in parts, the reset that activates
#                       it, and --cancel mid-transfer (6.12 and 7.3)
# The revision a package gets is its first 16 bytes when they are printable
# (kmod/emu/cxlv_fw.c), which is how the checks know what to expect. They
# use the caller's $probe, $bar, raw_expect and refused_input, and cxlvctl
# (test/vm/guest/cxlvctl.sh).

fw_payload=0x1020 # the mailbox payload registers, from BAR0

# hex_of TEXT: TEXT's bytes in hex, as raw-doorbell takes them.
hex_of() { printf %s "$1" | od -An -tx1 | tr -d ' \n'; }

# fw_xfer ACTION SLOT OFFSET: the first 8 bytes of a Transfer FW payload
# (Table 8-57), OFFSET in 128-byte units.
fw_xfer() {
	printf '%02x%02x0000%02x%02x%02x%02x' "$1" "$2" $(($3 & 255)) $((($3 >> 8) & 255)) \
		$((($3 >> 16) & 255)) $((($3 >> 24) & 255))
}

# fw_info: Get FW Info on the bare registers, as "SLOTS ACTIVE STAGED REV1|REV2".
fw_info() {
	local info
	raw_expect "rc=0 out_len=80 " 0x0200 0 >&2
	read -r -a info <<<"$($probe phys-read $((bar + fw_payload)) 2 | od -An -tu1)"
	printf '%s %s %s %s|%s\n' "${info[0]}" $((info[1] & 7)) $(((info[1] >> 3) & 7)) \
		"$($probe phys-read $((bar + fw_payload + 16)) 16 | tr -d '\0')" \
		"$($probe phys-read $((bar + fw_payload + 32)) 16 | tr -d '\0')"
}

# fw_raw_refused REV: with REV running in slot 1 of 2 and slot 2 empty,
# every malformed or out-of-order command is refused and leaves the slots
# as they were; an Initiate taken in between changes nothing either.
fw_raw_refused() {
	local rev=$1 ooo=0x9 busy=0x8 slot=0xb part=$((128 + 256))
	expect_eq "Get FW Info before" "$(fw_info)" "2 1 0 $rev|"
	# The probe's pattern gives action 0xa5: Invalid Input (0x2) at any
	# size that holds the 128-byte header, Invalid Payload Length (0x16)
	# below it; Activate FW's pattern action too, at its 2 bytes only.
	for len in 0 127; do raw_expect "rc=0x16 out_len=0 changed=0" 0x0201 $len; done
	for len in 128 200 4096; do raw_expect "rc=0x2 out_len=0 changed=0" 0x0201 $len; done
	refused_input 0x0202:2
	raw_expect "rc=0x16 out_len=0 changed=0" 0x0200 1
	# Parts out of order: a Continue or End with no transfer, an Initiate
	# not at offset 0, all FW Transfer Out of Order (0x9).
	raw_expect "rc=$ooo out_len=0 changed=0" 0x0201 $part "$(fw_xfer 2 0 0)"
	raw_expect "rc=$ooo out_len=0 changed=0" 0x0201 $part "$(fw_xfer 3 2 0)"
	raw_expect "rc=$ooo out_len=0 changed=0" 0x0201 $part "$(fw_xfer 1 0 1)"
	# An Initiate of two units, then: another Initiate or a full transfer
	# (FW Transfer in Progress, 0x8), a part overlapping it or leaving a
	# gap (0x9), a Continue not in whole units (0x16), an End to the
	# running slot or past the last (Invalid Slot, 0xb).
	raw_expect "rc=0 out_len=0 changed=0" 0x0201 $part "$(fw_xfer 1 0 0)"
	raw_expect "rc=$busy out_len=0 changed=0" 0x0201 $part "$(fw_xfer 1 0 0)"
	raw_expect "rc=$busy out_len=0 changed=0" 0x0201 $part "$(fw_xfer 0 2 0)"
	raw_expect "rc=$ooo out_len=0 changed=0" 0x0201 $part "$(fw_xfer 2 0 1)"
	raw_expect "rc=$ooo out_len=0 changed=0" 0x0201 $part "$(fw_xfer 2 0 3)"
	raw_expect "rc=0x16 out_len=0 changed=0" 0x0201 $((part - 100)) "$(fw_xfer 2 0 2)"
	raw_expect "rc=$slot out_len=0 changed=0" 0x0201 $part "$(fw_xfer 3 1 2)"
	raw_expect "rc=$slot out_len=0 changed=0" 0x0201 $part "$(fw_xfer 3 3 2)"
	# Aborted, the transfer is gone: its next part is out of order.
	raw_expect "rc=0 out_len=0 changed=0" 0x0201 128 "$(fw_xfer 4 0 0)"
	raw_expect "rc=$ooo out_len=0 changed=0" 0x0201 $part "$(fw_xfer 2 0 2)"
	# Activate FW of the running slot, an empty one, one past the last.
	for s in 1 2 5; do
		raw_expect "rc=$slot out_len=0 changed=0" 0x0202 2 "00$(printf %02x $s)"
	done
	expect_eq "Get FW Info after the refusals" "$(fw_info)" "2 1 0 $rev|"
	say "firmware: malformed and out-of-order transfers refused, $rev still running in slot 1"
}

# fw_raw_activate OLD NEW: a full transfer of a package whose first 16
# bytes are NEW to slot 2, activated online: Identify then reports NEW.
fw_raw_activate() {
	local old=$1 new=$2 hex
	# header, the 120 reserved bytes, then the package
	hex=$(fw_xfer 0 2 0)$(printf '%0240d' 0)$(hex_of "$new")
	raw_expect "rc=0 out_len=0 changed=0" 0x0201 $((128 + 1024)) "$hex"
	expect_eq "Get FW Info after the transfer" "$(fw_info)" "2 1 0 $old|$new"
	raw_expect "rc=0 out_len=0 changed=0" 0x0202 2 0002
	expect_eq "Get FW Info after the activation" "$(fw_info)" "2 2 0 $old|$new"
	raw_expect "rc=0 out_len=67 " 0x4000 0
	expect_eq "Identify's revision" "$($probe phys-read $((bar + fw_payload)) 16 | tr -d '\0')" "$new"
	say "firmware: slot 2 written in one transfer and activated online: $new"
}

# fw_list MEM JQ: MEM's cxl list -F firmware object through JQ.
fw_list() { cxl list -m "$1" -F | jq -r "if type == \"array\" then .[0] else . end | .firmware | $2"; }

# fw_crosscheck MEM: cxlvctl list -F gives MEM the firmware object cxl
# list -F does.
fw_crosscheck() {
	expect_eq "$1 firmware in cxlvctl list -F" "$(cxlvctl list -j -F -m "$1" | jq -cS '.[0].firmware')" \
		"$(fw_list "$1" . | jq -cS .)"
}

# fw_stock_update START SIZE REV1 REV2: with REV1 in slot 1 and REV2
# running in slot 2 of the caller's $dev, cxl update-firmware writes a
# package larger than one payload (so in parts) to slot 1 and stages it;
# remove and create on the same range (START, SIZE) runs it, and $dev is
# the new device. Then an upload cancelled mid-transfer leaves the slots as
# they were.
fw_stock_update() {
	local start=$1 size=$2 rev1=$3 rev2=$4 new=cxlv-fw-parts-01 mem img=/tmp/fw.img
	mem=$(attr "$dev" memdev)
	if [ ! -d "/sys/class/firmware/$mem" ]; then
		say "cxl update-firmware: the kernel's CXL firmware upload is in 6.12 and 7.3 (upstream 6.5), not $(uname -r)"
		return
	fi
	expect_eq "$mem firmware_version" "$(cat "/sys/bus/cxl/devices/$mem/firmware_version")" "$rev2"
	expect_eq "$mem slots in cxl list -F" "$(fw_list "$mem" '"\(.num_slots) \(.active_slot) \(.staged_slot) \(.slot_1_version) \(.slot_2_version)"')" \
		"2 2 null $rev1 $rev2"
	# 10000 bytes: three parts of at most 4096 - 128 bytes
	{ printf %s $new; head -c 9984 /dev/urandom; } >$img
	step "cxl update-firmware $mem" cxl update-firmware "$mem" -F $img --wait
	expect_eq "$mem after the update" "$(fw_list "$mem" '"\(.active_slot) \(.staged_slot) \(.slot_1_version) \(.fw_update_in_progress)"')" \
		"2 1 $new false"
	expect_eq "$mem firmware_version before the reset" "$(cat "/sys/bus/cxl/devices/$mem/firmware_version")" "$rev2"
	fw_crosscheck "$mem"
	remove "$dev"
	dev=$(create "memstart=$start,memsize=$size,cxltype=3,pmem=1")
	wait_ready "$dev"
	mem=$(attr "$dev" memdev)
	expect_eq "$mem firmware_version after the reset" "$(cat "/sys/bus/cxl/devices/$mem/firmware_version")" $new
	expect_eq "$mem slots after the reset" "$(fw_list "$mem" '"\(.active_slot) \(.staged_slot) \(.slot_1_version) \(.slot_2_version)"')" \
		"1 null $new $rev2"
	fw_crosscheck "$mem"
	say "firmware: cxl update-firmware in parts staged $new, remove and create activated it; cxlvctl list -F agrees"
	# 16 MiB, the most the device takes: some 4000 parts, time to cancel
	{ printf %s cxlv-fw-cancel-1; head -c $((16 * 1024 * 1024 - 16)) /dev/zero; } >$img
	step "cxl update-firmware $mem, to cancel" cxl update-firmware "$mem" -F $img
	wait_for 10 sh -c "[ \"\$(cat /sys/class/firmware/$mem/status)\" = transferring ]" ||
		fail "the upload of 16 MiB never showed transferring"
	step "cxl update-firmware --cancel $mem" cxl update-firmware "$mem" --cancel
	wait_for 60 sh -c "[ \"\$(cat /sys/class/firmware/$mem/status)\" = idle ]" || fail "upload still running after --cancel"
	expect_eq "$mem upload error" "$(cat "/sys/class/firmware/$mem/error")" "transferring:user-abort"
	expect_eq "$mem slots after the cancel" "$(fw_list "$mem" '"\(.active_slot) \(.staged_slot) \(.slot_1_version) \(.slot_2_version) \(.fw_update_in_progress)"')" \
		"1 null $new $rev2 false"
	say "firmware: an upload cancelled mid-transfer left the slots as they were"
}
