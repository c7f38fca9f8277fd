#!/usr/bin/env bash
# A DPDK release tarball of one LTS line, its SHA-256 checked, unpacked once
# into the cache: prints the tree's path (AFXDP_CACHE/dpdk-src/<digest's
# first 16 digits>; the whole digest in <tree>.sha256 beside it).
#
# Usage: scripts/dpdk-tarball.sh <line> [FILE | DIR]   (as root)
#   FILE  a release tarball (dpdk-<version>.tar.xz, as dpdk.org or `git
#         archive` of a release tag makes it)
#   DIR   a directory searched for the newest dpdk-<line>.*.tar.xz
#   none  AFXDP_DPDK_TARBALLS, else ../shared/dpdk beside the checkout
# The digest must match a SHA256SUMS file (sha256sum's format) or a
# <tarball>.sha256 beside it. Exit: 0; 3 no tarball of that line there;
# 1 any other error (a digest that does not match included).
# scripts/dpdk-build.sh builds another line's DPDK from it; scripts/dpdk-source.sh
# takes the driver-SDK headers from it where Debian's source package of the
# installed DPDK is not served (Debian 13 and testing, scripts/root.sh).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${AFXDP_CACHE:-/var/cache/af-xdp-direct}

log() { printf '[dpdk-tarball] %s\n' "$*" >&2; }
die() { printf '[dpdk-tarball] error: %s\n' "$1" >&2; exit "${2:-1}"; }

line=${1:?usage: $0 <line> [FILE | DIR]}
where=${2:-$(realpath -m "${AFXDP_DPDK_TARBALLS:-$top/../shared/dpdk}")}

# The newest dpdk-<line>.*.tar.xz in directory $1, or nothing.
tarball_in() {
	local name
	name=$(find "$1" -maxdepth 1 -name "dpdk-$line.*.tar.xz" -printf '%f\n' 2>/dev/null |
		sort -V | tail -n1)
	[ -z "$name" ] || echo "$1/$name"
}

# The SHA-256 that tarball $1 must have, from SHA256SUMS or <tarball>.sha256
# beside it; dies when neither names it.
expected_digest() {
	local dir name sums
	dir=$(dirname "$1") name=$(basename "$1")
	for sums in "$dir/SHA256SUMS" "$1.sha256"; do
		[ -f "$sums" ] || continue
		awk -v n="$name" '{ f = $2; sub(/^\*/, "", f) } f == n || (NF == 1) { print $1; exit }' "$sums"
		return 0
	done
	die "no SHA256SUMS or $name.sha256 beside $1: write one from the digest the release was published with (sha256sum's format: '<digest>  $name')"
}

if [ -d "$where" ]; then
	tarball=$(tarball_in "$where")
	[ -n "$tarball" ] || die "no dpdk-$line.*.tar.xz in $where (AFXDP_DPDK_TARBALLS)" 3
else
	tarball=$(realpath -e "$where" 2>/dev/null) ||
		die "no dpdk-$line.*.tar.xz: $where does not exist (AFXDP_DPDK_TARBALLS, or ../shared/dpdk beside the checkout)" 3
fi
want=$(expected_digest "$tarball")
[ -n "$want" ] || die "$(dirname "$tarball")/SHA256SUMS does not list $(basename "$tarball")"
have=$(sha256sum "$tarball" | cut -d' ' -f1)
[ "$have" = "$want" ] || die "$tarball: SHA-256 $have, but its SHA256SUMS says $want: refusing a tarball that is not the release"
tree=$cache/dpdk-src/${have:0:16}
if [ ! -f "$tree/.complete" ]; then
	[ "$(id -u)" -eq 0 ] || die "run as root: the tarball is unpacked into $tree"
	rm -rf "$tree" && mkdir -p "$tree"
	# dpdk.org's stable tarballs unpack into dpdk-stable-<version>/,
	# git archive's into dpdk-<version>/: drop whichever it is.
	tar -xJf "$tarball" -C "$tree" --strip-components=1
	touch "$tree/.complete"
fi
echo "$have" >"$tree.sha256"
log "DPDK $(cat "$tree/VERSION") from $tarball (SHA-256 checked)"
echo "$tree"
