#!/usr/bin/env bash
# Builds the two Debian packages into bin/deb/ (make deb):
#   cxlv-dkms   the module's sources and dkms.conf in /usr/src, registered with
#               DKMS on install and built for every kernel that has headers;
#   cxlvctl     the binaries (cxlvctl, its info helper), a man page per command and the completions.
# The version is the module's PACKAGE_VERSION (kmod/dkms.conf), which
# cxlvctl --version reports too. Run `make build` first.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' kmod/dkms.conf)
[ -n "$version" ] || { echo "deb.sh: no PACKAGE_VERSION in kmod/dkms.conf" >&2; exit 1; }
out=bin/deb
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
rm -rf "$out"
mkdir -p "$out"

# docs PACKAGE ROOT: the copyright file and a compressed changelog (named
# as for a native package), as Debian policy wants in every package.
docs() {
	local doc=$2/usr/share/doc/$1
	install -D -m 0644 packaging/copyright "$doc/copyright"
	sed "s/@PACKAGE@/$1/; s/@VERSION@/$version/" packaging/changelog | gzip -9n >"$doc/changelog.gz"
}

# control PACKAGE ROOT: DEBIAN/control from packaging/PACKAGE.control, with
# the version and installed size filled in, and the maintainer scripts.
control() {
	local size
	mkdir -p "$2/DEBIAN"
	size=$(du -sk --exclude=DEBIAN "$2" | cut -f1)
	sed "s/@VERSION@/$version/; s/@SIZE@/$size/" "packaging/$1.control" >"$2/DEBIAN/control"
	for script in postinst prerm; do
		[ -f "packaging/$1.$script" ] || continue
		sed "s/@VERSION@/$version/g" "packaging/$1.$script" >"$2/DEBIAN/$script"
		chmod 0755 "$2/DEBIAN/$script"
	done
	dpkg-deb --root-owner-group -Zxz --build "$2" "$out/$1_${version}_$(sed -n 's/^Architecture: //p' "$2/DEBIAN/control").deb" >/dev/null
}

root=$stage/cxlv-dkms
src=$root/usr/src/cxl_virt-$version
mkdir -p "$src"
tar -C kmod --exclude=./build --exclude=./generated -cf - . | tar -C "$src" -xf -
docs cxlv-dkms "$root"
control cxlv-dkms "$root"

root=$stage/cxlvctl
make -s install DESTDIR="$root" PREFIX=/usr >/dev/null
gzip -9n "$root"/usr/share/man/man1/*.1 "$root"/usr/share/doc/cxlvctl/json.md
strip --remove-section=.comment --remove-section=.note "$root/usr/bin/cxlvctl" "$root/usr/bin/cxlvctl-info"
# Go links statically by design; Debian's own Go packages are static too.
install -D -m 0644 packaging/cxlvctl.lintian-overrides "$root/usr/share/lintian/overrides/cxlvctl"
docs cxlvctl "$root"
control cxlvctl "$root"
ls "$out"/*.deb
