#!/usr/bin/env bash
# Builds the cached base initramfs for the VM bench and prints its path.
#
# The archive holds busybox, bash, kmod, the CXL/nvdimm/dax/9p/filesystem
# modules of the guest kernel with their dependencies, and the storage tools
# with their shared libraries. It is rebuilt only when its inputs change: this
# script, the versions of the packages it copies from, and the kernel release.
# Project artifacts (cxlvctl, cxl_virt.ko, tests) are NOT in it: the guest
# reads them from the repository over virtio-9p.
#
# Kernels of the trixie build root (test/vm/trixie-root.sh) come from there.
# CXLV_USERSPACE=trixie takes the programs and libraries from that root too
# (the user space Debian 13 ships); the default, bookworm, takes this host's.
#
# Usage: [CXLV_USERSPACE=bookworm|trixie] test/vm/build-initramfs.sh [KVER]
# One brace group: bash parses it whole before running, so editing this file
# cannot break a run in progress.
{
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/vm/common.sh
. "$here/common.sh"
kver=${1:-$(guest_kver)}
trixie=$cache_dir/trixie-root
# sysroot: where the kernel's modules live; userroot: where the programs do.
sysroot=''
if [ ! -d "/lib/modules/$kver/kernel" ]; then
	[ -d "$trixie/lib/modules/$kver/kernel" ] ||
		die "no modules for kernel $kver in /lib/modules or the trixie root: run 'make deps', test/vm/trixie-root.sh kernel SERIES, or pass an installed KVER"
	sysroot=$trixie
fi
userspace=$(guest_userspace "$kver")
case $userspace in
bookworm) userroot='' ;;
trixie)
	[ -f "$trixie/.complete" ] || die "CXLV_USERSPACE=trixie needs the trixie root: run test/vm/trixie-root.sh path"
	userroot=$trixie ;;
*) die "CXLV_USERSPACE is bookworm or trixie, not '$userspace'" ;;
esac

# Modules the guest needs; their dependencies are resolved below.
modules=(cxl_acpi cxl_pci cxl_mem cxl_pmem libnvdimm nd_pmem nd_btt dax_pmem device_dax
	kmem nd_e820 9p 9pnet_virtio virtio_pci xfs ext4)
# Only some kernels have these (dax_cxl: CXL RAM regions, 6.3 and later;
# the crc32c modules: up to 6.x, 7.x has crc32c in lib).
for m in dax_cxl crc32c_generic crc32c-intel; do
	modprobe -d "${sysroot:-/}" -S "$kver" --ignore-install --show-depends "$m" >/dev/null 2>&1 &&
		modules+=("$m")
done
# Programs copied with their shared-library closure.
# keyctl: the master key of ndctl's security commands goes into the user keyring
# with it (cxlv-security, ndctl's security.sh).
programs=(bash kmod cxl ndctl daxctl fio mkfs.xfs xfs_repair xfs_io mkfs.ext4 mke2fs e2fsck
	mount umount blkid findmnt numactl lspci jq strace keyctl)
# Packages whose versions decide whether the cached image is still valid.
packages=(busybox-static bash kmod ndctl daxctl libcxl1 libndctl6 libdaxctl1 fio xfsprogs
	e2fsprogs util-linux mount numactl pciutils jq strace keyutils libkeyutils1 libc6
	"linux-image-$kver")

# query_packages ROOT PACKAGE...: name and version of each, from ROOT's dpkg.
query_packages() {
	local root=$1
	shift
	dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Package} ${Version}\n' "$@" 2>&1
}
key=$({
	cat "${BASH_SOURCE[0]}"
	echo "$kver $userspace"
	query_packages "$userroot" "${packages[@]}"
	query_packages "$sysroot" "linux-image-$kver"
} | sha256sum | cut -c1-16)
cache=$cache_dir
image=$cache/base-$kver-$userspace-$key.cpio
mkdir -p "$cache"
exec {lock}>"$cache/.build.lock"
flock "$lock"
if [ -s "$image" ]; then
	echo "$image"
	exit 0
fi

