#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# debug-run.sh [--parts rx,zc,xsk] [--rx-modes drv,skb,zc] [--xsk-modes skb,zc]
#              [--zc-tests NAME,...] [--xsk-timeout S] [--build DIR] [--results DIR]
#              [--layers L | --unpatched] [--kernel BZIMAGE] [--kmemleak]
#
# The series' tests on the debug image (build.sh --debug: lockdep,
# PROVE_RCU, DEBUG_ATOMIC_SLEEP, KASAN, DEBUG_NET), each part in boots of
# its own, and every boot's kernel log judged by kernel-problems.ere
# (what vm-init.sh fails a job on): a lockdep, RCU, KASAN or networking
# report anywhere in a boot is a failure of this run, whatever the tests
# said. Parts, in this order:
#
#   rx   kernel/tests/vm-rx.sh in drv, skb and zc mode (the meson tests
#        vm-rx-drv, vm-rx-skb, vm-rx-zc), one boot each
#   zc   the integration tests in zero-copy mode (the meson test vm-zc:
#        tests/integration/vm_suite.py in one boot), only --zc-tests
#        (AFXDP_VM_ONLY), through `meson test` in the build directory DIR
#        (default: build, next to kernel/)
#   xsk  the kernel's own AF_XDP suite, xskxceiver (xsk-suite.sh --kernel
#        <debug image> --modes <xsk-modes> --thread-timeout <S>), one boot,
#        with a deadline of S seconds (--xsk-timeout, default 30; "stock"
#        for the suite's own 3 s, as CI runs it) for a test's stream
#
# Builds the debug image first if it is not cached (build.sh --debug, with
# --layers or --unpatched as given: 15-45 minutes on this machine), unless
# --kernel names the image to boot (one built by other means; xskxceiver is
# still that of the layers named). The
# guest gets 3 GB (KASAN's shadow is an eighth of it) and long deadlines:
# under TCG the debug kernel's network paths run several times slower.
# --kmemleak boots with kmemleak on and scans after each job (vm-run.sh
# AFXDP_VM_KMEMLEAK).
#
# Not in CI: the three parts take about an hour under TCG on this machine
# (kernel/README.md, "The debug image", has the last run). Exit status: 0
# when every part passed and no boot logged a problem, 1 otherwise.

set -u -o pipefail
. "$(dirname "$(readlink -f "$0")")/lib.sh"

parts=rx,zc,xsk
rx_modes=drv,skb,zc
xsk_modes=skb,zc
zc_tests=io_fwd,txonly,jumbo,multiqueue,restart,socket_held,tx_csum,rx_offloads
# xskxceiver's deadline for a test's whole stream (THREAD_TMOUT) is 3 s:
# copy mode's generic XDP on this image, under KASAN and lockdep and TCG,
# takes longer on a loaded machine, and the suite's skb row then fails on
# "Receive loop timed out" without anything being wrong (kernel/README.md,
# "The debug image": 24 such failures with 3 s, none with 30 s). A failing
# test, the known failures included, waits the whole deadline.
xsk_timeout=30
build_dir=$(dirname "$KERNEL_DIR")/build
results=
layer_args=()
kmemleak=0
image=
while [ $# -gt 0 ]; do
	case "$1" in
	--parts) parts=$2; shift ;;
	--rx-modes) rx_modes=$2; shift ;;
	--xsk-modes) xsk_modes=$2; shift ;;
	--zc-tests) zc_tests=$2; shift ;;
	--xsk-timeout) xsk_timeout=$2; shift ;;
	--build) build_dir=$(readlink -f "$2"); shift ;;
	--results) results=$2; shift ;;
	--layers) layer_args=(--layers "$2"); shift ;;
	--unpatched) layer_args=(--unpatched) ;;
	--kmemleak) kmemleak=1 ;;
	--kernel) image=$(readlink -f "$2"); shift ;;
	-h | --help) sed -n '3,/^set -u/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
	shift
done

# --- the image ----------------------------------------------------------------
if [ -z "$image" ]; then
	image=$("$KERNEL_DIR/build.sh" --debug "${layer_args[@]}" | tee /dev/stderr | tail -n 1)
	[ -f "$image" ] || die "no debug image (kernel/build.sh --debug ${layer_args[*]} failed)"
fi
[ -f "$image" ] || die "no image $image"
echo "debug-run.sh: $image"
[ ! -f "$(dirname "$image")/info" ] ||
	sed 's/^/debug-run.sh:   /' "$(dirname "$image")/info" | grep -E 'layers|flavour|built'

[ -n "$results" ] || results=$KERNEL_CACHE/debug-run/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$results"
results=$(readlink -f "$results")
echo "debug-run.sh: results in $results"

