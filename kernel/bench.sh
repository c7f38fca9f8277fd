#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench.sh [--rounds R] [--seconds S] [--wallclock] [--zero-copy]
#          [--kernel BZIMAGE] [--baseline BZIMAGE] [--out DIR]
# bench.sh --testpmd [--rounds R] [--cycles N] [--rows LIST] [--same-veths] [--size B]
#          [--baseline-too] [--build DIR] [--kernel BZIMAGE] [--baseline BZIMAGE]
#          [--out DIR]
#
# The measurement (not a test): in the VM, on a veth pair, with a kernel-side
# generator (BPF_PROG_RUN live frames), the receive cost of AF_XDP with
# bpf_redirect_map() and bpf_redirect_xsk(), and of frames alternating
# between two sockets, next to XDP_DROP (kernel/tests/xsk_bench.c), on two
# kernels, one boot each: the unpatched build of the same source and
# configuration (kernel/build.sh --unpatched: one frame at a time, as stock
# 6.12 receives; no bpf_redirect_xsk), then the patched image (layers a-c:
# consecutive frames for one socket in batches). A last table compares them
# and checks the targets of the batched map path. --zero-copy binds the
# patched kernel's sockets with XDP_ZEROCOPY (veth, layer c); the unpatched
# veth has no zero-copy, its run stays in copy mode.
#
# --testpmd measures DPDK instead (bench/icount.py, in the VM): guest
# instructions per frame, generator and kernel included, of testpmd rxonly
# and io over veth with (a) Debian's stock net_af_xdp in copy mode on the
# unpatched kernel (per-frame receive), (b) ours in copy mode, batched, and
# (c) ours in zero-copy with redirect=direct, both on the patched kernel,
# beside the kernel's XDP_DROP (the receive baseline, on both) and DEVMAP
# redirect (the floor); R rounds (default 2) of N cycles (default 4) of
# 1024 frames per row, after one cycle of warm-up: the generator's call
# while testpmd is stopped, then testpmd takes the frames
# (bench/benchlib/icount.py); LIST picks rows, in its order ('io (c),
# xdp-redirect'; the (a) rows run on the unpatched kernel, with its
# xdp-drop); --same-veths runs all rows on one topology instead of veths
# per row (as testpmd restarted on the same veths); --size B sends frames of
# B bytes (without FCS, 60..1514; default 64).
# Rows io-slow (b) and io-slow-wmem (b) (not in the default rows) are io
# with a slow peer: the far end's NAPI drains its veth ring only at its
# timer, once per tick (napi_defer_hard_irqs, gro_flush_timeout), so the
# DUT's transmit meets a full peer: the socket's send buffer holds the
# frames back (io-slow), or, with 4 MB send buffers (io-slow-wmem), the
# peer's ring fills and veth drops; their table gives the frames
# delivered, dropped by veth, dropped by testpmd and left in the Tx ring,
# and the DUT's instructions per frame delivered and offered.
# --baseline-too runs the rows other than (a) on
# the baseline kernel too (the unpatched build, or --baseline BZIMAGE: a
# kernel without the batched copy-mode transmit), in that kernel's boot,
# and the slow-peer table shows both kernels' rows:
#   bench.sh --testpmd --rows 'io-slow (b),io-slow-wmem (b)' --baseline-too
# It needs the project built in DIR (default ./build: the plugin,
# afxdp-gen, bench-xdp). --kernel boots BZIMAGE instead of the cached
# image of kernel/patches (AFXDP_VM_KERNEL) for the patched runs;
# --baseline BZIMAGE instead of the unpatched build (built on demand, ~6-30
# min the first time).
#
# By default qemu runs with -icount shift=0: guest time advances by 1 ns per
# guest instruction, so "ns" below are guest instructions, deterministic and
# immune to the host's load. --wallclock runs multi-threaded TCG on the
# host's clock instead (noisy on a shared machine). Either way TCG is not a
# CPU: compare ratios, not absolute values.
#
# Builds the kernels if needed (kernel/build.sh, kernel/build.sh --unpatched)
# and the benchmark; the output and a CSV of every window are kept in DIR
# (default /var/cache/af-xdp-direct/kernel/bench/<date>), one directory per
# kernel (unpatched/, patched/).

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
size=
baseline_too=0
build=$(dirname "$KERNEL_DIR")/build
kernel=${AFXDP_VM_KERNEL:-}
baseline=
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
	--size) size=$2; shift ;;
	--baseline-too) baseline_too=1 ;;
	--build) build=$(readlink -f "$2"); shift ;;
	--kernel) kernel=$(readlink -f "$2"); shift ;;
	--baseline) baseline=$(readlink -f "$2"); shift ;;
	-h | --help) sed -n '3,64p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
	shift
done

# The image build.sh prints on its last line
built_image() (
	set -o pipefail
	image=$("$KERNEL_DIR/build.sh" "$@" | tee /dev/stderr | tail -n 1) || exit 1
	[ -f "$image" ] && echo "$image"
)
if [ -z "$kernel" ]; then
	kernel=$(built_image) || die "the kernel build failed (run kernel/build.sh)"
