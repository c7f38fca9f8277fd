#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# build-xskxceiver.sh [--thread-timeout S] <kernel source tree> <output directory>
#
# Build the kernel's own AF_XDP test suite, xskxceiver with test_xsk.sh
# (tools/testing/selftests/bpf), from a kernel source tree, the way the
# selftests' Makefile builds it but without the rest of the selftests
# (see build-selftest.sh for why): libbpf of the tree (static), clang for
# progs/xsk_xdp_progs.c, bpftool for its skeleton, gcc for xskxceiver.c,
# xsk.c, network_helpers.c and tools/lib/find_bit.c.
#
# --thread-timeout S: xskxceiver's deadline for a test's stream and its
# completions (THREAD_TMOUT, 3 s in the source) becomes S seconds, for a
# slow kernel under TCG (debug-run.sh); the tree must carry the suite's fix
# that lets the build set it (xsk-suite-fixes/0002), or the header's 3 s
# would silently win over -DTHREAD_TMOUT.
#
# Output: <output directory>/{xskxceiver,test_xsk.sh,xsk_prereqs.sh}, what
# test_xsk.sh needs in its directory. Used by xsk-suite.sh.

set -eu -o pipefail

die() {
	echo "build-xskxceiver.sh: error: $*" >&2
	exit 1
}

thread_timeout=
if [ "${1:-}" = --thread-timeout ]; then
	thread_timeout=${2:-}
	shift 2 || true
	[[ "$thread_timeout" =~ ^[1-9][0-9]*$ ]] ||
		die "--thread-timeout wants a whole number of seconds, not '$thread_timeout'"
fi
[ $# = 2 ] || die "usage: $0 [--thread-timeout S] <kernel source tree> <output directory>"
src=$(readlink -f "$1")
out=$(mkdir -p "$2" && readlink -f "$2")
st=$src/tools/testing/selftests/bpf
for f in xskxceiver.c xsk.c test_xsk.sh xsk_prereqs.sh progs/xsk_xdp_progs.c; do
	[ -f "$st/$f" ] || die "$src has no tools/testing/selftests/bpf/$f"
done
if [ -n "$thread_timeout" ]; then
	grep -q '^#ifndef THREAD_TMOUT$' "$st/xskxceiver.h" ||
		die "$st/xskxceiver.h defines THREAD_TMOUT unconditionally (xsk-suite-fixes/0002 not applied)"
fi
for tool in clang bpftool gcc make; do
	command -v "$tool" >/dev/null || die "$tool is missing"
done

jobs=${AFXDP_KERNEL_JOBS:-2}
inc=$out/include

# 1. libbpf of the tree, static, and its headers
mkdir -p "$out/libbpf"
make -s -C "$src/tools/lib/bpf" -j"$jobs" OUTPUT="$out/libbpf/" \
	DESTDIR="$out" prefix= BUILD_STATIC_ONLY=y EXTRA_CFLAGS="-g -O2" \
	"$out/libbpf/libbpf.a" install_headers >/dev/null

# 2. the XDP programs and their skeleton
sys_includes=$(clang -v -E - </dev/null 2>&1 |
	sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')
# shellcheck disable=SC2086 # the system include options
clang -g -O2 -Wall -Werror -Wno-compare-distinct-pointer-types --target=bpf -mcpu=v3 -D__TARGET_ARCH_x86 \
	-mlittle-endian -I"$inc" -I"$st" -I"$src/tools/include/uapi" \
	$sys_includes -c "$st/progs/xsk_xdp_progs.c" -o "$out/xsk_xdp_progs.bpf.o"
bpftool gen skeleton "$out/xsk_xdp_progs.bpf.o" name xsk_xdp_progs >"$out/xsk_xdp_progs.skel.h"

# 3. xskxceiver, with the flags the selftests' Makefile uses
cflags=(-g -O2 -Wall -fno-omit-frame-pointer
	-I"$out" -I"$st" -I"$inc" -I"$src/tools/lib" -I"$src/tools/include"
	-I"$src/tools/arch/x86/include" -I"$src/tools/include/uapi")
[ -z "$thread_timeout" ] || cflags+=(-DTHREAD_TMOUT="$thread_timeout")
# shellcheck disable=SC2046
gcc "${cflags[@]}" -o "$out/xskxceiver" "$st/xskxceiver.c" "$st/xsk.c" \
	"$st/network_helpers.c" "$src/tools/lib/find_bit.c" "$out/libbpf/libbpf.a" \
	$(pkg-config --libs libelf 2>/dev/null || echo -lelf) -lz -lrt -lpthread
cp "$st/test_xsk.sh" "$st/xsk_prereqs.sh" "$out/"
echo "$out/xskxceiver"
