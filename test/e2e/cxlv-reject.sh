#!/bin/bash
# vm: --mem 10752M --memmap 8704M$0x100000000
# Every class of bad create/remove request fails with its own errno and a
# reason in last_error, and leaves the device count and /proc/iomem as they
# were. Also: 16 devices at once work, the 17th hits the limit; the
# interleave-set keys (issue 18) are checked and, in this version, a set of
# more than one way is refused with nothing made; so are the firmware keys
# (issue 33) and the auto-region ones (issue 34).
. /cxlv/test/vm/guest/cxlv.sh

G=$((1 << 30)) M=$((1 << 20))
base=$((4 * G))
load_stack

# reject WANT_ERRNO FILE TEXT [WRITER]: WRITER ctl (default) or ctl_raw
# (TEXT is a printf format, for NUL bytes).
reject() {
	local want=$1 file=$2 text=$3 n0 io0 got
	n0=$(device_count)
	io0=$(cat /proc/iomem)
	got=$("${4:-ctl}" "$file" "$text")
	expect_eq "'$text' -> errno" "$got" "$want"
	[ -n "$(cat $CXLV_SYS/last_error)" ] || fail "'$text': empty last_error"
	say "$want: $(cat $CXLV_SYS/last_error)"
	expect_eq "device count after '$text'" "$(device_count)" "$n0"
	[ "$(cat /proc/iomem)" = "$io0" ] || fail "'$text' changed /proc/iomem"
}

ok="memsize=$G,cxltype=3,pmem=1"
for f in "$CXLV_DBG/create" "$CXLV_SYS/create"; do
	reject EINVAL "$f" "memstart,$ok"
	reject EINVAL "$f" "memstart=$base,$ok,colour=blue"
	reject EINVAL "$f" "memstart=12abc,$ok"
	reject EINVAL "$f" "memstart=$base,memsize=$G,cxltype=3,pmem=1x"
	reject EINVAL "$f" "memstart=$base,$ok,memsize=$G"
	# an embedded NUL hides nothing; memsize must be a page multiple; the
	# layout of a range at the top of the address space must not wrap
	reject EINVAL "$f" "memstart=$base,$ok\\0,bogus=1" ctl_raw
	reject EINVAL "$f" "memstart=$base,memsize=1073741823,cxltype=3,pmem=1"
	reject EINVAL "$f" "memstart=$base,memsize=0x3fffefff,cxltype=3,pmem=1"
	reject EINVAL "$f" "memstart=0xfffffffffff00000,memsize=0xfffff,cxltype=3,pmem=1"
	reject ENOSPC "$f" "memstart=0xfffffffffff00000,memsize=0xff000,cxltype=3,pmem=1"
	reject ENODATA "$f" "memstart=$base,memsize=$G,pmem=1"
	reject ENODATA "$f" "memsize=$G,cxltype=3,pmem=1"
	reject ERANGE "$f" "memstart=0x10000000000000000,$ok"
	reject ERANGE "$f" "memstart=18446744073709551616,$ok"
	reject ERANGE "$f" "memstart=$base,memsize=$G,cxltype=4294967296,pmem=1"
	reject ERANGE "$f" "memstart=0xfffffffffff00000,$ok"
	reject EOPNOTSUPP "$f" "memstart=$base,memsize=$G,cxltype=2,pmem=1"
	reject EINVAL "$f" "memstart=$base,memsize=$G,cxltype=3,pmem=2"
	reject EINVAL "$f" "memstart=$base,$ok,serial=0"
	# firmware slots: 2 to 4; a revision of at most 16 characters
	reject EINVAL "$f" "memstart=$base,$ok,fw_slots=5"
	reject ERANGE "$f" "memstart=$base,$ok,fw_rev=0123456789abcdefg"
	reject EINVAL "$f" "memstart=$((base + 4096)),$ok"
	reject EINVAL "$f" "memstart=$base,memsize=0,cxltype=3,pmem=1"
	# 16 MiB is System RAM; 64 GiB is nothing at all
	reject EBUSY "$f" "memstart=$((16 * M)),$ok"
	reject EADDRNOTAVAIL "$f" "memstart=$((64 * G)),$ok"
	# straddles the end of the reserved range (and of RAM)
	reject EADDRNOTAVAIL "$f" "memstart=$((base + 8 * G)),$ok"
	reject ENOSPC "$f" "memstart=$base,memsize=$((256 * M)),cxltype=3,pmem=1"
	reject ENOSPC "$f" "memstart=$base,memsize=$((510 * M)),cxltype=3,pmem=1"
	# interleave sets: bad values, a window without a whole ways x 256 MiB
	# block
	reject EINVAL "$f" "memstart=$base,$ok,ways=3"
	reject EINVAL "$f" "memstart=$base,$ok,ways=2,host_bridges=4"
	reject EINVAL "$f" "memstart=$base,$ok,ways=4,host_bridges=3"
	reject EINVAL "$f" "memstart=$base,$ok,ways=2,granularity=1000"
	reject EINVAL "$f" "memstart=$base,$ok,granularity=4096"
	reject EINVAL "$f" "memstart=$base,$ok,ways=4,host_bridges=2,granularity=16384"
	grep -q "granularity=16384 with host_bridges=2: a host bridge with several root ports" "$CXLV_SYS/last_error" ||
		fail "granularity x host_bridges: $(cat "$CXLV_SYS/last_error")"
	reject ERANGE "$f" "memstart=$base,$ok,ways=2,serial=0xffffffffffffffff"
	reject EOPNOTSUPP "$f" "borrow=1,$ok,ways=2"
	# auto regions: flags only, and locked only with auto_region
	reject EINVAL "$f" "memstart=$base,$ok,auto_region=2"
	reject EINVAL "$f" "memstart=$base,$ok,locked=1"
	grep -q "locked=1 without auto_region=1" "$CXLV_SYS/last_error" ||
		fail "locked=1 alone: $(cat "$CXLV_SYS/last_error")"
	reject ENOSPC "$f" "memstart=$base,$ok,ways=4"
	grep -q "ways=4: need a 1024 MiB (ways x 256 MiB) aligned block" "$CXLV_SYS/last_error" ||
		fail "ways=4 in 1 GiB: $(cat "$CXLV_SYS/last_error")"
