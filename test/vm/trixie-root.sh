#!/usr/bin/env bash
# The Debian 13 (trixie) build root: trixie's kernels are built with gcc-14
# and their kbuild needs glibc >= 2.38, which a Debian 12 machine has not, so
# the project makes a trixie root from Debian's packages (mmdebstrap) in
# $cache_dir/trixie-root (test/vm/common.sh) and builds for those kernels inside it, never
# with the host's compiler. The root is made once and reused (path, kernel
# and run first install the packages of the list below that it lacks); its
# apt sources (trixie, -updates, -security, -backports) live inside it, not
# on the host.
#
# test/vm/trixie-root.sh path              make the root if missing, print its path
# test/vm/trixie-root.sh kernel SERIES     install the newest trixie kernel of SERIES
#                                          (6.12: trixie, 7.3: trixie-backports) with
#                                          its headers and the linux-source of exactly
#                                          the image's version, unless one is there;
#                                          print its release
# test/vm/trixie-root.sh kernel --rt SERIES
#                                          the same for the PREEMPT_RT flavour
#                                          (linux-image-rt-amd64's), image and headers
#                                          only: the module refuses to build for it
#                                          before it reads any source (kmod/Makefile)
# test/vm/trixie-root.sh kernels [--rt]    print the releases installed in the root
#                                          (the plain amd64 flavour, or the -rt one)
# test/vm/trixie-root.sh has KVER          true when KVER's headers are in the root
# test/vm/trixie-root.sh run CMD [ARG...]  run CMD in the root, with the repository
#                                          at the same path as on the host
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/vm/common.sh
. "$here/common.sh"
root=$cache_dir/trixie-root
# The host's own Debian archive (and its security archive) serve trixie too.
mirror=$(bash "$here/../../scripts/debian-mirror.sh")
security=$(bash "$here/../../scripts/debian-mirror.sh" --security)
# Build tools for kbuild and dkms, and the user space the guest gets from
# trixie (build-initramfs.sh --userspace trixie).
packages=(gcc-14 make libc6-dev bc flex bison libelf-dev libssl-dev dwarves kmod xz-utils
	dkms ndctl daxctl fio busybox-static xfsprogs e2fsprogs util-linux mount numactl
	pciutils jq strace bash keyutils)
export DEBIAN_FRONTEND=noninteractive

# in_root CMD...: CMD in the root, in a private mount namespace (the bind
# mounts go away with it), with /proc, /dev and the repository mounted.
in_root() {
	unshare --mount --propagation private -- bash -euc '
		root=$1 repo=$2
		shift 2
		mount -t proc proc "$root/proc"
		mount --rbind /dev "$root/dev"
		mkdir -p "$root$repo"
		mount --rbind "$repo" "$root$repo"
		exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive INITRD=No "$@"' \
		in_root "$root" "$repo_root" "$@"
}

# ensure_root: makes the root if missing, and installs the packages of the
# list it lacks (a root is made once and kept across changes to the list).
ensure_root() {
	[ -f "$root/.complete" ] && [ -z "$(missing_packages)" ] && return 0
	mkdir -p "$cache_dir"
	local lock missing
	exec {lock}>"$cache_dir/.trixie-root.lock"
	flock "$lock"
	[ -f "$root/.complete" ] || make_root
	missing=$(missing_packages)
	if [ -n "$missing" ]; then
		log "trixie root: installing ${missing//$'\n'/ }"
		in_root apt-get update -qq
		# shellcheck disable=SC2086 # one word a package
		in_root apt-get install -y -qq --no-install-recommends $missing >&2
	fi
	exec {lock}>&-
}

make_root() {
	command -v mmdebstrap >/dev/null ||
		die "mmdebstrap is missing: run 'make deps' (apt-get install mmdebstrap)"
	log "making the trixie build root in $root (first run)"
	rm -rf "$root.new"
	local include
	include=$(IFS=,; echo "${packages[*]}")
	# In a mount namespace of its own: mmdebstrap can leave the root's /proc
	# mounted, and a stale proc under the checkout fails `go vet ./...`.
	unshare --mount --propagation private -- \
		mmdebstrap --quiet --variant=apt --mode=root --include="$include" trixie "$root.new" \
		"deb $mirror trixie main" "deb $mirror trixie-updates main" \
		"deb $security trixie-security main" \
		"deb $mirror trixie-backports main" >&2
	rm -rf "$root"
	mv "$root.new" "$root"
	touch "$root/.complete"
}

# missing_packages: the packages of the list not installed in the root.
missing_packages() {
	local p
	for p in "${packages[@]}"; do
		[ -n "$(root_version "$p")" ] || echo "$p"
	done
}

