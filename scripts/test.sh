#!/usr/bin/env bash
# The project's test command (see README.md): from a fresh Debian 12 machine,
# install what is needed, build the project and our patched kernel, and run
# every test suite: unit, integration (on this machine's kernel), kernel and
# vm (inside a VM booting the patched kernel).  Run as root: the tests create
# network namespaces, veth pairs and XDP programs.
#
# Then the same plugin for the other DPDK LTS lines:
# - 24.11 and 25.11 as Debian 13 and Debian testing ship them, each in a root
#   of that distribution (scripts/root.sh: its DPDK, libxdp, libbpf and Open
#   vSwitch): the plugin built there against the system's DPDK, the unit
#   suite and suite 'line' with that DPDK's testpmd and tools, port_cycles
#   (descriptors and programs flat with that libxdp), and the Debian package
#   (deb_build, deb_package: lintian, installed, used by testpmd,
#   dpdk-proc-info, dpdk-dumpcap and that distribution's Open vSwitch with no
#   -d, removed);
# - 23.11 and 24.11 from DPDK's release tarballs (scripts/dpdk-build.sh, in
#   ../shared/dpdk): the unit suite and suite 'line' (tests/integration/
#   meson.build says which and why) with that line's testpmd, secondary tools
#   and stock driver; 23.11 is in no Debian suite (Ubuntu 24.04's line), and
#   the tarball build of 24.11 (24.11.6, another point release than Debian
#   13's) is what the VM runs zero-copy forwarding with on a second line, and
#   a plugin of another line with its own libraries for test_dpdk_line in
#   every other line's testpmd, the roots' included. (25.11's tarball build
#   adds nothing the testing root does not: AFXDP_DPDK_LINES="23.11 24.11
#   25.11" runs it all the same.)
# A line or root that cannot be had is reported as skipped, with the reason.
#
# Usage: scripts/test.sh [--no-vm] [meson test options, e.g. --suite unit]
#   --no-vm   neither build the patched kernel nor run the vm suite (not
#             even on a kernel already cached); saves 5-9 minutes of build
#             on a machine without one, and the VM's 11 minutes of tests
# With meson test options, only Debian 12's DPDK is tested (unless
# AFXDP_DPDK_LINES or AFXDP_ROOTS say otherwise).
# Environment: BUILD_DIR (default ./build); AFXDP_DPDK_LINES, the tarball
# lines to test (default "23.11 24.11"; empty: none); AFXDP_ROOTS, the
# distributions' roots (default "trixie forky"; empty: none);
# scripts/dpdk-build.sh's (AFXDP_DPDK_TARBALLS, ...) and scripts/root.sh's
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$top/build}
vm=1
no_vm=()
if [ "${1:-}" = "--no-vm" ]; then
	vm=0
	no_vm=(--no-suite vm)
	shift
fi

