# Guest-side checks of a cxl_virt device's CDAT and DOE mailbox (sourced,
# not run; no vm header, so run-suite.sh skips it), shared by cxlv-cdat.sh
# (6.12, 7.3: what the kernel makes of the figures) and
# cxlv-mailbox-abuse.sh (every kernel: the mailbox abused from user space).
# Needs lib.sh.
# shellcheck shell=bash

# endpoint_cdat MEMDEV: the endpoint port's CDAT file, as the kernel read it
# over the DOE mailbox at probe.
endpoint_cdat() {
	local p
	for p in /sys/bus/cxl/devices/endpoint*; do
		[ "$(basename "$(readlink -f "$p/uport")")" = "$1" ] && { echo "$p/CDAT"; return; }
	done
	fail "no endpoint port for $1"
}

# check_cdat FILE CAPACITY PMEM RLAT WLAT RBW WBW: FILE holds the table a
# cxl_virt device with these figures serves (CDAT r1.03): header, checksum,
# one DSMAS over the whole capacity, four DSLBIS.
check_cdat() {
	local f=/tmp/cdat.check cap=$2 pmem=$3 len sum=0 b off=40 want type base value
	# a copy: 6.1's CDAT attribute reads the table but says size 0
	cat "$1" >$f
	# u LEN OFFSET: an unsigned little-endian field of the table
	u() { od -An -t"u$1" -j "$2" -N "$1" "$f" | tr -d ' '; }
	len=$(stat -c %s "$f")
	expect_eq "CDAT length field" "$(u 4 0)" "$len"
	expect_eq "CDAT size: header, DSMAS, 4 DSLBIS" "$len" $((16 + 5 * 24))
	expect_eq "CDAT revision" "$(u 1 4)" 1
	for b in $(od -An -tu1 -v "$f"); do sum=$(((sum + b) & 255)); done
	expect_eq "CDAT checksum (byte sum)" $sum 0
	# DSMAS: type 0, length 24, handle 0, Non-Volatile flag for pmem, DPA 0..capacity
	expect_eq "DSMAS type/length" "$(u 1 16)/$(u 2 18)" 0/24
	expect_eq "DSMAS handle/flags" "$(u 1 20)/$(u 1 21)" "0/$((pmem * 4))"
	expect_eq "DSMAS DPA base" "$(u 8 24)" 0
	expect_eq "DSMAS DPA length" "$(u 8 32)" "$cap"
	# DSLBIS: read and write latency (base 1000 ps), read and write
	# bandwidth (base 1 MB/s), for handle 0, the memory itself
	for want in "1:1000:$4" "2:1000:$5" "4:1:$6" "5:1:$7"; do
		IFS=: read -r type base value <<<"$want"
		expect_eq "DSLBIS@$off type/length" "$(u 1 $off)/$(u 2 $((off + 2)))" 1/24
		expect_eq "DSLBIS@$off handle/flags/data type" \
			"$(u 1 $((off + 4)))/$(u 1 $((off + 5)))/$(u 1 $((off + 6)))" "0/0/$type"
		expect_eq "DSLBIS@$off base unit" "$(u 8 $((off + 8)))" "$base"
		expect_eq "DSLBIS@$off entry" "$(u 2 $((off + 16)))" "$value"
		off=$((off + 24))
	done
	say "CDAT: $len bytes, checksum 0, DSMAS 0..$cap, DSLBIS $4/$5 ns $6/$7 MB/s"
}

# expected_coords RLAT WLAT RBW WBW: sets want_rlat, want_wlat, want_rbw and
# want_wbw to the access coordinates the kernel computes (6.12, 7.3) for a
# region on a cxl_virt device with these CDAT figures: the figure plus the
# link's flit time and the host bridge's latency, the bandwidth the smallest
# of figure, link and host bridge.
expected_coords() {
	local hb_lat=10 hb_bw=65535 # cxlv_port.c: the host bridge's coordinates
	local lane_mbps=$((32000 * 128 / 130)) # 32 GT/s after 128b/130b, as Linux rounds it
	# link latency: a 68-byte flit at the root port's raw link rate, in ps,
	# rounded up to ns (cxl_pci_get_latency(), add_latency())
	local link_ps=$((68 * 1000000 / (32000 * 8 / 8)))
	local link_ns=$(((link_ps + 999) / 1000)) link_mbps=$((8 * lane_mbps / 8))
	min() { if [ "$1" -lt "$2" ]; then echo "$1"; else echo "$2"; fi; }
	want_rlat=$(($1 + link_ns + hb_lat)) want_wlat=$(($2 + link_ns + hb_lat))
	want_rbw=$(min "$(min "$3" $link_mbps)" $hb_bw) want_wbw=$(min "$(min "$4" $link_mbps)" $hb_bw)
	say "expected coordinates: ${want_rlat}/${want_wlat} ns, ${want_rbw}/${want_wbw} MB/s (CDAT + ${link_ns} ns link + ${hb_lat} ns host bridge)"
}

