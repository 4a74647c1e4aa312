#!/usr/bin/env bash
# The README's DKMS install path, for real (nothing is loaded here): for each
# guest kernel, `dkms install cxl_virt/<version> -k KVER` from a copy of kmod/
# in /usr/src must build the module with that kernel's private headers and
# install it where modprobe looks (updates/dkms), with that kernel's vermagic
# and the same sources (srcversion) as the module the VM suite loads. Then it
# unregisters everything it added. Debian 12's kernels are done on this host
# with its dkms; Debian 13's inside the trixie root with trixie's dkms and
# compiler, as on a trixie machine (this script runs itself there).
#
# A PREEMPT_RT kernel (Debian's -rt flavour; scripts/guest-kernels.sh --rt,
# always added) must be refused instead: `make kmod` and `dkms install` fail
# with the one line of kmod/Makefile that names PREEMPT_RT, build nothing and
# install nothing.
#   run.sh [KVER...]   (default: scripts/guest-kernels.sh; run make kmod first)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/vm/common.sh
. "$here/../vm/common.sh"

[ "$(id -u)" = 0 ] || die "run as root: dkms installs into /usr/src and /lib/modules"
command -v dkms >/dev/null || die "dkms is not installed: run 'make deps'"
# --root: this script inside the trixie root, given its kernels by the host.
in_root=''
[ "${1:-}" != --root ] || { in_root=1; shift; }
all=("$@")
[ $# -gt 0 ] || mapfile -t all < <(bash "$repo_root/scripts/guest-kernels.sh")
if [ -z "$in_root" ]; then
	rt=$(bash "$repo_root/scripts/guest-kernels.sh" --rt)
	[ "$(grep -c . <<<"$rt")" = "$(bash "$repo_root/scripts/guest-kernels.sh" --rt-series | grep -c .)" ] ||
		die "a PREEMPT_RT kernel of scripts/guest-kernels.sh --rt-series is not in the trixie root: run 'make deps'"
	for k in $rt; do
		[[ " ${all[*]} " == *" $k "* ]] || all+=("$k")
	done
fi
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
	bash "$repo_root/test/vm/trixie-root.sh" run bash "$here/run.sh" --root "${trixie_kvers[@]}" \
		>"$repo_root/test/vm/out/dkms-trixie-root.log" 2>&1 &
	root_pid=$!
fi
# rt_kernel KVER: Debian's PREEMPT_RT flavour, which the build must refuse.
rt_kernel() { [[ $1 == *-rt-* ]]; }

# refusal LOG KVER: true when LOG says nothing but the one line that refuses
# KVER for PREEMPT_RT, besides make's directory and error lines and dkms's
# make.log frame (its header, date, step name, command and exit code); prints
# what else it says.
refusal() {
	local said frame='^$|^make(\[[0-9]+\])?: (Entering|Leaving) directory |^make(\[[0-9]+\])?: \*\*\* \[|^DKMS .*make\.log for |^[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} |^Building module|^# |^-+$'
	said=$(grep -Ev "$frame" "$1" || true)
	[ "$(wc -l <<<"$said")" = 1 ] && [[ $said == *"cxl_virt: $2 is a PREEMPT_RT kernel"* ]] && return 0
	printf '%s\n' "$said" | head -20
	return 1
}

# The host's `make kmod` for each -rt kernel (its headers are in the trixie
# root): refused with the one line, with nothing built or extracted.
if [ -z "$in_root" ]; then
	for k in "${all[@]}"; do
		rt_kernel "$k" || continue
		start=$SECONDS
		log=$repo_root/test/vm/out/kmod-$k.log
		if make -C "$repo_root/kmod" KVER="$k" >"$log" 2>&1; then
			echo "FAIL make kmod for $k built a module for a PREEMPT_RT kernel (log: test/vm/out/kmod-$k.log)"
			rc=1
		elif ! refusal "$log" "$k"; then
			echo "FAIL make kmod for $k failed, but not with the one PREEMPT_RT line (log: test/vm/out/kmod-$k.log)"
			rc=1
		elif [ -e "$repo_root/kmod/build/$k" ] || [ -e "$repo_root/kmod/generated/$k" ]; then
			echo "FAIL make kmod for $k refused, but left kmod/build/$k or kmod/generated/$k"
			rc=1
		else
			echo "PASS make kmod refuses $k ($((SECONDS - start))s): $(grep -o 'cxl_virt: .*' "$log")"
		fi
	done
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
	rt_kernel "$k" && continue
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

# `dkms install` for a PREEMPT_RT kernel: refused by the build with the one
# line, and nothing built or installed for it.
for k in "${kvers[@]}"; do
	rt_kernel "$k" || continue
	start=$SECONDS
	log=$repo_root/test/vm/out/dkms-$k.log
	makelog=/var/lib/dkms/cxl_virt/$ver/build/make.log
	if dkms install "cxl_virt/$ver" -k "$k" >"$log" 2>&1; then
		echo "FAIL dkms install for $k succeeded on a PREEMPT_RT kernel (log: test/vm/out/dkms-$k.log)"
		rc=1
	elif ! cp "$makelog" "$repo_root/test/vm/out/dkms-make-$k.log" 2>/dev/null; then
		tail -20 "$log"
		echo "FAIL dkms install for $k failed before the build ran (no $makelog; log: test/vm/out/dkms-$k.log)"
		rc=1
	elif ! refusal "$repo_root/test/vm/out/dkms-make-$k.log" "$k"; then
		echo "FAIL dkms install for $k failed, but not with the one PREEMPT_RT line (test/vm/out/dkms-make-$k.log)"
		rc=1
	elif status=$(dkms status "cxl_virt/$ver" -k "$k" 2>&1); [[ $status == *": built"* || $status == *": installed"* ]]; then
		echo "FAIL $k: dkms status says '$status' after the refusal"
		rc=1
	elif file=$(modinfo -k "$k" -n cxl_virt 2>/dev/null) || compgen -G "/lib/modules/$k/updates/dkms/cxl_virt.ko*" >/dev/null; then
		echo "FAIL $k: a cxl_virt module is installed for it (${file:-/lib/modules/$k/updates/dkms})"
		rc=1
	else
		echo "PASS dkms install refuses $k ($((SECONDS - start))s): $(grep -o 'cxl_virt: .*' "$repo_root/test/vm/out/dkms-make-$k.log")"
	fi
done
trixie_result
exit $rc
