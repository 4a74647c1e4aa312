#!/usr/bin/env bash
# Fails when a file of the module includes a header of a layer above its
# own (kmod/README.md, "Layers"). Each folder of kmod/ is one layer, lowest
# first: common < emu < mem = topo < hooks < ctl. A header not in these
# folders is the kernel's or generated, and any layer may include it.
#   scripts/check-layers.sh [-v]   -v: also count the includes per pair of layers
set -euo pipefail

cd "$(dirname "$0")/../kmod"
layers=(common emu mem topo hooks ctl)
declare -A rank=([common]=0 [emu]=1 [mem]=2 [topo]=2 [hooks]=3 [ctl]=4)
declare -A home	# header name -> its layer
declare -A pairs
rc=0

for d in *; do
	[ -d "$d" ] || continue
	case $d in build | generated | scripts | Documentation) continue ;; esac
	[ -n "${rank[$d]:-}" ] || { echo "check-layers: kmod/$d is not a layer: add it to ${layers[*]}" >&2; rc=1; }
done
for d in "${layers[@]}"; do
	for h in "$d"/*.h; do
		[ -e "$h" ] && home[${h#*/}]=$d
	done
done

for d in "${layers[@]}"; do
	for f in "$d"/*.c "$d"/*.h; do
		[ -e "$f" ] || continue
		while IFS= read -r inc; do
			to=${home[$inc]:-}
			[ -n "$to" ] || continue
			[ "$to" = "$d" ] || pairs["$d -> $to"]=$((${pairs["$d -> $to"]:-0} + 1))
			if [ "${rank[$to]}" -gt "${rank[$d]}" ]; then
				echo "check-layers: kmod/$f includes $inc from $to, a layer above $d" >&2
				rc=1
			fi
		done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
	done
done

if [ "${1:-}" = -v ]; then
	for p in "${!pairs[@]}"; do echo "$p: ${pairs[$p]}"; done | sort
fi
[ "$rc" -eq 0 ] && echo "check-layers: no file includes a header of a higher layer"
exit "$rc"
