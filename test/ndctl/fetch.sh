#!/usr/bin/env bash
# Gets the upstream source of the ndctl the trixie guests run
# (ndctl_<upstream>.orig.tar.gz, whose test/cxl-*.sh are ndctl's own CXL
# tests) into $cache_dir/ndctl, from Debian 13's source index through a
# private apt configuration, so the host's own apt sources are not touched.
# The .dsc may be unreachable from these machines while the tarball is not:
# then the tarball alone is fetched from the pool by the index's path. Either
# way it is checked against the index's SHA-256. Idempotent; prints the
# tarball's path. The upstream files are never copied into the repository.
#   test/ndctl/fetch.sh [DEBIAN_VERSION]   (default: the trixie root's ndctl)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/vm/common.sh
. "$here/../vm/common.sh"
root=$cache_dir/trixie-root
version=${1:-$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Version}' ndctl 2>/dev/null || true)}
[ -n "$version" ] || die "no ndctl in the trixie root: run 'make deps' (test/vm/trixie-root.sh path)"
upstream=${version#*:}
upstream=${upstream%-*}
name=ndctl_$upstream.orig.tar.gz
dest=$cache_dir/ndctl
tarball=$dest/$name
if [ -s "$tarball" ]; then
	echo "$tarball"
	exit 0
fi

mkdir -p "$dest"
exec {lock}>"$dest/.fetch.lock"
flock "$lock"
[ -s "$tarball" ] && echo "$tarball" && exit 0

mirror=$(bash "$repo_root/scripts/debian-mirror.sh")
apt_dir=$dest/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
echo "deb-src $mirror trixie main" >"$apt_dir/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
	-o Dir::State::status=/dev/null -o APT::Sandbox::User=root)
apt-get -qq "${apt_opts[@]}" update

# The stanza of this version: its pool directory and the tarball's SHA-256.
read -r directory sha < <(apt-cache "${apt_opts[@]}" showsrc ndctl | awk -v ver="$version" -v file="$name" '
	BEGIN { RS = "" }
	{
		n = split($0, line, "\n"); dir = ""; sum = ""; good = 0; sums = 0
		for (i = 1; i <= n; i++) {
			if (line[i] == "Version: " ver) good = 1
			if (line[i] ~ /^Directory: /) dir = substr(line[i], 12)
			if (line[i] ~ /^[^ ]/) sums = (line[i] == "Checksums-Sha256:")
			else if (sums) { split(line[i], f, " "); if (f[3] == file) sum = f[1] }
		}
		if (good && dir != "" && sum != "") { print dir, sum; exit }
	}') || true
[ -n "${sha:-}" ] || die "Debian 13's source index has no $name for ndctl $version"

tmp=$(mktemp -d "$dest/tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if ! (cd "$tmp" && apt-get -qq "${apt_opts[@]}" source --download-only "ndctl=$version" >/dev/null 2>&1); then
	log "ndctl $version: apt-get source failed (the .dsc is unreachable?): fetching $name alone"
fi
if [ ! -s "$tmp/$name" ]; then
	/usr/lib/apt/apt-helper download-file "$mirror/$directory/$name" "$tmp/$name" "SHA256:$sha" >/dev/null
fi
echo "$sha  $tmp/$name" | sha256sum -c --quiet - || die "$name does not match Debian 13's source index"
mv "$tmp/$name" "$tarball"
echo "$tarball"
