# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# Shared by build.sh, vm-run.sh and run-tests.sh (sourced, not run).
#
# Where the patched kernel is built and cached, and the cache key: a hash of
# (Debian source package and version, config fragment, patch series, build
# recipe). Any change to one of them names a different image, so a stale
# image is never booted.

KERNEL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# The kernel source: Debian's package, its tarball lands in /usr/src.
KERNEL_SRC_PKG=linux-source-6.12
# shellcheck disable=SC2034 # used by build.sh
KERNEL_SRC_TARBALL=/usr/src/linux-source-6.12.tar.xz

# Bump when build.sh changes what it produces from the same inputs.
# 2: the series' BPF selftests (test_progs) next to the image.
KERNEL_RECIPE=2

KERNEL_CACHE=${AFXDP_KERNEL_CACHE:-/var/cache/af-xdp-direct/kernel}

# 1: the debug flavour (build.sh --debug sets it): config-debug.fragment on top of
# config.fragment, in the key too. 0 (the default) leaves the key exactly
# what it was before the flavour existed, so the cached images stay valid.
KERNEL_DEBUG=0

die() {
	echo "$(basename "$0"): error: $*" >&2
	exit 1
}

# The installed version of the source package, empty when not installed.
kernel_src_version() {
	dpkg-query -W -f='${Status} ${Version}\n' "$KERNEL_SRC_PKG" 2>/dev/null |
		awk '$1 == "install" && $3 == "installed" { print $4 }'
}

# The series comes in layers, one directory each under patches/, applied
# in the order patches/layers lists them, each on the ones before it:
#   a-xsk-rx-batch   the upstream candidate: batched XSKMAP receive, no UAPI
#   c-veth-zc        zero-copy AF_XDP on veth, on (a) alone
#   b-redirect-xsk   the seed's bpf_redirect_xsk() / XDP_REDIRECT_XSK, on
#                    (a)+(c) (its veth patch handles the action in the
#                    zero-copy poll too)
# Each has a cover letter (0000), which is not a patch. The measurement's
# baseline is the same source and configuration without any of them
# (build.sh --unpatched).
kernel_layers() {
	local l
	[ -f "$KERNEL_DIR/patches/layers" ] || { echo "no $KERNEL_DIR/patches/layers" >&2; return 1; }
	while read -r l; do
		case "$l" in '' | '#'*) continue ;; esac
		[ -d "$KERNEL_DIR/patches/$l" ] || { echo "patches/layers: no directory $l" >&2; return 1; }
		echo "$l"
	done <"$KERNEL_DIR/patches/layers"
}

# The layers up to and including the one named by $1 (its letter or its
# whole name); all of them without an argument; none for "none".
kernel_layers_upto() {
	local top=${1:-} l
	[ "$top" = none ] && return 0
	for l in $(kernel_layers); do
		echo "$l"
		[ -n "$top" ] && { [ "$l" = "$top" ] || [ "${l%%-*}" = "$top" ]; } && return 0
	done
	[ -z "$top" ] || { echo "no layer '$top' in $KERNEL_DIR/patches" >&2; return 1; }
}

# The patches of the given layers (all layers without an argument), in order.
kernel_patches() {
	local l p layers
	if [ $# -gt 0 ]; then layers=("$@"); else mapfile -t layers < <(kernel_layers); fi
	for l in "${layers[@]}"; do
		for p in "$KERNEL_DIR/patches/$l"/[0-9][0-9][0-9][0-9]-*.patch; do
			[ -f "$p" ] && [ "${p##*/}" != 0000-cover-letter.patch ] && echo "$p"
		done
	done
}

# The cache key for the given source version (first argument) and the
# layers that follow it (all layers when none follow; "none": the unpatched
# source, the measurement's baseline). Of each patch file only what patch(1)
# applies is hashed, from its first "diff --git" line: a reworded commit
# message builds nothing (a build is 6-45 minutes here), and the source
# tree holds no commit (build.sh applies the files with patch, not git).
kernel_key() {
	local version=$1 p
	shift
	local layers=("$@")
	[ ${#layers[@]} -gt 0 ] || mapfile -t layers < <(kernel_layers)
	[ "${layers[0]:-}" = none ] && layers=()
	{
		echo "recipe $KERNEL_RECIPE"
		echo "source $KERNEL_SRC_PKG $version"
		echo "fragment"
		cat "$KERNEL_DIR/config.fragment"
		if [ "$KERNEL_DEBUG" = 1 ]; then
			echo "debug fragment"
			cat "$KERNEL_DIR/config-debug.fragment"
		fi
		[ ${#layers[@]} -gt 0 ] || echo "unpatched"
		for p in $([ ${#layers[@]} -eq 0 ] || kernel_patches "${layers[@]}"); do
			echo "patch ${p#"$KERNEL_DIR"/patches/}"
			sed -n '/^diff --git /,$p' "$p"
		done
	} | sha256sum | cut -c1-16
}

# The cached image for the installed source, or nothing (exit status 1).
# AFXDP_VM_KERNEL overrides it, for a kernel built by other means.
kernel_image() {
	local version key
	if [ -n "${AFXDP_VM_KERNEL:-}" ]; then
		[ -f "$AFXDP_VM_KERNEL" ] && echo "$AFXDP_VM_KERNEL"
		return
	fi
	version=$(kernel_src_version)
	[ -n "$version" ] || return 1
	key=$(kernel_key "$version")
	[ -f "$KERNEL_CACHE/images/$key/bzImage" ] || return 1
	echo "$KERNEL_CACHE/images/$key/bzImage"
}

# The test programs, built with cc into directory $1 for run-tests.sh and
# bench.sh (meson builds the same ones for the meson test suite).
KERNEL_TEST_PROGS="xsk_direct_check xsk_rx pkt_inject xsk_bench xsk_tx"

kernel_build_tests() {
	local out=$1 prog cflags libs
	pkg-config --exists libbpf || die "libbpf is missing (apt-get install libbpf-dev)"
	cflags=$(pkg-config --cflags libbpf)
	libs=$(pkg-config --libs libbpf)
	mkdir -p "$out"
	for prog in $KERNEL_TEST_PROGS; do
		# shellcheck disable=SC2086
		cc -O2 -g -std=gnu11 -Wall -Wextra -Werror $cflags -o "$out/$prog" \
			"$KERNEL_DIR/tests/$prog.c" "$KERNEL_DIR/tests/xsk_test.c" $libs ||
			die "cannot build $prog"
	done
}
