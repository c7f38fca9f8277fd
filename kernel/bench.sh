#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench.sh [--rounds R] [--seconds S] [--wallclock] [--zero-copy] [--out DIR]
#
# The measurement (not a test): in the VM, on a veth pair, with a kernel-side
# generator (BPF_PROG_RUN live frames), the receive cost of AF_XDP with
# bpf_redirect_map() and bpf_redirect_xsk(), each frame by frame and batched,
# and of frames alternating between two sockets, next to XDP_DROP, with the
# targets of the batched map path checked; see kernel/tests/xsk_bench.c.
# --zero-copy binds the sockets with XDP_ZEROCOPY (veth, patches 11-14).
#
# By default qemu runs with -icount shift=0: guest time advances by 1 ns per
# guest instruction, so "ns" below are guest instructions, deterministic and
# immune to the host's load. --wallclock runs multi-threaded TCG on the
# host's clock instead (noisy on a shared machine). Either way TCG is not a
# CPU: compare ratios, not absolute values.
#
# Builds the kernel if needed (kernel/build.sh) and the benchmark; the output
# and a CSV of every window are kept in DIR (default
# /var/cache/af-xdp-direct/kernel/bench/<date>).

set -u
. "$(dirname "$(readlink -f "$0")")/lib.sh"

rounds=5
seconds=2
wallclock=0
zero_copy=()
out=$KERNEL_CACHE/bench/$(date -u +%Y%m%dT%H%M%SZ)
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=$2; shift ;;
	--seconds) seconds=$2; shift ;;
	--wallclock) wallclock=1 ;;
	--zero-copy) zero_copy=(--zero-copy) ;;
	--out) out=$2; shift ;;
	-h | --help) sed -n '3,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
	shift
done

"$KERNEL_DIR/build.sh" >/dev/null || die "the kernel build failed (run kernel/build.sh)"
bin=$KERNEL_CACHE/tests-bin
kernel_build_tests "$bin"
mkdir -p "$out"

if [ "$wallclock" = 0 ]; then
	export AFXDP_VM_ICOUNT=0
	echo "# qemu -icount shift=0: 1 ns of guest time = 1 guest instruction"
else
	unset AFXDP_VM_ICOUNT
	echo "# multi-threaded TCG on the host clock"
fi
export AFXDP_VM_RESULTS_DIR=$out
"$KERNEL_DIR/vm-run.sh" "$KERNEL_DIR/tests/vm-bench.sh" "$bin/xsk_bench" \
	--rounds "$rounds" --seconds "$seconds" "${zero_copy[@]}" | tee "$out/bench.txt"
rc=${PIPESTATUS[0]}
echo "# results in $out"
exit "$rc"
