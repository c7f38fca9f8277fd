#!/usr/bin/env bash
# The benchmark in one command, from a fresh Debian 12 machine (as root): set
# up and build (scripts/setup.sh, DPDK's examples/l2fwd included), then
# bench/run.py: Debian's stock net_af_xdp beside ours and the kernel's XDP
# fast path, on a veth topology, interleaved; 64-byte frames, and frames of
# the whole MTU at 1500 and at 9000 (jumbo). Prints a Markdown table;
# report.md, runs.csv, summary.csv, plot.png and the runs' transcripts go
# into results/bench-<date>-<time>/ (or --out DIR). doc/guides/benchmark.rst
# says how to read them. The generator, afxdp-gen, sends with live frames
# where the kernel runs them, else with AF_XDP copy mode (else AF_PACKET):
# the report says which, with each run's offered load, and gives no verdict
# on a pair offered loads more than 10% apart or bound by the generator.
#
# Usage: scripts/bench.sh [--dpdk 23.11|24.11|25.11] [--quick | --smoke] [bench/run.py options]
#   --dpdk LINE  against that DPDK (scripts/dpdk-build.sh builds it and our
#                plugin for it): its testpmd, its stock net_af_xdp, its l2fwd
#   (none)       5 repeats x 3 s of every configuration, in each of its
#                placements (~12 min)
#   --quick      3 repeats x 1 s (~4 min)
#   --smoke      1 repeat x 0.3 s: does everything run?
#   bench/run.py --help lists the rest (--repeats, --seconds, --configs,
#   --placements, --out, --label, --no-micro, ...).
#   --tx-budget  copy mode's Tx budget per sendto() instead (bench/tx_budget.py):
#                ours with the raised budget, with tx_budget=kernel and the
#                stock driver, interleaved; testpmd io and the l2fwd example;
#                sendto() calls per forwarded frame (~6 min; --quick ~2 min)
#   --csum       Tx checksums instead (bench/csum.py): TCP through testpmd's
#                csum engine, the checksums completed by the kernel (Tx
#                metadata), by our driver (tx_csum=sw) and by testpmd (sw);
#                DUT cycles per byte (~2 min; --quick ~1 min, --smoke)
#   --wakeup     wake-up latency and idle CPU instead (bench/wakeup.py): an
#                application asleep on its Rx interrupt against one polling,
#                and the kernel's blocking recv(); 10,000 frames 1 ms apart
#                each (~1 min; --rt: the sleepers at SCHED_FIFO 1; --smoke:
#                100 frames)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$top/build}
[ "$(id -u)" -eq 0 ] || { echo "bench.sh: run as root: it creates network namespaces and XDP programs" >&2; exit 1; }

# The benchmarks of a Python harness of their own, run with the project
# built and its library on the path: bench/<name>.py --build <dir> [args].
python_bench() {
	local name=$1 py=/usr/bin/python3
	shift
	echo "== set-up and build (scripts/setup.sh)"
	"$top/scripts/setup.sh" | tail -n 2
	export PYTHONPATH=$top/python${PYTHONPATH:+:$PYTHONPATH}
	[ -x "$py" ] || py=python3
	exec "$py" "$top/bench/$name.py" --build "$build_dir" "$@"
}

# Copy mode's Tx budget (issue 24): bench/tx_budget.py runs bench/run.py
# twice per repeat, ours against the stock driver and ours against ours
# with tx_budget=kernel, and puts the three side by side.
if [ "${1:-}" = "--tx-budget" ]; then
	shift
	python_bench tx_budget "$@"
fi

# Tx checksums (issue 27): bench/csum.py drives testpmd's csum engine
# between two hosts, with the afxdp_test library.
if [ "${1:-}" = "--csum" ]; then
	shift
	python_bench csum "$@"
fi

# Rx interrupts (issue 23): bench/wakeup.py drives tests/intr/afxdp_intr_test
# and bench/wakeup.c's sender and kernel reference on one veth pair.
if [ "${1:-}" = "--wakeup" ]; then
	shift
	python_bench wakeup "$@"
fi

line=
if [ "${1:-}" = "--dpdk" ]; then
	line=${2:?--dpdk needs a DPDK line: 23.11, 24.11 or 25.11}
	shift 2
fi

echo "== set-up and build (scripts/setup.sh)"
"$top/scripts/setup.sh" | tail -n 2
if [ -n "$line" ]; then
	echo "== DPDK $line (scripts/dpdk-build.sh)"
	build_dir=$("$top/scripts/dpdk-build.sh" "$line" | tail -n 1)
	# That DPDK's apps and libraries, as the build's tests get them
	# (dpdk_apps_env in meson.build).
	eval "$(meson devenv -C "$build_dir" --dump)"
fi

# Debian's interpreter: the plot needs Debian's python3-matplotlib.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
echo "== benchmark (bench/run.py $*)"
# The tests' library (python/afxdp_test), which the benchmark builds on.
export PYTHONPATH=$top/python${PYTHONPATH:+:$PYTHONPATH}
exec "$py" "$top/bench/run.py" --build "$build_dir" "$@"
