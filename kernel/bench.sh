#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench.sh [--rounds R] [--seconds S] [--wallclock] [--zero-copy] [--out DIR]
# bench.sh --testpmd [--rounds R] [--cycles N] [--rows LIST] [--same-veths]
#          [--build DIR] [--kernel BZIMAGE] [--out DIR]
#
# The measurement (not a test): in the VM, on a veth pair, with a kernel-side
# generator (BPF_PROG_RUN live frames), the receive cost of AF_XDP with
# bpf_redirect_map() and bpf_redirect_xsk(), each frame by frame and batched,
# and of frames alternating between two sockets, next to XDP_DROP, with the
# targets of the batched map path checked; see kernel/tests/xsk_bench.c.
# --zero-copy binds the sockets with XDP_ZEROCOPY (veth, patches 11-15).
#
# --testpmd measures DPDK instead (bench/icount.py, in the VM): guest
# instructions per frame, generator and kernel included, of testpmd rxonly
# and io over veth with (a) Debian's stock net_af_xdp in copy mode and the
# kernel's per-frame receive, (b) ours in copy mode, batched, (c) ours in
# zero-copy with redirect=direct, beside the kernel's XDP_DROP (the receive
# baseline) and DEVMAP redirect (the floor); R rounds (default 2) of N
# cycles (default 4) of 1024 frames per row, after one cycle of warm-up: the
# generator's call while testpmd is stopped, then testpmd takes the frames
# (bench/benchlib/icount.py); LIST picks rows, in its order ('io (c),
# xdp-redirect'); --same-veths runs all rows on one topology instead of
# veths per row (as testpmd restarted on the same veths).
# It needs the project built in DIR (default ./build: the plugin,
# afxdp-gen, bench-xdp). --kernel boots BZIMAGE instead of the cached
# image of kernel/patches (AFXDP_VM_KERNEL).
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
rounds_set=
seconds=2
wallclock=0
zero_copy=()
testpmd=0
cycles=
rows=
same_veths=()
build=$(dirname "$KERNEL_DIR")/build
out=$KERNEL_CACHE/bench/$(date -u +%Y%m%dT%H%M%SZ)
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=$2; rounds_set=$2; shift ;;
	--seconds) seconds=$2; shift ;;
	--wallclock) wallclock=1 ;;
	--zero-copy) zero_copy=(--zero-copy) ;;
	--out) out=$2; shift ;;
	--testpmd) testpmd=1 ;;
	--cycles) cycles=$2; shift ;;
	--rows) rows=$2; shift ;;
	--same-veths) same_veths=(--same-veths) ;;
	--build) build=$(readlink -f "$2"); shift ;;
	--kernel) export AFXDP_VM_KERNEL=$(readlink -f "$2"); shift ;;
	-h | --help) sed -n '3,38p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
	shift
done

if [ -z "${AFXDP_VM_KERNEL:-}" ]; then
	"$KERNEL_DIR/build.sh" >/dev/null || die "the kernel build failed (run kernel/build.sh)"
fi
mkdir -p "$out"

if [ "$wallclock" = 0 ]; then
	export AFXDP_VM_ICOUNT=0
	echo "# qemu -icount shift=0: 1 ns of guest time = 1 guest instruction"
else
	unset AFXDP_VM_ICOUNT
	echo "# multi-threaded TCG on the host clock"
fi
export AFXDP_VM_RESULTS_DIR=$out
if [ "$testpmd" = 1 ]; then
	[ -x "$build/app/xdp-gen/afxdp-gen" ] ||
		die "no project build in $build (meson setup + ninja, or --build DIR)"
	top=$(dirname "$KERNEL_DIR")
	args=(--build "$build" --rounds "${rounds_set:-2}" "${same_veths[@]}")
	[ -n "$cycles" ] && args+=(--cycles "$cycles")
	[ -n "$rows" ] && args+=(--rows "$rows")
	# the tests' library and the benchmark's; deadlines stretched for TCG
	export PYTHONPATH=$top/python:$top/bench AFXDP_TIME_SCALE=8
	# ~2 min of the host's time per testpmd row under -icount
	export AFXDP_VM_TIMEOUT=${AFXDP_VM_TIMEOUT:-5400}
	"$KERNEL_DIR/vm-run.sh" /usr/bin/python3 "$top/bench/icount.py" "${args[@]}" |
		tee "$out/icount.txt"
	rc=${PIPESTATUS[0]}
	echo "# results in $out"
	exit "$rc"
fi
bin=$KERNEL_CACHE/tests-bin
kernel_build_tests "$bin"
"$KERNEL_DIR/vm-run.sh" "$KERNEL_DIR/tests/vm-bench.sh" "$bin/xsk_bench" \
	--rounds "$rounds" --seconds "$seconds" "${zero_copy[@]}" | tee "$out/bench.txt"
rc=${PIPESTATUS[0]}
echo "# results in $out"
exit "$rc"
