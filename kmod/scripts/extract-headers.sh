#!/usr/bin/env bash
# Extracts the private drivers/cxl headers the module needs from the
# linux-source package into $GEN, but only when that package has exactly the
# version of linux-image-$KVER: a header from another ABI would build and then
# corrupt memory at run time. Re-extracts whenever the version changes.
#
# Usage: KVER=<release> GEN=<dir> extract-headers.sh
set -euo pipefail

: "${KVER:?KVER (kernel release) is required}"
: "${GEN:?GEN (output directory) is required}"

headers=(cxl.h cxlmem.h cxlpci.h)

imgver=$(dpkg-query -W -f='${Version}' "linux-image-$KVER" 2>/dev/null || true)
if [ -z "$imgver" ]; then
	echo "cxl_virt: linux-image-$KVER is not installed; install it or pass KVER=<release>" >&2
	exit 1
fi
series=${KVER%%-*}
series=${series%.*}
srcpkg=linux-source-$series
srcver=$(dpkg-query -W -f='${Version}' "$srcpkg" 2>/dev/null || true)
if [ "$srcver" != "$imgver" ]; then
	echo "cxl_virt: $srcpkg is ${srcver:-not installed} but linux-image-$KVER is $imgver; install $srcpkg=$imgver" >&2
	exit 1
fi

stamp=$GEN/.source-version
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$srcver" ]; then
	exit 0
fi

tarball=/usr/src/$srcpkg.tar.xz
members=()
for h in "${headers[@]}"; do
	members+=("$srcpkg/drivers/cxl/$h")
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xJf "$tarball" -C "$tmp" "${members[@]}"
# Anything these headers include from drivers/cxl must come along too.
for inc in $(sed -n 's/^#include "\(.*\)"/\1/p' "$tmp/$srcpkg/drivers/cxl/"*.h | sort -u); do
	[ -f "$tmp/$srcpkg/drivers/cxl/$inc" ] && continue
	tar -xJf "$tarball" -C "$tmp" "$srcpkg/drivers/cxl/$inc"
done
rm -rf "$GEN"
mkdir -p "$GEN"
cp "$tmp/$srcpkg/drivers/cxl/"*.h "$GEN/"
echo "$srcver" >"$stamp"
echo "cxl_virt: extracted drivers/cxl headers from $srcpkg $srcver"
