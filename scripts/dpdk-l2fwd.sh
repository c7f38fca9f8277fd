#!/usr/bin/env bash
# DPDK's own examples/l2fwd, built once from the Debian source of the
# installed DPDK (scripts/dpdk-source.sh) against the installed libdpdk, the
# way its Makefile does; the benchmark's dpdk-l2fwd configuration runs it.
# The binary is kept beside the source (AFXDP_CACHE/dpdk-<Debian
# version>/l2fwd/dpdk-l2fwd, rebuilt when the installed DPDK changes) and
# linked from the build directory as <build>/dpdk-l2fwd; prints its path.
#
# Usage: scripts/dpdk-l2fwd.sh
# Environment:
#   AFXDP_CACHE   where downloaded sources are kept (default /var/cache/af-xdp-direct)
#   BUILD_DIR     meson build directory (default ./build)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$top/build}

log() { printf '[dpdk-l2fwd] %s\n' "$*" >&2; }
die() { printf '[dpdk-l2fwd] error: %s\n' "$*" >&2; exit 1; }

tree=$("$top/scripts/dpdk-source.sh")
src="$tree/examples/l2fwd/main.c"
[ -f "$src" ] || die "no examples/l2fwd/main.c in $tree"
pc=$(pkg-config --path libdpdk) || die "pkg-config finds no libdpdk (install libdpdk-dev)"
out="$(dirname "$tree")/l2fwd"
bin="$out/dpdk-l2fwd"
if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ] || [ "$pc" -nt "$bin" ]; then
	log "building $bin from $src"
	mkdir -p "$out"
	# examples/l2fwd/Makefile's flags: -O3, libdpdk's, the experimental API.
	# shellcheck disable=SC2046
	cc -O3 $(pkg-config --cflags libdpdk) -DALLOW_EXPERIMENTAL_API "$src" \
		-o "$bin.$$" $(pkg-config --libs libdpdk)
	mv -f "$bin.$$" "$bin"
fi
if [ -d "$build_dir" ]; then
	ln -sfn "$bin" "$build_dir/dpdk-l2fwd"
fi
echo "$bin"