# check_coords REGION NODE: the region's and the node's access0 and access1
# coordinates are those expected_coords set.
check_coords() {
	local a r n f
	for a in access0 access1; do
		r=/sys/bus/cxl/devices/$1/$a n=/sys/devices/system/node/node$2/$a/initiators
		for f in read_latency:$want_rlat write_latency:$want_wlat read_bandwidth:$want_rbw write_bandwidth:$want_wbw; do
			expect_eq "$1 $a ${f%:*}" "$(cat "$r/${f%:*}")" "${f#*:}"
			expect_eq "node$2 $a ${f%:*}" "$(cat "$n/${f%:*}")" "${f#*:}"
		done
	done
}

# coords RLAT WLAT RBW WBW: the coordinates as cxlvctl's JSON has them.
coords() { echo "{read_latency_ns: $1, write_latency_ns: $2, read_bandwidth_mbs: $3, write_bandwidth_mbs: $4}"; }

# tier_of NODE: the memory tier that holds NODE alone.
tier_of() { grep -lx "$1" /sys/devices/virtual/memory_tiering/memory_tier*/nodelist | xargs dirname | xargs basename; }

# doe_hammer BDF CAP COUNT_FILE: CXL Table Access requests, half-read
# responses and Aborts through the config file, back to back, until the
# device is gone; the number of rounds so far is in COUNT_FILE. Run it in
# the background to race a remove.
doe_hammer() {
	local f=/sys/bus/pci/devices/$1/config n=0
	echo $n >"$3"
	while [ -e "$f" ]; do
		{
			doe_send "$1" "$2" 0x00021e98 3 $(((n % 6) << 16)) &&
				cfg_r "$1" $(($2 + DOE_READ)) >/dev/null &&
				cfg_w "$1" $(($2 + DOE_READ)) 0 &&
				cfg_w "$1" $(($2 + DOE_CTRL)) $DOE_ABORT
		} 2>/dev/null || break
		n=$((n + 1))
		echo $n >"$3"
	done
}

# PCIe r6.0 7.9.24: DOE registers, relative to the capability
DOE_CTRL=0x8 DOE_STATUS=0xc DOE_WRITE=0x10 DOE_READ=0x14
DOE_ABORT=0x1 DOE_GO=0x80000000 DOE_ERROR=0x4 DOE_READY=0x80000000

# cfg_r BDF OFFSET, cfg_w BDF OFFSET VALUE: one config dword through sysfs
# (an aligned 4-byte access is one dword cycle).
cfg_r() { od -An -tu4 -j "$(($2))" -N 4 "/sys/bus/pci/devices/$1/config" | tr -d ' '; }
cfg_w() {
	local v=$(($3))
	# shellcheck disable=SC2059 # the format is the data
	printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((v & 255)) $((v >> 8 & 255)) $((v >> 16 & 255)) $((v >> 24 & 255)))" |
		dd of="/sys/bus/pci/devices/$1/config" bs=4 seek=$(($2 / 4)) conv=notrunc 2>/dev/null
}

# doe_cap BDF: the offset of the DOE extended capability (ID 0x2e).
doe_cap() {
	local off=0x100 hdr
	while [ $((off)) -ne 0 ]; do
		hdr=$(cfg_r "$1" $off)
		[ $((hdr & 0xffff)) = $((0x2e)) ] && { echo $((off)); return; }
		off=$((hdr >> 20))
	done
	fail "$1 has no DOE capability"
}

# doe_send BDF CAP DWORD...: writes a data object and sets Go.
doe_send() {
	local bdf=$1 cap=$2 dw
	shift 2
	for dw in "$@"; do cfg_w "$bdf" $((cap + DOE_WRITE)) "$dw"; done
	cfg_w "$bdf" $((cap + DOE_CTRL)) $DOE_GO
}

# doe_status BDF CAP: "ready", "error", "ready error" or "idle".
doe_status() {
	local s out=
	s=$(cfg_r "$1" $(($2 + DOE_STATUS)))
	((s & DOE_READY)) && out="ready"
	((s & DOE_ERROR)) && out="${out:+$out }error"
	echo "${out:-idle}"
}

