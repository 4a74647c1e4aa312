#!/usr/bin/env bash
# Builds the static guest-side helpers test/tools/*.c into test/tools/bin/
# when their source is newer than the binary.
set -euo pipefail
dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$dir/bin"
for src in "$dir"/*.c; do
	[ -e "$src" ] || continue
	bin=$dir/bin/$(basename "$src" .c)
	[ "$bin" -nt "$src" ] && continue
	# Replaced atomically: a running guest may be executing the old binary.
	gcc -static -O2 -Wall -Wextra -Werror -o "$bin.tmp.$$" "$src"
	mv "$bin.tmp.$$" "$bin"
done
