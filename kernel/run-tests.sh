#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-tests.sh [--build-kernel] [--out DIR] [--count N]
#
# The patched-kernel tests on their own, without meson: builds the test
# programs with cc into DIR (default /var/cache/af-xdp-direct/kernel/tests-bin)
# and runs, each in a fresh VM (kernel/vm-run.sh):
#
#   kernel    BPF_PROG_RUN and real sockets: what bpf_redirect_xsk() answers
#             as sockets come and go, verifier checks, unsupported action
#   bpf-selftest  the series' own selftests (tools/testing/selftests/bpf,
#             test_progs -t xdp_xsk_redirect, built by build.sh)
#   rx-drv    exact frame counts, in order, through veth in native XDP mode:
#             map and direct paths (batched and not; skbs, xdp_frames, bursts
#             of 64 per poll, threaded NAPI), fallback with two sockets,
#             direct socket restored, nothing for a socket not in the map,
#             two sockets alternating, the socket changing within a poll
#   rx-skb    the same scenarios in generic (skb) XDP mode
#   rx-zc     the native scenarios with the sockets in zero-copy mode
#
# --build-kernel first runs kernel/build.sh (seconds when the image is
# cached, about 5 minutes otherwise); without it, a missing image makes every
# test a skip. Exit: 0 all passed, 1 one failed, 77 all skipped.

set -u
. "$(dirname "$(readlink -f "$0")")/lib.sh"

build_kernel=0
out=$KERNEL_CACHE/tests-bin
count=1000
while [ $# -gt 0 ]; do
	case "$1" in
	--build-kernel) build_kernel=1 ;;
	--out) out=$2; shift ;;
	--count) count=$2; shift ;;
	-h | --help) sed -n '3,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
	shift
done

if [ "$build_kernel" = 1 ]; then
	"$KERNEL_DIR/build.sh" || die "the kernel build failed"
fi
kernel_build_tests "$out"

vm=$KERNEL_DIR/vm-run.sh
passed=0
failed=0
skipped=0
results=()

run() {
	local name=$1 rc started
	shift
	echo "##### $name"
	started=$(date +%s)
	"$vm" "$@"
	rc=$?
	case "$rc" in
	0) passed=$((passed + 1)); results+=("PASS $name ($(( $(date +%s) - started )) s)") ;;
	77) skipped=$((skipped + 1)); results+=("SKIP $name") ;;
	*) failed=$((failed + 1)); results+=("FAIL $name (status $rc)") ;;
	esac
}

run kernel "$out/xsk_direct_check" --require
run bpf-selftest "$KERNEL_DIR/tests/vm-selftest.sh"
run rx-drv "$KERNEL_DIR/tests/vm-rx.sh" --require "$out/xsk_rx" "$out/pkt_inject" drv "$count"
run rx-skb "$KERNEL_DIR/tests/vm-rx.sh" --require "$out/xsk_rx" "$out/pkt_inject" skb "$count"
run rx-zc "$KERNEL_DIR/tests/vm-rx.sh" --require "$out/xsk_rx" "$out/pkt_inject" zc "$count"

echo "#####"
printf '%s\n' "${results[@]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] || exit 1
[ "$passed" -gt 0 ] || exit 77
exit 0
