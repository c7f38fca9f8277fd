#!/usr/bin/env bash
# The Debian source tree of the installed DPDK, fetched once: prints its path
# (AFXDP_CACHE/dpdk-<Debian version>/tree). scripts/setup.sh takes the
# driver-SDK headers from it (Debian's libdpdk-dev lacks them) and
# scripts/dpdk-l2fwd.sh builds DPDK's own examples/l2fwd from it.
#
# Usage: scripts/dpdk-source.sh        (as root: it may add a deb-src entry)
# Environment:
#   AFXDP_CACHE   where downloaded sources are kept (default /var/cache/af-xdp-direct)
set -euo pipefail

cache=${AFXDP_CACHE:-/var/cache/af-xdp-direct}

log() { printf '[dpdk-source] %s\n' "$*" >&2; }
die() { printf '[dpdk-source] error: %s\n' "$*" >&2; exit 1; }

pkgver=$(dpkg-query -W -f='${Version}' libdpdk-dev 2>/dev/null) ||
	die "libdpdk-dev is not installed (scripts/setup.sh installs it)"
srcdir="$cache/dpdk-$pkgver"
if [ ! -f "$srcdir/.complete" ]; then
	[ "$(id -u)" -eq 0 ] || die "run as root: the source of dpdk=$pkgver must be fetched into $srcdir"
	log "fetching Debian source of dpdk=$pkgver into $srcdir"
	srclist=/etc/apt/sources.list.d/af-xdp-direct-deb-src.sources
	if ! apt-get indextargets --format '$(CREATED_BY)' 2>/dev/null | grep -q Sources; then
		cat > "$srclist" <<-SRC
		# added by af-xdp-direct scripts/dpdk-source.sh: source of the installed DPDK
		Types: deb-src
		URIs: http://deb.debian.org/debian
		Suites: bookworm bookworm-updates
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

		Types: deb-src
		URIs: http://deb.debian.org/debian-security
		Suites: bookworm-security
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
		SRC
		apt-get update -qq
	fi
	rm -rf "$srcdir" && mkdir -p "$srcdir"
	(cd "$srcdir" && apt-get source -qq "dpdk=$pkgver" >/dev/null)
	tree=$(find "$srcdir" -mindepth 1 -maxdepth 1 -type d -name 'dpdk*' | head -n1)
	[ -n "$tree" ] || die "apt-get source dpdk=$pkgver produced no tree in $srcdir"
	ln -sfn "$(basename "$tree")" "$srcdir/tree"
	touch "$srcdir/.complete"
fi
echo "$srcdir/tree"