# The flavour of the kernels a command is about: amd64, or rt-amd64 with --rt.
flavour=amd64

# newest_kernel SERIES: the release of the newest linux-image-SERIES.*-FLAVOUR
# (not a meta, not another flavour, not -dbg/-unsigned) the root's apt knows.
newest_kernel() {
	in_root apt-cache search --names-only "^linux-image-$1[.0-9]*\+deb13-$flavour\$" |
		awk '{sub(/^linux-image-/, "", $1); print $1}' | sort -V | tail -1
}

# installed_kernel SERIES: the release of SERIES already in the root with its
# headers and (amd64 only) the linux-source of exactly its version (nothing
# if none).
installed_kernel() {
	local kver imgver
	kver=$(list_kernels | awk -v s="$1." 'index($0, s) == 1' | tail -1)
	[ -n "$kver" ] || return 0
	imgver=$(root_version "linux-image-$kver")
	[ -n "$imgver" ] || return 0
	[ "$flavour" != amd64 ] || [ "$(root_version "linux-source-$1")" = "$imgver" ] || return 0
	echo "$kver"
}

root_version() {
	dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${db:Status-Abbrev} ${Version}' "$1" 2>/dev/null |
		sed -n 's/^ii  *//p'
}

# list_kernels: the releases of the flavour whose headers are in the root
# (6.12.118+deb13-rt-amd64 is of rt-amd64, not of amd64).
list_kernels() {
	local d k
	[ -f "$root/.complete" ] || return 0
	for d in "$root"/usr/src/linux-headers-*-"$flavour"; do
		k=${d##*/linux-headers-}
		if [ -d "$d" ] && [ "${k#*+deb13*-}" = "$flavour" ]; then
			echo "$k"
		fi
	done | sort -V
}

# install_kernel SERIES: once per series; `make deps` runs it every time.
install_kernel() {
	local series=$1 kver imgver srcver source=''
	[ "$flavour" != amd64 ] || source=", linux-source-$series"
	kver=$(installed_kernel "$series")
	if [ -n "$kver" ]; then
		log "trixie kernel $kver $(root_version "linux-image-$kver")$source (in the root)"
		echo "$kver"
		return
	fi
	in_root apt-get update -qq
	kver=$(newest_kernel "$series")
	[ -n "$kver" ] || die "trixie and trixie-backports have no linux-image-$series.*+deb13-$flavour"
	imgver=$(in_root apt-cache show "linux-image-$kver" |
		sed -n 's/^Version: //p' | sort -V | tail -1)
	local pkgs=("linux-image-$kver=$imgver" "linux-headers-$kver=$imgver")
	if [ -n "$source" ]; then
		srcver=$(in_root apt-cache show "linux-source-$series" | sed -n 's/^Version: //p' | xargs)
		case " $srcver " in
		*" $imgver "*) ;;
		*) die "linux-source-$series has versions '$srcver', none equal to linux-image-$kver $imgver" ;;
		esac
		pkgs+=("linux-source-$series=$imgver")
		source+=" $imgver"
	fi
	# Backports are NotAutomatic: their kernels' dependencies come from there too.
	local suite=()
	[[ $imgver != *~bpo* ]] || suite=(-t trixie-backports)
	# INITRD=No: the VM boots its own initramfs; the image's hook needs none.
	in_root apt-get install -y -qq --no-install-recommends "${suite[@]}" "${pkgs[@]}" >&2
	[ -r "$root/boot/vmlinuz-$kver" ] || cp "$root/usr/lib/modules/$kver/vmlinuz" "$root/boot/vmlinuz-$kver"
	log "trixie kernel $kver $imgver$source"
	echo "$kver"
}

[ $# -ge 1 ] || die "usage: trixie-root.sh path | kernel [--rt] SERIES | kernels [--rt] | has KVER | run CMD..."
cmd=$1
shift
case $cmd in
kernel | kernels) [ "${1:-}" != --rt ] || { flavour=rt-amd64; shift; } ;;
esac
case $cmd in
path) ensure_root && echo "$root" ;;
kernel) [ $# = 1 ] || die "trixie-root.sh kernel [--rt] SERIES (6.12 or 7.3)"; ensure_root && install_kernel "$1" ;;
kernels) [ $# = 0 ] || die "trixie-root.sh kernels [--rt]"; list_kernels ;;
has) [ $# = 1 ] && [ -f "$root/.complete" ] && [ -d "$root/usr/src/linux-headers-$1" ] ;;
run) [ $# -ge 1 ] || die "trixie-root.sh run CMD [ARG...]"; ensure_root && in_root "$@" ;;
*) die "unknown command '$cmd' (path, kernel, kernels, has, run)" ;;
esac