log "building base initramfs for $kver (inputs changed or first run)"
stage=$(mktemp -d "$cache/stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# Debian merges /bin, /sbin and /lib into /usr: mirror that so every path the
# host's ldd prints or a script hard-codes also resolves in the guest.
mkdir -p "$stage"/usr/{bin,sbin,lib,lib64} "$stage"/{dev,proc,sys,tmp,run,mnt,cxlv,out,etc,root,var}
for d in bin sbin lib lib64; do ln -s "usr/$d" "$stage/$d"; done

# copy_file PATH: copies a file of the user-space root to its canonical
# path in the image.
copy_file() {
	local real
	real=$(chroot "${userroot:-/}" readlink -f "$1")
	mkdir -p "$stage$(dirname "$real")"
	[ -e "$stage$real" ] || cp -a "$userroot$real" "$stage$real"
	# -L too: the link points into the image, not at this machine's file.
	if [ ! -e "$stage$1" ] && [ ! -L "$stage$1" ]; then
		mkdir -p "$stage$(dirname "$1")"
		ln -s "$real" "$stage$1"
	fi
}

for p in "${programs[@]}"; do
	path=$(chroot "${userroot:-/}" sh -c "command -v $p") ||
		die "$p not found in the $userspace user space: run 'make deps'"
	copy_file "$path"
	chroot "${userroot:-/}" ldd "$path" |
		awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | while read -r lib; do
			copy_file "$lib"
		done
done
for tool in modprobe insmod rmmod lsmod depmod modinfo; do
	ln -sf ../bin/kmod "$stage/usr/sbin/$tool"
done
ln -sf bash "$stage/usr/bin/sh"

# busybox for everything else, without shadowing the real tools copied above.
cp "$userroot/bin/busybox" "$stage/usr/bin/busybox"
for applet in $("$userroot/bin/busybox" --list-full); do
	[ -e "$stage/$applet" ] || [ -L "$stage/$applet" ] || ln -s /usr/bin/busybox "$stage/$applet"
done

# Kernel modules: resolve with --ignore-install, since ndctl's modprobe.d
# install rule for libnvdimm hides the module from --show-depends.
moddir=lib/modules/$kver
mkdir -p "$stage/usr/$moddir"
for m in "${modules[@]}"; do
	modprobe -d "${sysroot:-/}" -S "$kver" --ignore-install --show-depends "$m" |
		awk '$1 == "insmod" {print $2}'
done | sort -u | while read -r ko; do
	ko=${ko#"$sysroot"}
	ko=${ko#/usr}
	mkdir -p "$stage/usr$(dirname "$ko")"
	cp "$sysroot$ko" "$stage/usr$ko"
done
cp "$sysroot/$moddir"/modules.{builtin,builtin.modinfo,order} "$stage/usr/$moddir/"
depmod -b "$stage" "$kver"

# Configuration the tools read: ndctl's modprobe.d rule (as installed, so the
# guest behaves like a real system), daxctl's udev rule, pci.ids for lspci.
for f in /etc/modprobe.d/nvdimm-security.conf /lib/udev/rules.d/90-daxctl-device.rules \
	/usr/share/misc/pci.ids /etc/ndctl.conf.d/ndctl.conf /etc/ndctl.conf.d/monitor.conf; do
	[ -e "$userroot$f" ] && copy_file "$f"
done
# The kernel opens /dev/console for init before devtmpfs is mounted.
mknod -m 600 "$stage/dev/console" c 5 1
mknod -m 666 "$stage/dev/null" c 1 3
printf 'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$stage/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$stage/etc/group"
mkdir -p "$stage/etc/ndctl/keys" # ndctl load-keys (modprobe.d rule) changes into it
echo "$kver" >"$stage/etc/cxlv-kver"
query_packages "$userroot" ndctl | sed "s/^/$userspace /" >"$stage/etc/cxlv-userspace"
ldconfig -r "$stage" 2>/dev/null || true

# Older images go once no run can still be about to read them.
find "$cache" -maxdepth 1 -name 'base-*.cpio' -mmin +30 -delete
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet) >"$image.tmp"
mv "$image.tmp" "$image"
log "base initramfs: $image ($(du -h "$image" | cut -f1))"
echo "$image"
exit
}