if [ $# -gt 0 ]; then
	lines=${AFXDP_DPDK_LINES-}
	roots=${AFXDP_ROOTS-}
else
	lines=${AFXDP_DPDK_LINES-23.11 24.11}
	roots=${AFXDP_ROOTS-trixie forky}
fi

"$top/scripts/setup.sh"
# The distributions' roots are made (or found cached) in the background, one
# after the other, while the kernel and the DPDK lines build: debootstrap and
# apt are mostly network and disk. Each one's output and exit code are kept
# for the loop below.
root_logs=$(mktemp -d)
trap 'rm -rf "$root_logs"' EXIT
root_job=
if [ -n "$roots" ]; then
	for suite in $roots; do
		rc=0
		"$top/scripts/root.sh" "$suite" >"$root_logs/$suite.log" 2>&1 || rc=$?
		echo "$rc" >"$root_logs/$suite.rc"
	done &
	root_job=$!
fi
if [ $vm -eq 1 ]; then
	# Cached by a hash of its inputs: seconds when nothing changed.
	"$top/kernel/build.sh"
fi
# What runs on each other line, besides Debian 12's 22.11 (every suite):
# the tests of the VM's zero-copy boot named here (vm-zc, AFXDP_VM_ONLY).
declare -A LINE_VM_ZC=([24.11]="io_fwd")

# Every line built first: test_dpdk_line loads each line's plugin into the
# others' testpmd (AFXDP_LINE_PLUGINS).
plugin_of() {
	find "$1/drivers/net/af_xdp" -maxdepth 1 -type f -name 'librte_net_af_xdp_direct.so.*' -print -quit
}
declare -A LINE_BUILD=()
skipped=() failed=()
line_plugins=$(plugin_of "$build_dir")
for line in $lines; do
	echo "=== DPDK $line: building"
	out=$(mktemp)
	rc=0
	"$top/scripts/dpdk-build.sh" "$line" 2>&1 | tee "$out" || rc=${PIPESTATUS[0]}
	if [ "$rc" -eq 0 ]; then
		LINE_BUILD[$line]=$(tail -n1 "$out")
		line_plugins+=:$(plugin_of "${LINE_BUILD[$line]}")
	elif [ "$rc" -eq 3 ]; then
		skipped+=("DPDK $line: $(sed -n 's/^.*error: //p' "$out" | head -n1)")
	else
		failed+=("DPDK $line: scripts/dpdk-build.sh failed (exit $rc)")
	fi
	rm -f "$out"
done
# The plugins of the tarball lines, which find their own line's libraries
# (an rpath into the cache): the other lines' plugins in a root's testpmd.
tarball_plugins=${line_plugins#"$(plugin_of "$build_dir")"}
tarball_plugins=${tarball_plugins#:}
export AFXDP_LINE_PLUGINS=$line_plugins

# Debian 13 and testing: each root made (or found cached) and the plugin
# built in it, against the system's DPDK, into build-<suite>.
declare -A ROOT_BUILD=()
[ -z "$root_job" ] || wait "$root_job" || true
for suite in $roots; do
	echo "=== Debian $suite: the root and the plugin"
	started=$(date +%s)
	out=$root_logs/$suite.log
	cat "$out"
	rc=$(cat "$root_logs/$suite.rc" 2>/dev/null || echo 1)
	if [ "$rc" -eq 0 ]; then
		BUILD_DIR=$top/build-$suite "$top/scripts/root.sh" "$suite" -- "$top/scripts/setup.sh" 2>&1 |
			grep -v '^\[[0-9]*/[0-9]*\] ' | tee -a "$out" || rc=${PIPESTATUS[0]}
	fi
	if [ "$rc" -eq 0 ]; then
		ROOT_BUILD[$suite]=$top/build-$suite
	elif [ "$rc" -eq 3 ]; then
		skipped+=("Debian $suite: $(sed -n 's/^.*error: //p' "$out" | head -n1)")
	else
		failed+=("Debian $suite: scripts/root.sh or the build in it failed (exit $rc)")
	fi
	echo "=== Debian $suite: ready in $(($(date +%s) - started)) s"
done

# Each run's testlog.json, kept for the grand total at the end.
logs=$(mktemp -d)
trap 'rm -rf "$logs" "$root_logs"' EXIT
summarize() {
	python3 "$top/scripts/test-summary.py" "$1/meson-logs/testlog.json" || true
	cp "$1/meson-logs/testlog.json" "$logs/$(ls "$logs" | wc -l).json" 2>/dev/null || true
}

# Two tests at a time, one per core: most of a test's time is waiting (the
# kernel's grace periods, link changes, frames settling), and the tests that
# measure the machine, or change it, run alone (is_parallel: false in their
# meson.build: every VM, the CPU-share and speed tests, the package).
status=0
meson test -C "$build_dir" --print-errorlogs --num-processes 2 "${no_vm[@]}" "$@" || status=$?
summarize "$build_dir"

[ ${#failed[@]} -eq 0 ] || status=1
for line in $lines; do
	line_build=${LINE_BUILD[$line]:-}
	[ -n "$line_build" ] || continue
	echo
	echo "=== DPDK $line: --suite unit --suite line"
	meson test -C "$line_build" --print-errorlogs --num-processes 2 --suite unit --suite line ||
		status=1
	summarize "$line_build"
	[ $vm -eq 1 ] && [ -n "${LINE_VM_ZC[$line]:-}" ] || continue
	echo "=== DPDK $line: vm-zc, ${LINE_VM_ZC[$line]}"
	AFXDP_VM_ONLY=${LINE_VM_ZC[$line]} \
		meson test -C "$line_build" --print-errorlogs --num-processes 1 vm-zc ||
		status=1
	summarize "$line_build"
done
for suite in $roots; do
	root_build=${ROOT_BUILD[$suite]:-}
	[ -n "$root_build" ] || continue
	echo
	echo "=== Debian $suite: --suite unit --suite line, then the package"
	# The tarball lines' DPDK builds bound in, for their plugins in this
	# distribution's testpmd (test_dpdk_line).
	binds=()
	[ ! -d "${AFXDP_CACHE:-/var/cache/af-xdp-direct}/dpdk" ] ||
		binds=(--bind "${AFXDP_CACHE:-/var/cache/af-xdp-direct}/dpdk")
	AFXDP_LINE_PLUGINS=$tarball_plugins "$top/scripts/root.sh" "$suite" "${binds[@]}" -- \
		meson test -C "$root_build" --print-errorlogs --num-processes 2 --suite unit --suite line ||
		status=1
	summarize "$root_build"
	# port_cycles: the descriptors and programs of 125 port cycles stay
	# flat with that libxdp, whose leaks the driver no longer closes itself
	# (libxdp.leak_guard = off from 1.4.1).
	"$top/scripts/root.sh" "$suite" -- \
		meson test -C "$root_build" --print-errorlogs --num-processes 2 \
		port_cycles deb_build deb_package ||
		status=1
	summarize "$root_build"
done
for s in "${skipped[@]}"; do
	echo "  SKIP     $s"
done
for s in "${failed[@]}"; do
	echo "  FAIL     $s"
done
echo
echo "All DPDK lines:"
PYTHONPATH="$top/python" python3 "$top/scripts/test-summary.py" --total \
	--failed ${#failed[@]} --skipped ${#skipped[@]} "$logs"/*.json || true
exit $status
