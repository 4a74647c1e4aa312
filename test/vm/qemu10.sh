#!/usr/bin/env bash
# Unpacks QEMU 10 from bookworm-backports into $cache_dir/qemu10 without
# installing it. It runs every guest (run-vm.sh says why 7.2 runs none);
# its type-3 device also has the volatile partition (volatile-memdev, 8.0
# on) that the RAM-region comparator needs. Adds the bookworm-backports source if
# missing and installs the shared libraries the binary lacks. Idempotent;
# prints the binary's path.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/vm/common.sh
. "$here/common.sh"
dest=$cache_dir/qemu10
bin=$dest/usr/bin/qemu-system-x86_64
pkgs=(qemu-system-x86 qemu-system-common qemu-system-data seabios ipxe-qemu)
export DEBIAN_FRONTEND=noninteractive

if [ ! -x "$bin" ]; then
	list=/etc/apt/sources.list.d/bookworm-backports.sources
	if ! grep -rqs bookworm-backports /etc/apt/sources.list /etc/apt/sources.list.d; then
		printf '%s\n' 'Types: deb' 'URIs: http://deb.debian.org/debian' \
			'Suites: bookworm-backports' 'Components: main' \
			'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' >"$list"
	fi
	apt-get update -qq
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	chown _apt "$tmp" 2>/dev/null || true
	(cd "$tmp" && apt-get download -qq -t bookworm-backports "${pkgs[@]}" >/dev/null)
	rm -rf "$dest.new" && mkdir -p "$dest.new"
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$dest.new"
	done
	rm -rf "$dest" && mv "$dest.new" "$dest"
fi

# Runtime libraries: the system's QEMU 7.2 brought them (deps.sh installs it
# first); say which if one is missing.
missing=$(ldd "$bin" | awk '/not found/ {print $1}' | xargs)
if [ -n "$missing" ]; then
	echo "qemu10: $bin lacks $missing: apt-get install the packages that provide them" >&2
	exit 1
fi
echo "$bin"
