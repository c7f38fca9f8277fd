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

die() {
	echo "$(basename "$0"): error: $*" >&2
	exit 1
}

# The installed version of the source package, empty when not installed.
kernel_src_version() {
	dpkg-query -W -f='${Status} ${Version}\n' "$KERNEL_SRC_PKG" 2>/dev/null |
		awk '$1 == "install" && $3 == "installed" { print $4 }'
}

# The patch series, in order; the cover letter (0000) is not a patch.
kernel_patches() {
	ls "$KERNEL_DIR"/patches/[0-9][0-9][0-9][0-9]-*.patch 2>/dev/null |
		grep -v '/0000-cover-letter\.patch$' | LC_ALL=C sort
}

# The cache key for the given source version (first argument).
kernel_key() {
	local version=$1 p
	{
		echo "recipe $KERNEL_RECIPE"
		echo "source $KERNEL_SRC_PKG $version"
		echo "fragment"
		cat "$KERNEL_DIR/config.fragment"
		for p in $(kernel_patches); do
			echo "patch $(basename "$p")"
			cat "$p"
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
