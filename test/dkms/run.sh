#!/usr/bin/env bash
# The README's DKMS install path, for real (nothing is loaded here): for each
# guest kernel, `dkms install cxl_virt/<version> -k KVER` from a copy of kmod/
# in /usr/src must build the module with that kernel's private headers and
# install it where modprobe looks (updates/dkms), with that kernel's vermagic
# and the same sources (srcversion) as the module the VM suite loads. Then it
# unregisters everything it added. Debian 12's kernels are done on this host
# with its dkms; Debian 13's inside the trixie root with trixie's dkms and
# compiler, as on a trixie machine (this script runs itself there).
#   run.sh [KVER...]   (default: scripts/guest-kernels.sh; run make kmod first)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/vm/common.sh
. "$here/../vm/common.sh"

[ "$(id -u)" = 0 ] || die "run as root: dkms installs into /usr/src and /lib/modules"
command -v dkms >/dev/null || die "dkms is not installed: run 'make deps'"
all=("$@")
[ $# -gt 0 ] || mapfile -t all < <(bash "$repo_root/scripts/guest-kernels.sh")
kvers=() trixie_kvers=()
for k in "${all[@]}"; do
	if [ -d "/usr/src/linux-headers-$k" ]; then
		kvers+=("$k")
	elif bash "$repo_root/test/vm/trixie-root.sh" has "$k"; then
		trixie_kvers+=("$k")
	else
		die "no headers for $k here nor in the trixie root: run 'make deps'"
	fi
done
mkdir -p "$repo_root/test/vm/out"
rc=0 root_pid=''
if [ ${#trixie_kvers[@]} -gt 0 ]; then
	# Beside this machine's: each build runs on one core.
	bash "$repo_root/test/vm/trixie-root.sh" run bash "$here/run.sh" "${trixie_kvers[@]}" \
		>"$repo_root/test/vm/out/dkms-trixie-root.log" 2>&1 &
	root_pid=$!
fi
# trixie_result: the trixie root's run, its output and its verdict.
trixie_result() {
	[ -n "$root_pid" ] || return 0
	wait "$root_pid" || rc=1
	cat "$repo_root/test/vm/out/dkms-trixie-root.log"
}
if [ ${#kvers[@]} = 0 ]; then
	trixie_result
	exit $rc
fi
# shellcheck source=/dev/null
echo "dkms $(dpkg-query -W -f='${Version}' dkms) on $(. /etc/os-release && echo "$PRETTY_NAME"): ${kvers[*]}"

ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$repo_root/kmod/dkms.conf")
[ -n "$ver" ] || die "no PACKAGE_VERSION in kmod/dkms.conf"
src=/usr/src/cxl_virt-$ver
# The marker tells our copy from a user's install, which we leave alone.
marker=$src/.cxlv-dkms-test
if [ -n "$(dkms status "cxl_virt/$ver" 2>/dev/null)" ] || [ -e "$src" ]; then
	[ -e "$marker" ] || die "cxl_virt/$ver is already set up for dkms ($src) by someone else: remove it (dkms remove cxl_virt/$ver --all; rm -r $src) or run this on another machine"
fi

unregister() {
	[ -z "$(dkms status "cxl_virt/$ver" 2>/dev/null)" ] || dkms remove "cxl_virt/$ver" --all >"$repo_root/test/vm/out/dkms-remove.log" 2>&1
	rm -rf "$src"
}
unregister
trap unregister EXIT

# kmod/ as a user would copy it, without this checkout's build output.
mkdir -p "$src"
tar -C "$repo_root/kmod" --exclude=./build --exclude=./generated -cf - . | tar -C "$src" -xf -
touch "$marker"

for k in "${kvers[@]}"; do
	ours=$repo_root/kmod/build/$k/cxl_virt.ko
	[ -r "$ours" ] || die "no $ours: run 'make kmod' first"
	start=$SECONDS
	if ! dkms install "cxl_virt/$ver" -k "$k" >"$repo_root/test/vm/out/dkms-$k.log" 2>&1; then
		tail -20 "$repo_root/test/vm/out/dkms-$k.log"
		echo "FAIL dkms install for $k (log: test/vm/out/dkms-$k.log)"
		rc=1
		continue
	fi
	file=$(modinfo -k "$k" -n cxl_virt)
	vermagic=$(modinfo -k "$k" -F vermagic cxl_virt)
	version=$(modinfo -k "$k" -F version cxl_virt)
	theirs=$(modinfo -k "$k" -F srcversion cxl_virt)
	want=$(modinfo -F srcversion "$ours")
	echo "$k: $file, version $version, vermagic '$vermagic', srcversion $theirs"
	if [[ $file != "/lib/modules/$k/updates/dkms/cxl_virt.ko"* ]]; then
		echo "FAIL $k: modprobe would load $file, not the DKMS module"
		rc=1
	elif [[ $vermagic != "$k "* ]]; then
		echo "FAIL $k: vermagic '$vermagic' is not for $k"
		rc=1
	elif [ "$version" != "$ver" ]; then
		echo "FAIL $k: module version '$version' is not dkms.conf's $ver"
		rc=1
	elif [ -z "$theirs" ] || [ "$theirs" != "$want" ]; then
		echo "FAIL $k: srcversion $theirs differs from $ours ($want)"
		rc=1
	elif status=$(dkms status "cxl_virt/$ver" -k "$k" 2>&1); [[ $status != *": installed"* ]]; then
		echo "FAIL $k: dkms status says '$status', not installed"
		rc=1
	else
		echo "PASS dkms install for $k ($((SECONDS - start))s)"
	fi
done
trixie_result
exit $rc
