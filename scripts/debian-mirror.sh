#!/usr/bin/env bash
# Prints the Debian archive this host's apt uses (the URI of its source for
# the bookworm suite), or with --security the one for bookworm-security,
# so that chroots and build roots come from the same place as the host's
# own packages and no mirror is written into the project.
set -euo pipefail
suite=bookworm
[ "${1:-}" = --security ] && suite=bookworm-security
# deb822 .sources files: the URIs of the stanza whose Suites name the suite.
for f in /etc/apt/sources.list.d/*.sources; do
	[ -r "$f" ] || continue
	uri=$(awk -v suite="$suite" '
		/^URIs:/ { uris = $2 }
		/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) found = uris }
		/^$/ { uris = "" }
		END { print found }' "$f")
	[ -z "$uri" ] || { echo "$uri"; exit 0; }
done
# One-line sources.list entries.
uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
	awk -v suite="$suite" '$1 == "deb" { for (i = 2; i < NF; i++) if ($i ~ /^[a-z]+:/ && $(i + 1) == suite) { print $i; exit } }')
[ -n "$uri" ] || { echo "debian-mirror.sh: no apt source for $suite on this host" >&2; exit 1; }
echo "$uri"
