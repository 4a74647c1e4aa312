#!/usr/bin/env bash
# Installs what the VM bench and the module build need, idempotently, and
# prints the versions in use. Versions are resolved at run time: the security
# archive replaces the kernel ABI from time to time.
set -euo pipefail

pkgs=(qemu-system-x86 linux-image-amd64 ndctl daxctl fio busybox-static cpio kmod
      xfsprogs e2fsprogs gcc make bc flex bison libelf-dev libssl-dev dwarves xz-utils
      numactl pciutils)
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

# The guest kernel: whatever linux-image-amd64 points to now.
img=$(dpkg-query -W -f='${Depends}' linux-image-amd64 | grep -o 'linux-image-[^ ,]*' | head -1)
kver=${img#linux-image-}
imgver=$(dpkg-query -W -f='${Version}' "$img")
extra=()
dpkg-query -W -f='${Status}' "linux-headers-$kver" 2>/dev/null | grep -q 'ok installed' ||
	extra+=("linux-headers-$kver")
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || true)
[ "$srcver" = "$imgver" ] || extra+=("linux-source-6.1=$imgver")
if [ ${#extra[@]} -gt 0 ]; then
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${extra[@]}" >/dev/null
fi

printf 'guest kernel   %s (%s)\n' "$kver" "$imgver"
printf 'linux-source   %s\n' "$(dpkg-query -W -f='${Version}' linux-source-6.1)"
for p in qemu-system-x86 ndctl daxctl fio busybox-static xfsprogs e2fsprogs; do
	printf '%-14s %s\n' "$p" "$(dpkg-query -W -f='${Version}' "$p")"
done
