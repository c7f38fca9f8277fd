#!/usr/bin/env bash
# Build our plugin for another DPDK LTS line than Debian 12's: DPDK itself
# (built once, cached) with only what the tests need, then the plugin against
# it in its own build directory.
#
# Usage: scripts/dpdk-build.sh <23.11|24.11|25.11> [--tarball FILE|DIR] [--source DIR]
#                              [--mempool-debug]
#   --mempool-debug  DPDK and the plugin built with RTE_LIBRTE_MEMPOOL_DEBUG
#                    (a cookie checked on every mempool get and put), the
#                    plugin in build-dpdk-<line>-mempool-debug
# DPDK's source, the first of:
#   --source DIR    a DPDK source tree of that line, used as it is
#   --tarball PATH  a DPDK release tarball (dpdk-<version>.tar.xz, as
#                   dpdk.org or `git archive` of a release tag makes it), or a
#                   directory searched for dpdk-<line>.*.tar.xz (the newest);
#                   its SHA-256 must match a SHA256SUMS file (sha256sum's
#                   format) or a <tarball>.sha256 beside it
#   Debian's source package of the pinned version (PIN below), where the
#                   system's Debian mirror serves it
#   the tarball directory AFXDP_DPDK_TARBALLS, else ../shared/dpdk beside
#                   the checkout when it exists
# Prints the plugin's build directory on the last line of its output; its
# dpdk-l2fwd is that DPDK's examples/l2fwd (for scripts/bench.sh --dpdk).
# Exit: 0 built; 3 no source of that line can be had (the message says what
# was tried); 1 any other error (a digest that does not match included).
#
# 22.11 is Debian 12's own DPDK, used as installed: scripts/setup.sh, ./build.
# Environment:
#   AFXDP_CACHE   sources, DPDK builds (default /var/cache/af-xdp-direct)
#   AFXDP_DPDK_TARBALLS
#                 a directory of DPDK release tarballs with their SHA256SUMS
#   AFXDP_DPDK_SOURCE_23_11, AFXDP_DPDK_SOURCE_24_11, AFXDP_DPDK_SOURCE_25_11
#                 a default for --source, per line (scripts/test.sh passes
#                 the environment on)
#   AFXDP_JOBS    ninja -j for DPDK (default 2)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${AFXDP_CACHE:-/var/cache/af-xdp-direct}
jobs=${AFXDP_JOBS:-2}

log() { printf '[dpdk-build] %s\n' "$*"; }
die() { printf '[dpdk-build] error: %s\n' "$1" >&2; exit "${2:-1}"; }

# The pinned Debian source of each line: version and the suite that has it.
# A new LTS line gets a row here; where its internal API differs from the
# others', the driver adapts in af_xdp_compat.h by RTE_VERSION, or by what
# DPDK's own headers define (RTE_MP_MAX_FD_NUM in af_xdp_mp.c), never by
# copies of files.
# 23.11 is in no Debian suite (Ubuntu 24.04's DPDK): a release tarball only.
declare -A PIN=([24.11]=24.11.8-0+deb13u1 [25.11]=25.11.4-1)
declare -A SUITE=([24.11]=trixie [25.11]=forky)

# What the tests need of DPDK; everything else is left out. Bump RECIPE when
# the build below changes what it produces from the same source.
RECIPE=2
# net/pcap: dpdk-pdump writes its capture through it. net/memif: a primary
# must register every tailq its secondaries do, and testpmd alone links no
# librte_hash while dpdk-proc-info does ("Cannot initialize tailq:
# RTE_HASH"): both load memif, which needs it, from the PMD directory.
APPS=test-pmd,proc-info,dumpcap,pdump
DRIVERS=net/af_xdp,net/ring,mempool/ring,net/pcap,net/memif
LIBS=eal,log,kvargs,telemetry,ring,mempool,mbuf,net,meter,ethdev,pci,cmdline,hash,rcu
LIBS+=,metrics,bitratestats,latencystats,pdump,pcapng,bpf,gro,gso,ip_frag,lpm,bbdev
LIBS+=,security,cryptodev,eventdev,timer,dmadev

line=${1:-}
shift || true
source_dir= tarball= debug_cflags=
while [ $# -gt 0 ]; do
	case "$1" in
	--source) source_dir=$(cd "${2:?--source needs a directory}" && pwd); shift 2 ;;
	--mempool-debug) debug_cflags=-DRTE_LIBRTE_MEMPOOL_DEBUG; shift ;;
	--tarball) tarball=$(realpath -e "${2:?--tarball needs a file or directory}" 2>/dev/null) ||
		die "--tarball $2: no such file or directory"; shift 2 ;;
	*) die "unknown argument '$1' (see the head of $0)" ;;
	esac
done
if [ -z "$source_dir" ]; then
	var=AFXDP_DPDK_SOURCE_${line//./_}
	[ -z "${!var:-}" ] || source_dir=$(cd "${!var}" && pwd)
fi
case "$line" in
22.11) die "22.11 is Debian 12's installed DPDK: scripts/setup.sh builds ./build for it" ;;
23.11 | 24.11 | 25.11) ;;
*) die "usage: $0 <23.11|24.11|25.11> [--tarball FILE|DIR] [--source DIR]" ;;
esac
[ "$(id -u)" -eq 0 ] || die "run as root: the sources and builds are cached in $cache"
# Debian's python3 has the pyelftools DPDK's build needs (scripts/setup.sh).
export PATH=/usr/bin:$PATH

