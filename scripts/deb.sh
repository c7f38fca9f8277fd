#!/usr/bin/env bash
# Build the Debian package that makes our plugin the system's net_af_xdp for
# the installed DPDK (Debian 12: 22.11, package librte-net-af-xdp-direct23):
# it diverts the stock driver's plugin file in DPDK's plugin directory and
# installs ours in its place, so DPDK's tools and applications use it with
# no -d; `apt remove` gives the stock driver back. Install the result with
# `apt install ./<file>.deb`.
#
# Usage: scripts/deb.sh [--out DIR] [--force]   (as root, after scripts/setup.sh)
#   --out DIR   where the .deb is put (default ./build/deb); its path is
#               printed on the last line
#   --force     build again even if nothing changed since the last build
# Environment: DEBFULLNAME, DEBEMAIL (the package's maintainer, as for any
# Debian package built by hand), AFXDP_CACHE
# The package is built by dpkg-buildpackage from packaging/debian, filled in
# for the installed DPDK, in a copy of the tree under AFXDP_CACHE (default
# /var/cache/af-xdp-direct), which also keeps the build's log and the last
# package: built from the same files (git's tracked and untracked ones, not
# the ignored), commit, DPDK and maintainer, that one is given again (the
# test suite builds the package beside other tests, then installs it alone).
# One build at a time per package (a lock in that directory).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${AFXDP_CACHE:-/var/cache/af-xdp-direct}
out=$top/build/deb
force=0

log() { printf '[deb] %s\n' "$*" >&2; }
die() { printf '[deb] error: %s\n' "$*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$(realpath -m "${2:?--out needs a directory}"); shift 2 ;;
	--force) force=1; shift ;;
	*) die "unknown argument '$1' (see the head of $0)" ;;
	esac
done
[ "$(id -u)" -eq 0 ] || die "run as root (the build directory is under $cache)"
for tool in dpkg-buildpackage dh; do
	command -v "$tool" >/dev/null || die "$tool not found: scripts/setup.sh installs dpkg-dev and debhelper"
done

# --- what the package is for: the installed DPDK ------------------------------
dpdk_version=$(dpkg-query -W -f='${Version}' libdpdk-dev 2>/dev/null) ||
	die "libdpdk-dev is not installed (scripts/setup.sh installs it)"
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
eal=$(realpath "/usr/lib/$triplet/librte_eal.so")
abi=${eal##*.so.}                       # 23.0 for 22.11
abi_major=${abi%%.*}
package=librte-net-af-xdp-direct$abi_major
stock=/usr/lib/$triplet/dpdk/pmds-$abi/librte_net_af_xdp.so.$abi
dpkg-query -S "$stock" >/dev/null 2>&1 ||
	die "$stock is not a file of an installed package: install librte-net-af-xdp$abi_major (DPDK's stock driver), whose file this package diverts"
upstream=$(sed -n "s/^project(.*//; s/^[[:space:]]*version: '\([^']*\)'.*/\1/p" "$top/meson.build" | head -n1)
version="$upstream+dpdk${dpdk_version%%-*}"
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
# Whoever builds the package is its maintainer (Debian's DEBFULLNAME and
# DEBEMAIL); without them, the project's name at an address that reaches no one.
maintainer="${DEBFULLNAME:-af_xdp_direct developers} <${DEBEMAIL:-af-xdp-direct@example.invalid}>"

# --- the last package, if nothing it is built from changed -----------------------
work=$cache/deb/$package
mkdir -p "$cache/deb"
exec 9>"$cache/deb/$package.lock"
flock 9
# the tree's files, git's tracked and untracked ones (not the ignored): what
# the source copy below is made of
mapfile -d '' files < <(cd "$top" && git ls-files -z --cached --others --exclude-standard)
# what the package is made of: each file's mode, name and content, and what
# the templates below are filled in with (but the date)
build_key() {
	printf '%s\n' "$package" "$version" "$dpdk_version" "$stock" "$commit" "$maintainer"
	(cd "$top" && stat -c '%a %n' "${files[@]}" && sha256sum "${files[@]}")
}
key=$(build_key | sha256sum | cut -d' ' -f1)
file=$(ls "$work"/"${package}"_*.deb 2>/dev/null || true)
if [ "$force" = 0 ] && [ -n "$file" ] && [ "$(cat "$work/key" 2>/dev/null)" = "$key" ]; then
	log "$(basename "$file"): nothing changed since it was built (--force builds it again)"
	mkdir -p "$out"
	cp "$file" "$out/"
	echo "$out/$(basename "$file")"
	exit 0
fi

# --- the source copy, debian/ filled in -----------------------------------------
rm -rf "$work" && mkdir -p "$work/src"
(cd "$top" && tar -cf - --no-recursion "${files[@]}") | tar -xf - -C "$work/src"
deb=$work/src/debian
cp -a "$top/packaging/debian" "$deb"
for f in control changelog preinst postrm; do
	sed -e "s|@PACKAGE@|$package|g" -e "s|@ABI@|$abi|g" -e "s|@ABI_MAJOR@|$abi_major|g" \
		-e "s|@DPDK_VERSION@|$dpdk_version|g" -e "s|@VERSION@|$version|g" \
		-e "s|@STOCK@|$stock|g" -e "s|@COMMIT@|$commit|g" -e "s|@MAINTAINER@|$maintainer|g" \
		-e "s|@DATE@|$(date -R)|g" "$deb/$f.in" >"$deb/$f"
	rm "$deb/$f.in"
done
mv "$deb/preinst" "$deb/$package.preinst"
mv "$deb/postrm" "$deb/$package.postrm"

# --- build ------------------------------------------------------------------------
sdk=$("$top/scripts/dpdk-source.sh")
log "building $package $version for DPDK $dpdk_version (log: $work/build.log)"
if ! (cd "$work/src" && AFXDP_DPDK_SDK=$sdk AFXDP_PACKAGE=$package AFXDP_STOCK=$stock \
	dpkg-buildpackage -b -us -uc) >"$work/build.log" 2>&1; then
	tail -n 30 "$work/build.log" >&2
	die "dpkg-buildpackage failed (log: $work/build.log)"
fi
file=$(ls "$work"/"${package}"_*.deb)
echo "$key" >"$work/key"
mkdir -p "$out"
cp "$file" "$out/"
log "built $(basename "$file")"
echo "$out/$(basename "$file")"