# doe_recv BDF CAP: the response, one hex dword a line, each acknowledged.
doe_recv() {
	while [ "$(doe_status "$1" "$2")" = ready ]; do
		printf '%#x\n' "$(cfg_r "$1" $(($2 + DOE_READ)))"
		cfg_w "$1" $(($2 + DOE_READ)) 0
	done
}

# doe_abort BDF CAP: Abort; the mailbox must be idle after it.
doe_abort() {
	cfg_w "$1" $(($2 + DOE_CTRL)) $DOE_ABORT
	expect_eq "DOE status after Abort" "$(doe_status "$1" "$2")" idle
}

# doe_abuse BDF: the mailbox from user space, per PCIe r6.0 6.30: Discovery
# and Table Access answered; an unknown protocol discarded; malformed
# requests (length field, request size, table type, request code, an entry
# handle or discovery index past the end, too many dwords, a request over an
# unread response) set DOE Error, which only Abort clears; an Abort in the
# middle of a response drops it. Run with no driver using the mailbox.
doe_abuse() {
	local bdf=$1 cap rsp
	cap=$(doe_cap "$bdf")
	say "$bdf: DOE capability at $(printf '%#x' "$cap")"
	doe_abort "$bdf" "$cap"
	# Discovery, index 0 and 1: PCI-SIG 0 (next 1), CXL Table Access (next 0)
	doe_send "$bdf" "$cap" 0x00000001 3 0
	expect_eq "discovery 0" "$(doe_recv "$bdf" "$cap" | tr '\n' ' ')" "0x1 0x3 0x1000001 "
	doe_send "$bdf" "$cap" 0x00000001 3 1
	expect_eq "discovery 1" "$(doe_recv "$bdf" "$cap" | tr '\n' ' ')" "0x1 0x3 0x21e98 "
	# Table Access, entry 0: the 16-byte header, next handle 1
	doe_send "$bdf" "$cap" 0x00021e98 3 0
	rsp=$(doe_recv "$bdf" "$cap" | tr '\n' ' ')
	expect_eq "table access header" "$(cut -d' ' -f1-3 <<<"$rsp")" "0x21e98 0x7 0x10000"
	expect_eq "CDAT length in the header entry" "$(($(cut -d' ' -f4 <<<"$rsp")))" 136
	expect_eq "status after the whole response" "$(doe_status "$bdf" "$cap")" idle
	# an unknown protocol: silently discarded
	doe_send "$bdf" "$cap" 0x00051234 3 0
	expect_eq "unknown protocol" "$(doe_status "$bdf" "$cap")" idle
	# malformed requests: DOE Error until Abort
	local bad
	for bad in "0x00021e98 5 0" "0x00021e98 4 0 0" "0x00021e98 3 0x100" "0x00021e98 3 0x1" \
		"0x00021e98 3 0x630000" "0x00000001 3 2" "0x00000001 2"; do
		# shellcheck disable=SC2086 # the dwords of the object
		doe_send "$bdf" "$cap" $bad
		expect_eq "request '$bad'" "$(doe_status "$bdf" "$cap")" error
		doe_send "$bdf" "$cap" 0x00000001 3 0
		expect_eq "a good request while in error" "$(doe_status "$bdf" "$cap")" error
		doe_abort "$bdf" "$cap"
	done
	# more dwords than the mailbox holds
	for _ in 1 2 3 4 5 6 7 8 9; do cfg_w "$bdf" $((cap + DOE_WRITE)) 0; done
	expect_eq "nine dwords written" "$(doe_status "$bdf" "$cap")" error
	doe_abort "$bdf" "$cap"
	# a request over an unread response, then an Abort mid-response
	doe_send "$bdf" "$cap" 0x00021e98 3 0x10000
	cfg_w "$bdf" $((cap + DOE_WRITE)) 0x00000001
	expect_eq "request over an unread response" "$(doe_status "$bdf" "$cap")" error
	doe_abort "$bdf" "$cap"
	doe_send "$bdf" "$cap" 0x00021e98 3 0x10000
	cfg_w "$bdf" $((cap + DOE_READ)) 0
	cfg_w "$bdf" $((cap + DOE_READ)) 0
	expect_eq "mid-response" "$(doe_status "$bdf" "$cap")" ready
	doe_abort "$bdf" "$cap"
	# and it still answers
	doe_send "$bdf" "$cap" 0x00021e98 3 0x50000
	rsp=$(doe_recv "$bdf" "$cap" | tr '\n' ' ')
	expect_eq "last entry: next handle 0xffff" "$(cut -d' ' -f1-3 <<<"$rsp")" "0x21e98 0x9 0xffff0000"
	say "$bdf: DOE answered Discovery and Table Access, discarded an unknown protocol, refused 9 malformed requests until Abort"
}