fi
if [ -z "$baseline" ]; then
	echo "# the unpatched kernel (kernel/build.sh --unpatched; built if not cached)"
	baseline=$(built_image --unpatched) ||
		die "the unpatched kernel's build failed (run kernel/build.sh --unpatched)"
fi
[ -f "$kernel" ] || die "no kernel image $kernel"
[ -f "$baseline" ] || die "no kernel image $baseline"
mkdir -p "$out"

if [ "$wallclock" = 0 ]; then
	export AFXDP_VM_ICOUNT=0
	echo "# qemu -icount shift=0: 1 ns of guest time = 1 guest instruction"
else
	unset AFXDP_VM_ICOUNT
	echo "# multi-threaded TCG on the host clock"
fi
if [ "$testpmd" = 1 ]; then
	[ -x "$build/app/xdp-gen/afxdp-gen" ] ||
		die "no project build in $build (meson setup + ninja, or --build DIR)"
	top=$(dirname "$KERNEL_DIR")
	args=(--build "$build" --rounds "${rounds_set:-2}" "${same_veths[@]}")
	[ -n "$cycles" ] && args+=(--cycles "$cycles")
	[ -n "$size" ] && args+=(--size "$size")
	# The (a) rows on the unpatched kernel, with its xdp-drop for their
	# receive part; the others on the patched one
	rows_a=()
	rows_p=()
	IFS=, read -ra wanted <<<"${rows:-xdp-drop,rxonly (a),rxonly (b),rxonly (c),io (a),io (b),io (c),xdp-redirect}"
	for r in "${wanted[@]}"; do
		r=$(echo "$r" | sed 's/^ *//; s/ *$//')
		case "$r" in
		*"(a)") rows_a+=("$r") ;;
		*) rows_p+=("$r") ;;
		esac
	done
	[ "$baseline_too" = 0 ] || rows_a+=("${rows_p[@]}")
	# the tests' library and the benchmark's; deadlines stretched for TCG
	export PYTHONPATH=$top/python:$top/bench AFXDP_TIME_SCALE=8
	# ~2 min of the host's time per testpmd row under -icount
	export AFXDP_VM_TIMEOUT=${AFXDP_VM_TIMEOUT:-5400}
	rc=0
	reference=()
	if [ ${#rows_a[@]} -gt 0 ]; then
		list=$(IFS=,; echo "xdp-drop,${rows_a[*]}")
		echo "# baseline kernel ($baseline): $list"
		AFXDP_VM_KERNEL=$baseline AFXDP_VM_RESULTS_DIR=$out/unpatched \
			"$KERNEL_DIR/vm-run.sh" /usr/bin/python3 "$top/bench/icount.py" \
			"${args[@]}" --rows "$list" | tee "$out/icount-unpatched.txt"
		rc=${PIPESTATUS[0]}
		[ -f "$out/unpatched/icount.json" ] &&
			reference=(--reference "$out/unpatched/icount.json")
	fi
	if [ ${#rows_p[@]} -gt 0 ]; then
		list=$(IFS=,; echo "${rows_p[*]}")
		echo "# patched kernel ($kernel): $list"
		AFXDP_VM_KERNEL=$kernel AFXDP_VM_RESULTS_DIR=$out/patched \
			"$KERNEL_DIR/vm-run.sh" /usr/bin/python3 "$top/bench/icount.py" \
			"${args[@]}" --rows "$list" "${reference[@]}" | tee "$out/icount.txt"
		[ "${PIPESTATUS[0]}" = 0 ] || rc=1
	fi
	echo "# results in $out"
	exit "$rc"
fi
bin=$KERNEL_CACHE/tests-bin
kernel_build_tests "$bin"
echo "# unpatched kernel: $baseline"
AFXDP_VM_KERNEL=$baseline AFXDP_VM_RESULTS_DIR=$out/unpatched \
	"$KERNEL_DIR/vm-run.sh" "$KERNEL_DIR/tests/vm-bench.sh" "$bin/xsk_bench" \
	--rounds "$rounds" --seconds "$seconds" | tee "$out/bench-unpatched.txt"
rc=${PIPESTATUS[0]}
echo "# patched kernel: $kernel"
AFXDP_VM_KERNEL=$kernel AFXDP_VM_RESULTS_DIR=$out/patched \
	"$KERNEL_DIR/vm-run.sh" "$KERNEL_DIR/tests/vm-bench.sh" "$bin/xsk_bench" \
	--rounds "$rounds" --seconds "$seconds" "${zero_copy[@]}" | tee "$out/bench.txt"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
if [ -f "$out/unpatched/medians.csv" ] && [ -f "$out/patched/medians.csv" ]; then
	mode=copy
	[ ${#zero_copy[@]} -eq 0 ] || mode=zero-copy
	echo
	"$KERNEL_DIR/bench-compare.awk" -v mode="$mode" \
		"$out/unpatched/medians.csv" "$out/patched/medians.csv" | tee "$out/compare.txt"
else
	echo "# no comparison: a run gave no medians" >&2
	rc=1
fi
echo "# results in $out"
exit "$rc"
