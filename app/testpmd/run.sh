#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Ready testpmd configurations for our driver: Debian's dpdk-testpmd with
# the plugin (-d, a loadable copy from scripts/plugin-path.sh), the EAL
# arguments, the device arguments and a command file (<config>.cmd, run by
# --cmdline-file) filled in. doc/guides/testpmd_configs.rst explains each one.
#
# Usage: app/testpmd/run.sh <config> [options]      (as root)
#   config        rxonly | io | macswap | txonly | multiqueue
#   --stock       Debian's stock net_af_xdp instead of ours (no -d)
#   --iface IF    use this interface (io: IF,IF2) of the current network
#                 namespace instead of creating a veth topology; then no
#                 traffic is generated
#   --seconds N   run N seconds with traffic from afxdp-gen (txonly: testpmd's
#                 own), print the counters and quit; without it testpmd is
#                 interactive and the generator's command line is printed
#   --print       print the testpmd command line and exit (no root needed)
#   --build DIR   the meson build directory (default ./build)
#
# Without --iface it creates network namespaces joined by veths (IPv6 off):
#   [gen] g0 <-veth-> d0 [dut]          testpmd's port 0 is d0
#   [dut] d1 <-veth-> s0 [sink]         io only: port 1 is d1, s0 counts
# and removes them, testpmd and its files when it ends, however it ends.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
here="$top/app/testpmd"
build_dir=${BUILD_DIR:-$top/build}
config=""
stock=0
ifaces=""
seconds=""
print_only=0

usage() {
	sed -n '/^# Usage:/,/^# and removes/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
die() { printf 'run.sh: %s\n' "$*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case "$1" in
	rxonly|io|macswap|txonly|multiqueue) config=$1; shift ;;
	--stock) stock=1; shift ;;
	--iface) ifaces=$2; shift 2 ;;
	--seconds) seconds=$2; shift 2 ;;
	--print) print_only=1; shift ;;
	--build) build_dir=$2; shift 2 ;;
	-h|--help) usage ;;
	*) printf 'run.sh: unknown argument %s\n' "$1" >&2; usage ;;
	esac
done
[ -n "$config" ] || usage
if [ -n "$seconds" ] && ! [[ "$seconds" =~ ^[0-9]+([.][0-9]+)?$ ]]; then
	die "--seconds $seconds: a number of seconds"
fi

# What each configuration needs: ports, queues per port, generator threads
# (one per CPU: a veth picks the receive queue by the sending CPU), and which
# interface counts what comes out.
ports=1 queues=1 gen_threads=1 far=""
case "$config" in
io) ports=2 far=s0 ;;
macswap) far=g0 ;;
txonly) gen_threads=0 far=g0 ;;
multiqueue) queues=2 gen_threads=2 ;;
esac

id=$$
gen_ns=afxtp-$id-gen dut_ns=afxtp-$id-dut sink_ns=afxtp-$id-sink
g0=tp${id}g0 d0=tp${id}d0 d1=tp${id}d1 s0=tp${id}s0
make_topology=1
if [ -n "$ifaces" ]; then
	make_topology=0
	IFS=, read -r d0 d1 <<< "$ifaces"
	[ "$ports" -eq 1 ] || [ -n "$d1" ] || die "$config needs two interfaces: --iface IF,IF2"
fi

# The command line.
prefix=afxdp-tp-$id
plugin_args=()
if [ $stock -eq 0 ]; then
	if [ $print_only -eq 1 ]; then
		plugin=$(ls "$build_dir"/drivers/net/af_xdp/librte_net_af_xdp_direct.so.*.*.* 2>/dev/null | head -n1)
		plugin=${plugin:-$build_dir/drivers/net/af_xdp/librte_net_af_xdp_direct.so.23.0.0}
	else
		plugin=$("$top/scripts/plugin-path.sh" "$build_dir")
	fi
	plugin_args=(-d "$plugin")
fi
devargs=""
[ "$queues" -gt 1 ] && devargs=",queue_count=$queues"
vdevs=(--vdev "net_af_xdp0,iface=$d0$devargs")
[ "$ports" -eq 2 ] && vdevs+=(--vdev "net_af_xdp1,iface=$d1$devargs")
app=(-i --nb-cores=1 --rxd=2048 --txd=2048 --burst=64 --total-num-mbufs=16384
	--record-core-cycles "--cmdline-file=$here/$config.cmd")
[ "$queues" -gt 1 ] && app+=("--rxq=$queues" "--txq=$queues")
cmd=(dpdk-testpmd -l 0,1 --main-lcore 0 --no-pci --no-huge -m 1024 --file-prefix "$prefix"
	"${plugin_args[@]}" --log-level=pmd.net.af_xdp:info "${vdevs[@]}" -- "${app[@]}")

if [ $print_only -eq 1 ]; then
	[ $make_topology -eq 1 ] && printf 'ip netns exec %s ' "$dut_ns"
	printf '%s\n' "${cmd[*]}"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || die "run as root: it creates network namespaces and attaches XDP programs"
