#!/usr/bin/env bash
# `make install` into a scratch DESTDIR, as a packager would run it: the
# binaries (cxlvctl and cxlvctl-info, stripped; `cxlvctl info` runs the helper), one man page per command, the bash/zsh/fish completions
# and docs/json.md land in their places, every page renders without a groff warning, and each
# shell loads its completion and completes a command with the installed
# binary. Prints 'N passed, N failed'.
set -euo pipefail
cd "$(dirname "$0")/../.."
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
make -s install DESTDIR="$dest" PREFIX=/usr >/dev/null
export PATH=$dest/usr/bin:$PATH
passed=0 failed=0
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		printf 'FAIL %s\n%s\n' "$name" "$out" | sed '2,$s/^/    /'
	fi
}

# cxlvctl and, beside it, the helper `cxlvctl info` execs.
for bin in cxlvctl cxlvctl-info; do
	check "$bin installed" test -x "$dest/usr/bin/$bin"
	# Stripped: no symbol table, no DWARF (make build links with -s -w).
	stripped() { ! readelf -S "$dest/usr/bin/$1" | grep -Eq ' \.(symtab|debug_[a-z]+) '; }
	check "$bin stripped" stripped "$bin"
done
check "info runs its helper" cxlvctl info --no-headers
check "JSON reference installed" cmp docs/json.md "$dest/usr/share/doc/cxlvctl/json.md"
# One page per visible command: as many as `cxlvctl help` lists, plus groups' subcommands.
pages=("$dest"/usr/share/man/man1/*.1)
check "man pages installed" test "${#pages[@]}" -ge 13
for page in "${pages[@]}"; do
	render() {
		local warnings
		warnings=$(MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null)
		[ -z "$warnings" ] || { echo "$warnings"; return 1; }
		MANWIDTH=80 man -l "$1" 2>/dev/null | grep -q '^EXAMPLES'
	}
	check "man -l $(basename "$page")" render "$page"
done

bash_completes() {
	# shellcheck disable=SC1090
	. "$dest/usr/share/bash-completion/completions/cxlvctl"
	COMP_WORDS=(cxlvctl reg)
	COMP_CWORD=1
	_cxlvctl
	[ "${COMPREPLY[*]}" = region ] || { echo "bash completed 'reg' to '${COMPREPLY[*]}'"; return 1; }
}
check "bash completion" bash_completes
check "zsh completion" zsh -fc "fpath=($dest/usr/share/zsh/vendor-completions \$fpath)
	autoload -Uz compinit && compinit -u -D
	(( \$+_comps[cxlvctl] )) || { echo 'zsh: no completion registered for cxlvctl'; exit 1; }"
fish_completes() {
	local got
	got=$(fish --no-config -c "set -p fish_complete_path $dest/usr/share/fish/vendor_completions.d
		complete -C 'cxlvctl reg'" | cut -f1)
	[ "$got" = region ] || { echo "fish completed 'reg' to '$got'"; return 1; }
}
check "fish completion" fish_completes

echo "install: $passed passed, $failed failed"
[ "$failed" = 0 ]
