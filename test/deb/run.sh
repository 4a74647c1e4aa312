#!/usr/bin/env bash
# The packages of `make deb`, installed as a user installs software on
# Debian: `apt install ./cxlvctl_*.deb ./cxlv-dkms_*.deb` in a clean chroot
# of Debian 12 and of Debian 13 made from Debian's packages (mmdebstrap,
# the host's own mirror), then `cxlvctl --version`, its man page and
# completions in place, and `dkms status` naming the module. lintian must
# find nothing. Prints 'N passed, N failed'.
#   run.sh [SUITE...]   (default: bookworm trixie)
set -euo pipefail
cd "$(dirname "$0")/../.."
suites=("$@")
[ $# -gt 0 ] || suites=(bookworm trixie)
debs=(bin/deb/cxlvctl_*.deb bin/deb/cxlv-dkms_*.deb)
[ -r "${debs[0]}" ] && [ -r "${debs[1]}" ] || { echo "deb: run 'make deb' first" >&2; exit 1; }
version=$(dpkg-deb -f "${debs[0]}" Version)
mirror=$(bash scripts/debian-mirror.sh)
mkdir -p test/vm/out
passed=0 failed=0

lint=$(lintian "${debs[@]}" 2>&1 | grep -v 'running with root privileges') || true
if [ -z "$lint" ]; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	printf 'FAIL lintian\n%s\n' "$lint" | sed '2,$s/^/    /'
fi

for suite in "${suites[@]}"; do
	log=test/vm/out/deb-$suite.log
	start=$SECONDS
	# Each hook fails the bootstrap, and so the check, on a non-zero exit.
	if mmdebstrap --variant=apt --quiet \
		--customize-hook="copy-in ${debs[*]} /tmp" \
		--customize-hook='chroot "$1" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends /tmp/cxlvctl_'"$version"'_amd64.deb /tmp/cxlv-dkms_'"$version"'_all.deb' \
		--customize-hook='chroot "$1" cxlvctl --version | tee /dev/stderr | grep -q "'"$version"'"' \
		--customize-hook='for f in usr/bin/cxlvctl-info usr/share/man/man1/cxlvctl-region-create.1.gz usr/share/bash-completion/completions/cxlvctl usr/share/zsh/vendor-completions/_cxlvctl usr/share/fish/vendor_completions.d/cxlvctl.fish usr/src/cxl_virt-'"$version"'/dkms.conf; do test -s "$1/$f" || { echo "missing /$f"; exit 1; }; done' \
		--customize-hook='chroot "$1" dkms status | tee /dev/stderr | grep -q "^cxl_virt/'"$version"'.*added"' \
		"$suite" /dev/null "$mirror" >"$log" 2>&1; then
		passed=$((passed + 1))
		echo "PASS apt install on $suite ($((SECONDS - start))s)"
	else
		failed=$((failed + 1))
		echo "FAIL apt install on $suite ($((SECONDS - start))s), log: $log"
		tail -n 20 "$log" | tr -s ' ' | sed 's/^/    /'
	fi
done
echo "deb: $passed passed, $failed failed"
[ "$failed" = 0 ]
