#!/usr/bin/env bash
# Makes sure a Go toolchain that can build this module is on the machine.
# Debian 12's own golang-go (1.19) cannot; golang-1.23-go from
# bookworm-backports can switch itself to the go.mod version through the
# module proxy (GOTOOLCHAIN=auto), so that is what a fresh machine gets.
set -euo pipefail

have_go() {
	command -v go >/dev/null 2>&1 || return 1
	local minor
	minor=$(go env GOVERSION | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
	[ -n "$minor" ] && [ "$minor" -ge 21 ]
}

export PATH=$PATH:/usr/local/go/bin:/usr/lib/go-1.23/bin
if have_go; then
	exit 0
fi
list=/etc/apt/sources.list.d/bookworm-backports.sources
if [ ! -e "$list" ]; then
	cat >"$list" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends golang-1.23-go ca-certificates git >/dev/null
ln -sf /usr/lib/go-1.23/bin/go /usr/local/bin/go
have_go || { echo "ensure-go: no usable Go toolchain after installing golang-1.23-go" >&2; exit 1; }
