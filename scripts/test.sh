#!/usr/bin/env bash
# The project's test command (see README.md): from a fresh Debian 12 machine,
# install what is needed, build, and run every test suite.  Run as root: the
# integration tests create network namespaces, veth pairs and XDP programs.
#
# Usage: scripts/test.sh [meson test options, e.g. --suite unit]
# Environment: BUILD_DIR (default ./build)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$top/build}

"$top/scripts/setup.sh"

# One test at a time: the integration tests share the machine's two cores
# and time out under contention.
status=0
meson test -C "$build_dir" --print-errorlogs --num-processes 1 "$@" || status=$?
python3 "$top/scripts/test-summary.py" "$build_dir/meson-logs/testlog.json" || true
exit $status
