#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# build-selftest.sh <patched kernel source tree> <output directory>
#
# Build the series' own BPF selftests (tools/testing/selftests/bpf: the
# prog_tests and progs named in SELFTESTS below) into a test_progs that
# contains only them, from the tree's own test_progs.c, helpers and libbpf.
#
# Why not `make -C tools/testing/selftests/bpf`: that builds all ~350 tests
# and ~800 BPF programs, many of which need a newer clang than Debian 12's
# clang 14 (and a bpftool and kernel modules built from the tree). Ours need
# nothing of that: libbpf from the tree (so that bpf_helper_defs.h has the
# series' helper), clang for the BPF object, bpftool for its skeleton, gcc
# for the rest, with the flags the selftests' Makefile uses.
#
# Output: <output directory>/test_progs (and the intermediate files).
# Called by build.sh after the kernel build; the image cache keeps the binary.

set -eu -o pipefail

SELFTESTS="xdp_xsk_redirect"

die() {
	echo "build-selftest.sh: error: $*" >&2
	exit 1
}

[ $# = 2 ] || die "usage: $0 <kernel source tree> <output directory>"
src=$(readlink -f "$1")
out=$(mkdir -p "$2" && readlink -f "$2")
st=$src/tools/testing/selftests/bpf
[ -f "$st/test_progs.c" ] || die "$src has no tools/testing/selftests/bpf/test_progs.c"
for t in $SELFTESTS; do
	[ -f "$st/prog_tests/$t.c" ] && [ -f "$st/progs/$t.c" ] ||
		die "$src lacks the selftest $t (prog_tests/$t.c, progs/$t.c): is the series applied?"
done
for tool in clang bpftool gcc make; do
	command -v "$tool" >/dev/null || die "$tool is missing"
done

jobs=${AFXDP_KERNEL_JOBS:-2}
inc=$out/include

mkdir -p "$out/libbpf"
# 1. libbpf of the tree, static, and its headers (bpf_helper_defs.h is
#    generated from the tree's tools/include/uapi/linux/bpf.h)
make -s -C "$src/tools/lib/bpf" -j"$jobs" OUTPUT="$out/libbpf/" \
	DESTDIR="$out" prefix= BUILD_STATIC_ONLY=y EXTRA_CFLAGS="-g -O2" \
	"$out/libbpf/libbpf.a" install_headers >/dev/null

# 2. the BPF objects and their skeletons
sys_includes=$(clang -v -E - </dev/null 2>&1 |
	sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')
mkdir -p "$out/progs"
for t in $SELFTESTS; do
	# shellcheck disable=SC2086 # the system include options
	clang -g -O2 -Wall -Werror --target=bpf -mcpu=v3 -D__TARGET_ARCH_x86 \
		-mlittle-endian -I"$inc" -I"$st" -I"$src/tools/include/uapi" \
		$sys_includes -c "$st/progs/$t.c" -o "$out/progs/$t.bpf.o"
	bpftool gen skeleton "$out/progs/$t.bpf.o" name "$t" >"$out/$t.skel.h"
done

# 3. the list of tests test_progs.c includes, as the Makefile generates it
mkdir -p "$out/prog_tests"
{
	echo '/* Generated header, do not edit */'
	for t in $SELFTESTS; do
		sed -n -E 's/^void (serial_)?test_([a-zA-Z0-9_]+)\((void)?\).*/DEFINE_TEST(\2)/p' \
			"$st/prog_tests/$t.c"
	done | sort
} >"$out/prog_tests/tests.h"

# 4. test_progs: the runner and the helpers the selftests' Makefile links
#    (TRUNNER_EXTRA_SOURCES), without LLVM (jit_disasm_helpers.c then has
#    its stubs), and our tests
cflags=(-g -O2 -rdynamic -Wall -fno-omit-frame-pointer
	-I"$out" -I"$st" -I"$inc" -I"$src/tools/lib" -I"$src/tools/include"
	-I"$src/tools/arch/x86/include" -I"$src/tools/include/uapi")
helpers="test_progs cgroup_helpers trace_helpers network_helpers testing_helpers
	btf_helpers cap_helpers unpriv_helpers netlink_helpers jit_disasm_helpers
	test_loader xsk disasm disasm_helpers json_writer"
objs=()
for h in $helpers; do
	gcc "${cflags[@]}" -c "$st/$h.c" -o "$out/$h.o"
	objs+=("$out/$h.o")
done
for t in $SELFTESTS; do
	# Our own tests: no warning at all
	gcc "${cflags[@]}" -Werror -c "$st/prog_tests/$t.c" -o "$out/prog_tests/$t.o"
	objs+=("$out/prog_tests/$t.o")
done
# shellcheck disable=SC2046
gcc -rdynamic -o "$out/test_progs" "${objs[@]}" "$out/libbpf/libbpf.a" \
	$(pkg-config --libs libelf 2>/dev/null || echo -lelf) -lz -lrt -lpthread
echo "$out/test_progs"