# --- 1. the source -----------------------------------------------------------
# Each way sets src (the tree), version, and origin: what identifies the
# source in the cache key (the tarball's digest, Debian's version, a path).

# Tarball $1 (a file or a directory of them), its digest checked, unpacked
# once into the cache (scripts/dpdk-tarball.sh); its exit passed on.
use_tarball() {
	local rc=0
	src=$("$top/scripts/dpdk-tarball.sh" "$line" "$1") || rc=$?
	[ "$rc" -eq 0 ] || exit "$rc"
	version=$(cat "$src/VERSION") origin="tarball sha256 $(cat "$src.sha256")"
}

# Debian's pinned source package of the line, if the mirror serves it;
# otherwise why not is added to "why".
use_debian_pin() {
	local err rc=0
	[ -n "${PIN[$line]:-}" ] || { why+=("no Debian suite carries DPDK $line"); return 1; }
	err=$(mktemp)
	src=$("$top/scripts/dpdk-source.sh" "${PIN[$line]}" "${SUITE[$line]}" 2>"$err") || rc=$?
	if [ "$rc" -ne 0 ]; then
		why+=("$(sed -n 's/^.*error: //; s/ (see above)//p' "$err" | tail -n1)")
		rm -f "$err"
		return 1
	fi
	rm -f "$err"
	version=$(cat "$src/VERSION") origin="debian dpdk=${PIN[$line]}"
	log "DPDK $version from Debian's source package dpdk=${PIN[$line]}"
}

why=()
if [ -n "$source_dir" ]; then
	src=$source_dir
	[ -f "$src/VERSION" ] || die "--source $src is not a DPDK source tree (no VERSION)"
	version=$(cat "$src/VERSION") origin="tree $src"
	log "DPDK $version from the tree $src"
elif [ -n "$tarball" ]; then
	use_tarball "$tarball"
elif ! use_debian_pin; then
	dir=$(realpath -m "${AFXDP_DPDK_TARBALLS:-$top/../shared/dpdk}")
	ls "$dir"/dpdk-"$line".*.tar.xz >/dev/null 2>&1 ||
		die "no DPDK $line: ${why[*]}; and no dpdk-$line.*.tar.xz in $dir (--tarball, AFXDP_DPDK_TARBALLS)" 3
	log "${why[*]}: taking the release tarball"
	use_tarball "$dir"
fi
[ "${version#"$line".}" != "$version" ] || die "the source is DPDK $version, not of line $line"

# --- 2. DPDK, cached by (recipe, version, options) ----------------------------
options=(--buildtype=release -Ddefault_library=shared -Dplatform=generic
	-Denable_driver_sdk=true -Dtests=false -Denable_docs=false -Dexamples=l2fwd
	"-Denable_apps=$APPS" "-Denable_drivers=$DRIVERS" "-Denable_libs=$LIBS")
[ -z "$debug_cflags" ] || options+=("-Dc_args=$debug_cflags")
key=$(printf '%s\n' "recipe $RECIPE" "$origin" "version $version" "${options[@]}" |
	sha256sum | cut -c1-12)
dpdk_dir=$cache/dpdk/$version-$key
prefix=$dpdk_dir/prefix
if [ -f "$dpdk_dir/.complete" ]; then
	log "DPDK $version: cached in $prefix"
else
	log "DPDK $version: building into $prefix (a few minutes; log $dpdk_dir/build.log)"
	rm -rf "$dpdk_dir" && mkdir -p "$dpdk_dir"
	started=$(date +%s)
	if ! { meson setup "$dpdk_dir/build" "$src" --prefix="$prefix" "${options[@]}" &&
		nice -n 10 ninja -C "$dpdk_dir/build" -j "$jobs" &&
		ninja -C "$dpdk_dir/build" install &&
		install -m 755 "$dpdk_dir/build/examples/dpdk-l2fwd" "$prefix/bin/"; } \
		>"$dpdk_dir/build.log" 2>&1; then
		tail -n 25 "$dpdk_dir/build.log" >&2
		die "building DPDK $version failed (log: $dpdk_dir/build.log)"
	fi
	rm -rf "$dpdk_dir/build"
	touch "$dpdk_dir/.complete"
	log "DPDK $version built in $(($(date +%s) - started)) s"
fi

# --- 3. our plugin against it -------------------------------------------------
pc_dir=$(dirname "$(find "$prefix" -name libdpdk.pc -print -quit)")
[ -d "$pc_dir" ] || die "no libdpdk.pc under $prefix"
build_dir=$top/build-dpdk-$line${debug_cflags:+-mempool-debug}
# DPDK's own c_args do not reach its pkg-config flags: the plugin, whose
# inline mempool calls must check the same cookies, gets them again.
if [ -d "$build_dir" ]; then
	meson configure "$build_dir" -Dpkg_config_path="$pc_dir" -Dc_args="$debug_cflags" >/dev/null
else
	meson setup "$build_dir" "$top" -Dpkg_config_path="$pc_dir" -Dc_args="$debug_cflags" >/dev/null
fi
# Quiet when it builds; what failed, when not (ninja reports on stdout).
if ! out=$(ninja -C "$build_dir" 2>&1); then
	printf '%s\n' "$out" | grep -v '^\[[0-9]*/[0-9]*\] ' >&2
	die "the plugin does not build against DPDK $version (in $build_dir)"
fi
ln -sfn "$prefix/bin/dpdk-l2fwd" "$build_dir/dpdk-l2fwd"
log "plugin for DPDK $version built in $build_dir"
echo "$build_dir"
