# Helpers shared by the host-side bench scripts (sourced, not run).
# shellcheck shell=bash

# repo_root: the repository this bench belongs to.
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# cache_dir: downloads, build roots and images, never committed. Outside the
# checkout, so that every clone and worktree (CI's clean checkout too) reuses
# them instead of building them again; CXLV_CACHE moves it.
cache_dir=${CXLV_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/cxlv}

log() { printf '[vm] %s\n' "$*" >&2; }
die() {
	printf '[vm] error: %s\n' "$*" >&2
	exit 2
}

# guest_kver: the kernel release linux-image-amd64 points to (the guest kernel).
guest_kver() {
	dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null |
		grep -o 'linux-image-[^ ,]*' | head -1 | sed 's/^linux-image-//'
}

# kernel_image KVER: the guest kernel's image, from /boot or, for Debian 13's
# kernels, from the trixie build root (test/vm/trixie-root.sh).
kernel_image() {
	local k
	for k in "/boot/vmlinuz-$1" "$cache_dir/trixie-root/boot/vmlinuz-$1"; do
		[ -r "$k" ] && echo "$k" && return 0
	done
	return 1
}

# guest_userspace KVER: the user space the guest gets (CXLV_USERSPACE, else
# the one of the kernel's distribution: trixie's for the trixie root's).
guest_userspace() {
	if [ -n "${CXLV_USERSPACE:-}" ]; then
		echo "$CXLV_USERSPACE"
	elif [ -r "/boot/vmlinuz-$1" ]; then
		echo bookworm
	else
		echo trixie
	fi
}

# check_kernel_log FILE: prints the lines of a kernel log that show a kernel
# problem (patterns in test/vm/kernel-errors.regex) and fails if there are any.
# Each line goes through log, so a suite's failure summary shows it.
check_kernel_log() {
	local hits line
	hits=$(grep -E -f "$repo_root/test/vm/kernel-errors.regex" "$1") || return 0
	log "kernel problems in $1:"
	while IFS= read -r line; do
		log "  $line"
	done <<<"$hits"
	return 1
}

# kernel_expects FILE: the '# kernel-expects: COUNT TEXT' line of a guest
# script, if any: the run's kernel log must hold exactly COUNT warning
# blocks (from "cut here" to "end trace", one WARNING line in each) that
# contain TEXT. Only those are excused; any other problem still fails.
kernel_expects() {
	sed -n 's/^# kernel-expects:[[:space:]]*//p' "$1" | head -1
}

# excuse_expected LOG COUNT TEXT OUT: writes LOG to OUT without the warning
# blocks that kernel_expects describes; fails (with a log line) unless there
# were COUNT. A block with a second "cut here" or WARNING line in it, or one
# that never ends, is kept whole.
excuse_expected() {
	local found
	found=$(awk -v text="$3" -v out="$4" '
	function flush() { printf "%s", buf > out; buf = ""; inblock = 0 }
	/-+\[ cut here \]-+/ { if (inblock) flush(); inblock = 1; warns = 0; hit = 0; buf = $0 "\n"; next }
	inblock {
		buf = buf $0 "\n"
		if ($0 ~ /WARNING:/) warns++
		if (index($0, text)) hit = 1
		if ($0 ~ /---\[ end trace/) {
			if (hit && warns == 1) { n++; buf = ""; inblock = 0 } else flush()
		}
		next
	}
	{ print > out }
	END { if (inblock) flush(); printf "%d\n", n; close(out) }' "$1")
	: >>"$4"
	if [ "$found" != "$2" ]; then
		log "kernel log: $found warning block(s) with '$3', the guest script expects $2"
		return 1
	fi
}

# acquire_vm_slot: blocks until one of the VM slots is free and holds it until
# the calling shell exits (at most CXLV_VM_SLOTS, default 2, VMs at once).
acquire_vm_slot() {
	local i fd waited=0
	while :; do
		for ((i = 0; i < ${CXLV_VM_SLOTS:-2}; i++)); do
			exec {fd}>"/tmp/cxlv-vm-slot.$i"
			flock -n "$fd" && return 0
			exec {fd}>&-
		done
		[ "$waited" = 1 ] || log "all ${CXLV_VM_SLOTS:-2} VM slots busy: waiting"
		waited=1
		sleep 2
	done
}

# vm_options FILE: the run-vm.sh options declared by a scenario's
# '# vm: ...' header line (split on whitespace: no quoting).
vm_options() {
	sed -n 's/^# vm:[[:space:]]*//p' "$1" | head -1
}

# boot_group FILE: the '# boot: NAME' line of a scenario. The scenarios of
# a suite that name the same group (and declare the same '# vm:' line) run
# one after the other in one boot (guest/boot-group.sh), which saves the
# 20 s or so of a TCG boot each.
boot_group() {
	sed -n 's/^# boot:[[:space:]]*//p' "$1" | head -1
}

# scenario_name "SCRIPT [ARG...]": what a shared boot calls a scenario: the
# script's name without .sh, then its arguments, joined with '-'.
scenario_name() {
	local -a words
	read -ra words <<<"$1"
	words[0]=$(basename "${words[0]}" .sh)
	(IFS=-; echo "${words[*]}")
}

# runs_on_kernel FILE KVER: FILE has no '# kernels: X.Y ...' line, or KVER
# belongs to one of the series it lists.
runs_on_kernel() {
	local series want
	series=$(sed -n 's/^# kernels:[[:space:]]*//p' "$1" | head -1)
	[ -n "$series" ] || return 0
	for want in $series; do
		[[ $2 == "$want".* || $2 == "$want"-* ]] && return 0
	done
	return 1
}

# in_set FILE SET: FILE's '# sets: ...' line names SET.
in_set() {
	local set
	for set in $(sed -n 's/^# sets:[[:space:]]*//p' "$1" | head -1); do
		[ "$set" = "$2" ] && return 0
	done
	return 1
}

# is_scenario FILE: true when FILE declares its VM options.
is_scenario() {
	grep -q '^# vm:' "$1"
}

# kernel_at_least X.Y KVER: KVER (a release such as 6.12.117+deb12-amd64)
# is version X.Y or later.
kernel_at_least() {
	local want=$1 have=${2%%-*}
	have=${have%%+*}
	[ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | head -1)" = "$want" ]
}