command -v dpdk-testpmd >/dev/null || die "dpdk-testpmd not found (Debian package dpdk; scripts/setup.sh installs it)"
gen="$build_dir/app/xdp-gen/afxdp-gen"
if [ $make_topology -eq 1 ] && [ "$gen_threads" -gt 0 ]; then
	[ -x "$gen" ] || die "no traffic generator at $gen (run scripts/setup.sh)"
fi

work=$(mktemp -d /run/afxdp-tp.XXXXXX)
testpmd_pid=""
tail_pid=""
cleanup() {
	set +e
	exec 3>&- 2>/dev/null
	if [ -n "$testpmd_pid" ] && kill -0 "$testpmd_pid" 2>/dev/null; then
		kill -INT "$testpmd_pid"
		for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$testpmd_pid" 2>/dev/null || break; sleep 0.5; done
		kill -KILL "$testpmd_pid" 2>/dev/null
	fi
	[ -n "$tail_pid" ] && kill "$tail_pid" 2>/dev/null
	if [ $make_topology -eq 1 ]; then
		ip netns del "$gen_ns" 2>/dev/null
		ip netns del "$dut_ns" 2>/dev/null
		ip netns del "$sink_ns" 2>/dev/null
	fi
	rm -rf "$work" "/var/run/dpdk/$prefix"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ns_exec=()
if [ $make_topology -eq 1 ]; then
	ns_exec=(ip netns exec "$dut_ns")
	add_ns() {
		ip netns add "$1"
		ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
		ip -n "$1" link set lo up
	}
	add_ns "$gen_ns"
	add_ns "$dut_ns"
	nq=$((queues))
	ip link add "$g0" netns "$gen_ns" numrxqueues $nq numtxqueues $nq type veth \
		peer name "$d0" netns "$dut_ns" numrxqueues $nq numtxqueues $nq
	ip -n "$gen_ns" link set "$g0" up
	ip -n "$dut_ns" link set "$d0" up
	topo="[$gen_ns] $g0 <-veth-> $d0 [$dut_ns]"
	if [ "$ports" -eq 2 ]; then
		add_ns "$sink_ns"
		ip link add "$d1" netns "$dut_ns" type veth peer name "$s0" netns "$sink_ns"
		ip -n "$dut_ns" link set "$d1" up
		ip -n "$sink_ns" link set "$s0" up
		topo="$topo; [$dut_ns] $d1 <-veth-> $s0 [$sink_ns]"
	fi
	echo "run.sh: topology $topo"
fi

gen_cmd=()
if [ $make_topology -eq 1 ] && [ "$gen_threads" -gt 0 ]; then
	cpus=0
	[ "$gen_threads" -eq 2 ] && cpus=0,1
	gen_cmd=(ip netns exec "$gen_ns" "$gen" --dev "$g0" --cpus "$cpus" --threads "$gen_threads")
fi

far_rx() {	# rx_packets of the interface that counts what came out
	case "$far" in
	g0) ip netns exec "$gen_ns" cat "/sys/class/net/$g0/statistics/rx_packets" ;;
	s0) ip netns exec "$sink_ns" cat "/sys/class/net/$s0/statistics/rx_packets" ;;
	esac
}

echo "run.sh: ${ns_exec[*]} ${cmd[*]}"
if [ -z "$seconds" ]; then
	if [ ${#gen_cmd[@]} -gt 0 ]; then
		echo "run.sh: traffic, from another terminal while testpmd runs:"
		echo "    ${gen_cmd[*]} --duration 10"
	fi
	"${ns_exec[@]}" "${cmd[@]}"
	exit $?
fi

# --seconds: testpmd reads its commands from a FIFO; its output is shown as
# it comes (stdbuf: line-buffered into the log).
mkfifo "$work/cmd"
"${ns_exec[@]}" stdbuf -oL -eL "${cmd[@]}" < "$work/cmd" > "$work/testpmd.log" 2>&1 &
testpmd_pid=$!
exec 3> "$work/cmd"
tail -n +1 -f --pid="$testpmd_pid" "$work/testpmd.log" &
tail_pid=$!
wait_for() {	# pattern, seconds
	local deadline=$((SECONDS + $2))
	until grep -q -- "$1" "$work/testpmd.log"; do
		kill -0 "$testpmd_pid" 2>/dev/null || die "testpmd exited"
		[ $SECONDS -lt $deadline ] || die "testpmd: no '$1' within $2 s"
		sleep 0.2
	done
}
wait_for "packet forwarding - ports=" 60
sleep 0.5
before=$(far_rx)
if [ ${#gen_cmd[@]} -gt 0 ]; then
	"${gen_cmd[@]}" --duration "$seconds" --quiet --json > "$work/gen.out"
	grep '^{' "$work/gen.out" | sed 's/^/run.sh: afxdp-gen: /'
else
	sleep "$seconds"
fi
sleep 0.3
after=$(far_rx)
echo "stop" >&3
wait_for "Done\." 20
echo "show port stats all" >&3
echo "show port xstats all" >&3
echo "quit" >&3
wait "$testpmd_pid" || true
testpmd_pid=""
wait "$tail_pid" 2>/dev/null || true
tail_pid=""
if [ -n "$far" ] && [ -n "$before" ]; then
	echo "run.sh: $far received $((after - before)) frames while traffic ran (its rx_packets)"
fi
