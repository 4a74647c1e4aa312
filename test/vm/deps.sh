#!/usr/bin/env bash
# Installs what the VM bench and the module build need, idempotently, and
# prints the versions in use. Versions are resolved at run time: the security
# archive replaces the kernel ABI from time to time.
set -euo pipefail

pkgs=(qemu-system-x86 linux-image-amd64 ndctl daxctl fio busybox-static cpio kmod
      xfsprogs e2fsprogs gcc make bc flex bison libelf-dev libssl-dev dwarves xz-utils
      numactl pciutils keyutils dkms man-db groff-base bash-completion zsh fish
      mmdebstrap lintian)
want=()
for p in "${pkgs[@]}"; do
	case $p in *-) continue ;; esac
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || want+=("$p")
done

export DEBIAN_FRONTEND=noninteractive
if [ ${#want[@]} -gt 0 ]; then
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${want[@]}" >/dev/null
fi

# The guest kernels: whatever the meta packages point to now (6.1 and 6.12,
# scripts/guest-kernels.sh), each with its headers and the linux-source of
# exactly the image's version: the security archive can carry a
# linux-source-6.12 newer than the newest image, so it is pinned.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
guest_kernels=$here/../../scripts/guest-kernels.sh
metas=()
for meta in $(bash "$guest_kernels" --packages); do
	dpkg-query -W -f='${Status}' "$meta" 2>/dev/null | grep -q 'ok installed' || metas+=("$meta")
done
if [ ${#metas[@]} -gt 0 ]; then
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${metas[@]}" >/dev/null
fi
extra=()
for kver in $(bash "$guest_kernels" --host); do
	imgver=$(dpkg-query -W -f='${Version}' "linux-image-$kver")
	series=${kver%%-*}
	series=${series%.*}
	dpkg-query -W -f='${Status}' "linux-headers-$kver" 2>/dev/null | grep -q 'ok installed' ||
		extra+=("linux-headers-$kver")
	srcver=$(dpkg-query -W -f='${Version}' "linux-source-$series" 2>/dev/null || true)
	[ "$srcver" = "$imgver" ] || extra+=("linux-source-$series=$imgver")
done
if [ ${#extra[@]} -gt 0 ]; then
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends --allow-downgrades "${extra[@]}" >/dev/null
fi

# Debian 13's kernels, in the trixie build root (made on the first run; its
# kernel step prints what it installed), and its PREEMPT_RT kernel, which the
# module must refuse (test/dkms/run.sh).
for series in $(bash "$guest_kernels" --trixie-series); do
	bash "$here/trixie-root.sh" kernel "$series" >/dev/null
done
for series in $(bash "$guest_kernels" --rt-series); do
	bash "$here/trixie-root.sh" kernel --rt "$series" >/dev/null
done

# ndctl's own CXL tests, from the source of the trixie root's ndctl
# (test/e2e/ndctl-cxl.sh).
ndctl_tests=$(bash "$here/../ndctl/fetch.sh")

for kver in $(bash "$guest_kernels" --host); do
	series=${kver%%-*}
	series=${series%.*}
	printf 'guest kernel   %s (%s), linux-source-%s %s\n' "$kver" \
		"$(dpkg-query -W -f='${Version}' "linux-image-$kver")" "$series" \
		"$(dpkg-query -W -f='${Version}' "linux-source-$series")"
done
printf 'qemu 10        %s\n' "$("$(bash "$here/qemu10.sh")" --version | head -1)"
for p in qemu-system-x86 ndctl daxctl fio busybox-static xfsprogs e2fsprogs; do
	printf '%-14s %s\n' "$p" "$(dpkg-query -W -f='${Version}' "$p")"
done
printf '%-14s %s\n' "ndctl tests" "$ndctl_tests"
