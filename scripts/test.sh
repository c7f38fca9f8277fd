#!/usr/bin/env bash
# The project's test command (see README.md): from a fresh Debian 12 machine,
# install what is needed, build the project and our patched kernel, and run
# every test suite: unit, integration (on this machine's kernel), kernel and
# vm (inside a VM booting the patched kernel).  Run as root: the tests create
# network namespaces, veth pairs and XDP programs.
#
# Usage: scripts/test.sh [--no-vm] [meson test options, e.g. --suite unit]
#   --no-vm   do not build the patched kernel (the vm suite is then skipped,
#             with the reason); saves 5-9 minutes on a machine without a
#             cached kernel
# Environment: BUILD_DIR (default ./build)
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
exit $status
