#!/bin/bash
# vm: --mem 3G --memmap 1G$0x100000000 --append iomem=relaxed
# boot: basic
# Data survives the whole life cycle, checked over the whole capacity: a
# pattern over ALL of a devdax namespace, and checksummed files filling an
# xfs -o dax filesystem, read back after region destroy (labels kept),
# device remove, rmmod + insmod, create on the same range and region
# re-assembly by uuid (cxlvctl, test/tools/patcheck).
# shellcheck source=test/vm/guest/cxlv.sh
. /cxlv/test/vm/guest/cxlv.sh

[ -x /cxlv/bin/cxlvctl ] || fail "no bin/cxlvctl: make build"
cp /cxlv/bin/cxlvctl /tmp/cxlvctl
CXLVCTL=/tmp/cxlvctl
MNT=/mnt/reliability
RANGE=(--memstart 0x100000000 --size 1G --pmem)

load_stack
make_dev() {
	"$CXLVCTL" create "${RANGE[@]}" --wait --json | jq -r .device
}

# cycle_device REGION: destroy keeping labels, remove, reload the module,
# create on the same range; prints the new device.
cycle_device() {
	local dev
	{
		step "region destroy --keep-namespaces $1" "$CXLVCTL" region destroy --keep-namespaces "$1"
		for dev in /sys/bus/cxl_virt/devices/*; do
			step "remove ${dev##*/}" "$CXLVCTL" remove "${dev##*/}"
		done
		step "rmmod" rmmod cxl_virt
		step "insmod" insmod "$CXLV_KO"
	} >&2
	make_dev
}

dev=$(make_dev)
[ -n "$dev" ] || fail "cxlvctl create"
capacity=$(attr "$dev" capacity)
say "$dev: $((capacity >> 20)) MiB"

# --- devdax: the whole namespace ---
json=$("$CXLVCTL" region create --device "$dev" --namespace devdax --json) || fail "region create devdax"
region=$(jq -r .region <<<"$json") uuid=$(jq -r .uuid <<<"$json")
dax=$(jq -r '"/dev/" + .namespaces[0].chardev' <<<"$json")
size=$(cat "/sys/bus/dax/devices/${dax#/dev/}/size")
[ "$size" -ge $((capacity * 9 / 10)) ] || fail "$dax has $size of $capacity bytes"
t0=$SECONDS
step "pattern over all $((size >> 20)) MiB of $dax" "$PATCHECK" write --mmap --seed 71 "$dax"
step "verify" "$PATCHECK" verify --mmap --seed 71 "$dax"
dev=$(cycle_device "$region")
json=$("$CXLVCTL" region create --device "$dev" --uuid "$uuid" --json) || fail "region create --uuid (devdax)"
dax=$(jq -r '"/dev/" + .namespaces[0].chardev' <<<"$json")
expect_eq "devdax size after re-assembly" "$(cat "/sys/bus/dax/devices/${dax#/dev/}/size")" "$size"
step "all of $dax back after remove, rmmod, insmod, re-assembly" "$PATCHECK" verify --mmap --seed 71 "$dax"
say "devdax: $((size >> 20)) MiB verified twice in $((SECONDS - t0)) s"
step "region destroy --force" "$CXLVCTL" region destroy --force "$(jq -r .region <<<"$json")"

# --- xfs -o dax: files filling the filesystem ---
mkdir -p "$MNT"
json=$("$CXLVCTL" region create --device "$dev" --fs xfs --mount "$MNT" --json) || fail "region create --fs xfs"
region=$(jq -r .region <<<"$json") uuid=$(jq -r .uuid <<<"$json")
pmem=$(jq -r '"/dev/" + .namespaces[0].blockdev' <<<"$json")
grep -q "$MNT .*dax" /proc/mounts || fail "$MNT is not mounted with dax"
t0=$SECONDS
n=0
while [ "$(df -k "$MNT" | awk 'NR == 2 { print $4 }')" -gt $((80 << 10)) ]; do
	"$PATCHECK" write --seed $((100 + n)) --size 64M "$MNT/f$n" || fail "write $MNT/f$n"
	n=$((n + 1))
done
(cd "$MNT" && md5sum f*) >/tmp/sums
used=$(df -k "$MNT" | awk 'NR == 2 { print $3 }')
say "xfs: $n files of 64 MiB, $((used >> 10)) MiB used, checksummed in $((SECONDS - t0)) s"
step "umount" umount "$MNT"
dev=$(cycle_device "$region")
json=$("$CXLVCTL" region create --device "$dev" --uuid "$uuid" --json) || fail "region create --uuid (fsdax)"
pmem=$(jq -r '"/dev/" + .namespaces[0].blockdev' <<<"$json")
step "xfs_repair -n $pmem" xfs_repair -n "$pmem"
step "mount -o dax $pmem" mount -o dax "$pmem" "$MNT"
step "md5sum of all $n files" sh -c "cd $MNT && md5sum -c /tmp/sums"
for ((i = 0; i < n; i++)); do
	"$PATCHECK" verify --seed $((100 + i)) "$MNT/f$i" >/dev/null || fail "pattern of $MNT/f$i"
done
say "xfs: $n files back after remove, rmmod, insmod, re-assembly"
step "umount" umount "$MNT"
step "remove --force" "$CXLVCTL" remove --force "$dev"
expect_eq "devices" "$(device_count)" 0
no_kernel_complaints
say PASS