export AFXDP_VM_KERNEL=$image
export AFXDP_VM_MEM=${AFXDP_VM_MEM:-3G}
[ "$kmemleak" = 0 ] || export AFXDP_VM_KMEMLEAK=1
problems=$(sed -e '/^#/d' -e '/^$/d' "$KERNEL_DIR/kernel-problems.ere" | paste -sd'|')

summary=()
failed=0
splats=0

# judge <name> <status> <seconds> <results dir>: the part's status and its
# boot's kernel log (dmesg.txt, which vm-init.sh leaves in the results).
judge() {
	local name=$1 rc=$2 took=$3 dir=$4 verdict n
	if [ ! -s "$dir/dmesg.txt" ]; then
		verdict="no kernel log (the boot did not end normally)"
		failed=1
	elif n=$(grep -cE "$problems" "$dir/dmesg.txt") && [ "$n" -gt 0 ]; then
		verdict="$n lines of kernel problems (below)"
		splats=$((splats + 1))
		failed=1
		echo "debug-run.sh: $name: the kernel reported problems ($dir/dmesg.txt):"
		grep -E -B2 -A25 "$problems" "$dir/dmesg.txt" | head -n 150 | sed 's/^/  | /'
	else
		verdict="no kernel problem"
	fi
	case "$rc" in
	0) ;;
	77) verdict="skipped; $verdict" ;;
	*) verdict="status $rc; $verdict"; failed=1 ;;
	esac
	summary+=("$(printf '%-10s %5d s  %s' "$name" "$took" "$verdict")")
}

# --- rx: vm-rx.sh, one boot per mode -------------------------------------------
if [[ ",$parts," == *,rx,* ]]; then
	bin=$KERNEL_CACHE/tests-bin-debug
	kernel_build_tests "$bin"
	for mode in ${rx_modes//,/ }; do
		echo "##### vm-rx-$mode"
		dir=$results/rx-$mode
		started=$(date +%s)
		AFXDP_VM_TIMEOUT=${AFXDP_VM_TIMEOUT:-3600} AFXDP_VM_RESULTS_DIR=$dir \
			"$KERNEL_DIR/vm-run.sh" "$KERNEL_DIR/tests/vm-rx.sh" --require \
			"$bin/xsk_rx" "$bin/pkt_inject" "$mode" 1000 2>&1 | tee "$results/rx-$mode.log"
		rc=${PIPESTATUS[0]}
		judge "vm-rx-$mode" "$rc" $(($(date +%s) - started)) "$dir"
	done
fi

# --- zc: the integration tests in zero-copy mode, through meson ----------------
if [[ ",$parts," == *,zc,* ]]; then
	echo "##### vm-zc ($zc_tests)"
	[ -f "$build_dir/build.ninja" ] ||
		die "no meson build in $build_dir (meson setup; or --build DIR)"
	dir=$results/vm-zc
	started=$(date +%s)
	# meson sets the boot's own deadline (AFXDP_VM_TIMEOUT 3600) and the
	# tests' time scale; the subset keeps within them
	AFXDP_VM_ONLY=$zc_tests AFXDP_VM_RESULTS_DIR=$dir \
		meson test -C "$build_dir" --suite vm vm-zc --num-processes 1 --print-errorlogs \
		2>&1 | tee "$results/vm-zc.log"
	rc=${PIPESTATUS[0]}
	cp "$build_dir/meson-logs/testlog.txt" "$results/vm-zc.testlog.txt" 2>/dev/null
	grep -E '^(ok|not ok) ' "$results/vm-zc.testlog.txt" 2>/dev/null | sed 's/^/  /'
	judge vm-zc "$rc" $(($(date +%s) - started)) "$dir"
fi

# --- xsk: xskxceiver ------------------------------------------------------------
if [[ ",$parts," == *,xsk,* ]]; then
	echo "##### xskxceiver ($xsk_modes, deadline $xsk_timeout)"
	dir=$results/xsk
	timeout_args=()
	[ "$xsk_timeout" = stock ] || timeout_args=(--thread-timeout "$xsk_timeout")
	started=$(date +%s)
	# 31 tests a mode, plain and busy polling, each on fresh veths
	AFXDP_VM_TIMEOUT=${AFXDP_VM_TIMEOUT:-10800} \
		"$KERNEL_DIR/xsk-suite.sh" "${layer_args[@]}" --kernel "$image" --modes "$xsk_modes" \
		"${timeout_args[@]}" --results "$dir" 2>&1 | tee "$results/xsk.log"
	rc=${PIPESTATUS[0]}
	judge xskxceiver "$rc" $(($(date +%s) - started)) "$dir"
fi

echo "#####"
printf '%s\n' "${summary[@]}" | tee "$results/summary.txt"
echo "debug-run.sh: $splats part(s) with kernel problems; results in $results"
exit "$failed"
