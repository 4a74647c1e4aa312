#!/usr/bin/env bash
# Static checks that fail on any finding: gofmt, staticcheck on every
# package, and deadcode on the programs (cxlvctl and cxlvctl-info as `make build` makes them,
# and the bench report). A function that only tests call belongs in a
# _test.go file or in a package only tests import (writer/writertest,
# internal/fixturetest), which deadcode, given the programs alone, does not
# look at.
#
# The tools are built on first use, at the versions pinned here, through
# the module proxy, into a cache kept across runs (CXLV_TOOLS, default
# ~/.cache/cxlv-tools), and by the toolchain that builds cxlvctl (go.mod's,
# through GOTOOLCHAIN=auto): an analyzer built by an older Go refuses this
# module's language version.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin:/usr/lib/go-1.23/bin

staticcheck_version=v0.8.2
deadcode_version=v0.53.0

gover=$(go env GOVERSION)
cache=${CXLV_TOOLS:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/cxlv-tools}/$gover

# tool NAME PACKAGE VERSION: the path of NAME, installed if missing.
tool() {
	local dir=$cache/$1-$3
	if [ ! -x "$dir/$1" ]; then
		echo "lint: installing $2@$3 ($gover) into $dir" >&2
		GOTOOLCHAIN=$gover GOBIN=$dir go install "$2@$3"
	fi
	echo "$dir/$1"
}
staticcheck=$(tool staticcheck honnef.co/go/tools/cmd/staticcheck "$staticcheck_version")
deadcode=$(tool deadcode golang.org/x/tools/cmd/deadcode "$deadcode_version")

# The gofmt of the toolchain that builds cxlvctl, not whichever is on PATH.
echo "gofmt -l"
unformatted=$(git ls-files -z '*.go' | xargs -0 "$(go env GOROOT)/bin/gofmt" -l)
if [ -n "$unformatted" ]; then
	printf '%s\n' "$unformatted"
	echo "lint: gofmt: the files above are not formatted: run gofmt -w on them" >&2
	exit 1
fi

echo "staticcheck ./..."
STATICCHECK_CACHE=${STATICCHECK_CACHE:-$cache/staticcheck-cache} "$staticcheck" ./...

echo "deadcode ./cmd/cxlvctl ./cmd/cxlvctl-info ./test/bench/report"
dead=$("$deadcode" -tags urfave_cli_no_docs ./cmd/cxlvctl ./cmd/cxlvctl-info ./test/bench/report)
if [ -n "$dead" ]; then
	printf '%s\n' "$dead"
	echo "lint: deadcode: the functions above are unreachable from the programs: delete them, or move what only tests use into a _test.go file" >&2
	exit 1
fi
echo "lint: ok"
