#!/usr/bin/env bash
# The project's test command (see README.md): from a fresh Debian 12 machine,
# install what is needed, build the project and our patched kernel, and run
# every test suite: unit, integration (on this machine's kernel), kernel and
# vm (inside a VM booting the patched kernel).  Run as root: the tests create
# network namespaces, veth pairs and XDP programs.
#
# Then the same plugin for the other DPDK LTS lines (scripts/dpdk-build.sh):
# the integration suite against 24.11, a smoke subset against 25.11, each
# with that version's testpmd and stock driver; a line whose DPDK cannot be
# obtained is reported as skipped, with the reason.
#
# Usage: scripts/test.sh [--no-vm] [meson test options, e.g. --suite unit]
#   --no-vm   do not build the patched kernel (the vm suite is then skipped,
#             with the reason); saves 5-9 minutes on a machine without a
#             cached kernel
# With meson test options, only Debian 12's DPDK is tested (unless
# AFXDP_DPDK_LINES says otherwise).
# Environment: BUILD_DIR (default ./build); AFXDP_DPDK_LINES, the other lines
# to test (default "24.11 25.11"; empty: none)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$top/build}
vm=1
if [ "${1:-}" = "--no-vm" ]; then
	vm=0
	shift
fi

"$top/scripts/setup.sh"
if [ $vm -eq 1 ]; then
	# Cached by a hash of its inputs: seconds when nothing changed.
	"$top/kernel/build.sh"
fi

# One test at a time: the tests share the machine's two cores and time out
# under contention.
status=0
meson test -C "$build_dir" --print-errorlogs --num-processes 1 "$@" || status=$?
python3 "$top/scripts/test-summary.py" "$build_dir/meson-logs/testlog.json" || true

# The other DPDK lines: what runs against each.
declare -A LINE_TESTS=(
	[24.11]="--suite unit --suite integration"
	[25.11]="rxonly io_fwd bad_devargs"
)
if [ $# -gt 0 ]; then
	lines=${AFXDP_DPDK_LINES-}
else
	lines=${AFXDP_DPDK_LINES-24.11 25.11}
fi
skipped=()
for line in $lines; do
	echo
	echo "=== DPDK $line: ${LINE_TESTS[$line]:-?}"
	out=$(mktemp)
	rc=0
	"$top/scripts/dpdk-build.sh" "$line" 2>&1 | tee "$out" || rc=${PIPESTATUS[0]}
	if [ "$rc" -eq 3 ]; then
		skipped+=("DPDK $line: $(grep 'error:' "$out" | head -n1 | sed 's/^.*error: //')")
		rm -f "$out"
		continue
	elif [ "$rc" -ne 0 ]; then
		echo "DPDK $line: scripts/dpdk-build.sh failed (exit $rc)"
		status=1
		rm -f "$out"
		continue
	fi
	line_build=$(tail -n1 "$out")
	rm -f "$out"
	# shellcheck disable=SC2086 # the test list is words
	meson test -C "$line_build" --print-errorlogs --num-processes 1 ${LINE_TESTS[$line]} ||
		status=1
	python3 "$top/scripts/test-summary.py" "$line_build/meson-logs/testlog.json" || true
done
for s in "${skipped[@]}"; do
	echo "  SKIP     $s"
done
exit $status
