#!/usr/bin/env bash
# The main job (see README.md): from a fresh Debian 12 machine, build, set up
# a veth pair between two network namespaces, run Debian's dpdk-testpmd with
# our driver on one end (rxonly), send frames into the other end with
# afxdp-gen, and print what testpmd received and at what rate.  Run as root.
# (testpmd runs under stdbuf: its output goes to a file, read as it comes.)
#
# Usage: scripts/demo.sh [--seconds N] [--size BYTES] [--stock]
#   --stock   run the same with Debian's stock net_af_xdp, for comparison
# Everything it creates is removed when it ends, however it ends.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$top/build}
seconds=5
size=64
stock=0
while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) seconds=$2; shift 2 ;;
	--size) size=$2; shift 2 ;;
	--stock) stock=1; shift ;;
	*) echo "usage: $0 [--seconds N] [--size BYTES] [--stock]" >&2; exit 2 ;;
	esac
done

say() { printf '\n== %s\n' "$*"; }
die() { printf 'demo: %s\n' "$*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "run as root: it creates network namespaces and XDP programs"

say "set-up and build (scripts/setup.sh)"
"$top/scripts/setup.sh" | tail -n 2

gen="$build_dir/app/xdp-gen/afxdp-gen"
[ -x "$gen" ] || die "no traffic generator at $gen"
plugin_args=()
driver="af_xdp_direct (this project)"
if [ $stock -eq 0 ]; then
	plugin=$("$top/scripts/plugin-path.sh" "$build_dir")
	plugin_args=(-d "$plugin")
else
	driver="Debian's stock net_af_xdp"
fi

id=$$
gen_ns=afxdp-demo-gen-$id
dut_ns=afxdp-demo-dut-$id
work=$(mktemp -d /run/afxdp-demo.XXXXXX)
testpmd_pid=""

cleanup() {
	set +e
	exec 3>&- 2>/dev/null
	if [ -n "$testpmd_pid" ] && kill -0 "$testpmd_pid" 2>/dev/null; then
		kill -INT "$testpmd_pid"; sleep 1; kill -KILL "$testpmd_pid" 2>/dev/null
	fi
	ip netns del "$gen_ns" 2>/dev/null
	ip netns del "$dut_ns" 2>/dev/null
	rm -rf "$work" "/var/run/dpdk/demo-$id"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "topology: [$gen_ns] gen0 <-veth-> dut0 [$dut_ns]"
ip netns add "$gen_ns"
ip netns add "$dut_ns"
ip link add gen0 netns "$gen_ns" type veth peer name dut0 netns "$dut_ns"
for pair in "$gen_ns gen0" "$dut_ns dut0"; do
	set -- $pair
	ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1"
	ip netns exec "$1" ip link set "$2" up
done

say "dpdk-testpmd, rxonly on net_af_xdp0,iface=dut0 with $driver (core 1)"
mkfifo "$work/cmd"
ip netns exec "$dut_ns" stdbuf -oL -eL dpdk-testpmd -l 0,1 --no-pci --no-huge -m 1024 \
	--file-prefix "demo-$id" "${plugin_args[@]}" \
	--log-level=pmd.net.af_xdp:info --vdev net_af_xdp0,iface=dut0 -- \
	-i --forward-mode=rxonly --nb-cores=1 --rxd=2048 --txd=2048 --burst=64 \
	--total-num-mbufs=16384 --record-core-cycles \
	< "$work/cmd" > "$work/testpmd.log" 2>&1 &
testpmd_pid=$!
exec 3> "$work/cmd"

wait_for() {	# pattern, seconds
	local deadline=$((SECONDS + $2))
	until grep -q "$1" "$work/testpmd.log"; do
		kill -0 "$testpmd_pid" 2>/dev/null || { cat "$work/testpmd.log"; die "testpmd exited"; }
		[ $SECONDS -lt $deadline ] || { cat "$work/testpmd.log"; die "testpmd: no '$1' in $2 s"; }
		sleep 0.2
	done
}
wait_for "testpmd> " 60
grep -E "probed by|socket on|XDP program|build of the batched receive|busy polling" "$work/testpmd.log" | sed 's/^/  | /' || true
echo "start" >&3
wait_for "Start automatic\|Logical Core" 10

say "afxdp-gen: $size-byte frames into gen0 for $seconds s (core 0)"
ip netns exec "$gen_ns" "$gen" --dev gen0 --size "$size" --duration "$seconds" --cpus 0 \
	--json > "$work/gen.out"
grep -v '^{' "$work/gen.out" | tail -n 3 | sed 's/^/  | /'
gen_json=$(grep '^{' "$work/gen.out" | tail -n 1)

echo "stop" >&3
wait_for "CPU cycles/packet\|Done." 20
echo "show port stats 0" >&3
echo "show port xstats 0" >&3
sleep 1
echo "quit" >&3
wait "$testpmd_pid" || true
testpmd_pid=""

PYTHONPATH=$top/python python3 - "$work/testpmd.log" "$gen_json" "$seconds" "$driver" <<'EOF'
import json, sys
from afxdp_test import dpdk_output
log = open(sys.argv[1]).read()
gen = json.loads(sys.argv[2])
seconds = float(sys.argv[3])
port = dpdk_output.port_stats(log).get(0, {})
rx = port.get("RX-packets", 0)
missed = port.get("RX-missed", 0)
cycles = dpdk_output.fwd_stats(log)["cycles"]
cpp = "%.2f" % cycles["cycles_per_packet"] if cycles else "?"
sent = int(gen.get("sent", 0))
print("\n== result (%s)" % sys.argv[4])
print("  frames sent by afxdp-gen      %12d  (%.2f Mpps over %.1f s, method %s)" % (sent, sent / gen.get("seconds", seconds) / 1e6, gen.get("seconds", seconds), gen.get("method", "?")))
print("  frames received by testpmd    %12d  (%.1f%% of sent)" % (rx, 100.0 * rx / sent if sent else 0))
print("  missed (kernel: socket full)  %12d" % missed)
print("  receive rate                  %12.2f Mpps" % (rx / gen.get("seconds", seconds) / 1e6))
print("  testpmd core, cycles/packet   %12s  (userspace only; the kernel's receive work runs on the sender's core on veth)" % cpp)
xstats = dpdk_output.xstats(log).get(0, {})
if "rx_q0_full_batches" in xstats:
    print("  driver: batches of 64 %s, shorter %s; kernel: dropped %s, Rx ring full %s, fill ring empty %s"
          % (xstats["rx_q0_full_batches"], xstats["rx_q0_partial_batches"], xstats["rx_q0_dropped"],
             xstats["rx_q0_ring_full"], xstats["rx_q0_fill_ring_empty_descs"]))
EOF