done
reject E2BIG "$CXLV_DBG/create" "memstart=$base,$ok,$(printf 'x%.0s' {1..300})"
reject EINVAL "$CXLV_DBG/remove" "cxlv_dev_id"
reject EINVAL "$CXLV_DBG/remove" "id=0"
reject ENODATA "$CXLV_DBG/remove" $'\n'
reject ENODEV "$CXLV_DBG/remove" "cxlv_dev_id=3"
reject ERANGE "$CXLV_SYS/remove" "cxlv_dev_id=99999999999"

# 16 devices of 512 MiB each, all at once; the 17th hits the limit
devs=()
for i in $(seq 0 15); do
	devs+=("$(create "memstart=$((base + i * 512 * M)),memsize=$((512 * M)),cxltype=3,pmem=1")")
done
expect_eq "devices" "$(device_count)" 16
next="memstart=$((base + 8 * G)),memsize=$((512 * M)),cxltype=3,pmem=1"
reject EMFILE "$CXLV_DBG/create" "$next"

# conflicts with a live device
remove "${devs[15]}"
reject EEXIST "$CXLV_DBG/create" "memstart=$((base + 256 * M)),memsize=$G,cxltype=3,pmem=1"
reject EEXIST "$CXLV_SYS/create" "memstart=$((base + 15 * 512 * M)),memsize=$((512 * M)),cxltype=3,pmem=1,serial=$(attr "${devs[0]}" serial)"
# a set's serials are serial..serial+ways-1; its endpoints count one each
set2="memstart=$((base + 15 * 512 * M)),memsize=$G,cxltype=3,pmem=1,ways=2"
reject EEXIST "$CXLV_SYS/create" "$set2,serial=$(($(attr "${devs[0]}" serial) - 1))"
reject EMFILE "$CXLV_SYS/create" "$set2"
grep -q "15 in use, ways=2 asks for 2 more" "$CXLV_SYS/last_error" ||
	fail "EMFILE: $(cat "$CXLV_SYS/last_error")"
# a plain device is a set of one
expect_eq "ways host_bridges granularity" \
	"$(attr "${devs[0]}" ways) $(attr "${devs[0]}" host_bridges) $(attr "${devs[0]}" granularity)" "1 1 256"
expect_eq "serials" "$(attr "${devs[0]}" serials)" "$(attr "${devs[0]}" serial)"
for d in "${devs[@]:0:15}"; do
	wait_ready "$d"
done
expect_eq "memdevs" "$(cxl_count -M)" 15
for d in "${devs[@]:0:15}"; do
	remove "$d"
done
expect_eq "devices" "$(device_count)" 0
grep -q "cxlv\|cxl_virt" /proc/iomem && fail "iomem still holds cxl_virt resources"
no_kernel_complaints
rmmod cxl_virt
say PASS
