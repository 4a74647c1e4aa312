#!/usr/bin/env bash
# Prints the release of each guest kernel the project targets, one per line:
# the one Debian 12's linux-image-amd64 points to (6.1) and the one
# linux-image-6.12-amd64 points to. With --packages, prints the meta packages
# instead. Nothing is printed for a meta package that is not installed.
set -euo pipefail

metas=(linux-image-amd64 linux-image-6.12-amd64)
if [ "${1:-}" = --packages ]; then
	printf '%s\n' "${metas[@]}"
	exit 0
fi
for meta in "${metas[@]}"; do
	dpkg-query -W -f='${Depends}' "$meta" 2>/dev/null |
		grep -o 'linux-image-[^ ,]*' | head -1 | sed 's/^linux-image-//' || true
done
