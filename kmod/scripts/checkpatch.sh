#!/usr/bin/env bash
# Runs the kernel's checkpatch.pl (from the linux-source package matching the
# guest kernel) over every C source and header of the module.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
src=$(ls -d /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -1)
if [ -z "$src" ]; then
	echo "checkpatch: no /usr/src/linux-source-*.tar.xz; run 'make deps'" >&2
	exit 1
fi
top=$(basename "$src" .tar.xz)
cache=${CHECKPATCH_DIR:-$here/generated/checkpatch}
if [ ! -f "$cache/$top/scripts/checkpatch.pl" ]; then
	mkdir -p "$cache"
	tar -xJf "$src" -C "$cache" "$top/scripts/checkpatch.pl" \
		"$top/scripts/spelling.txt" "$top/scripts/const_structs.checkpatch"
fi

cd "$here"
rc=0
for f in */*.c */*.h; do
	case $f in build/* | generated/*) continue ;; esac	# kbuild output
	extra=()
	# The bus and its attribute callbacks are const from 6.4 on
	# (CXLV_BUS_CONST), but 6.1's bus_register() writes into the bus: the
	# newer checkpatch cannot see that.
	case ${f#*/} in cxlv_main.c | cxlv_bus.c | cxlv_ctl.c | cxlv_coherent.c | cxlv_hooks.c | cxlv.h | cxlv_ctl.h) extra=(--ignore CONST_STRUCT) ;; esac
	perl "$cache/$top/scripts/checkpatch.pl" --no-tree --quiet "${extra[@]}" -f "$f" || rc=1
done
[ "$rc" -eq 0 ] && echo "checkpatch: clean"
exit "$rc"
