#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# vm-bench.sh <xsk_bench> [xsk_bench options...]
#
# The benchmark's topology, inside the test VM: a veth pair xbA/xbB (the
# generator's bpf_redirect() needs its target in its own namespace), IPv6
# off. Runs xsk_bench on it; the CSV of every window (bench.csv) and the
# medians (medians.csv, which kernel/bench.sh compares between the
# unpatched and the patched kernel) go to the results directory when there
# is one.

set -u
if [ $# -lt 1 ]; then
	echo "usage: $0 <xsk_bench> [options...]" >&2
	exit 2
fi
bench=$1
shift

cleanup() {
	ip link del xbA 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

set -e
ip link add xbA type veth peer name xbB
for dev in xbA xbB; do
	sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1"
	ip link set "$dev" up
done
set +e

csv=()
if [ -n "${AFXDP_VM_RESULTS:-}" ]; then
	csv=(--csv "$AFXDP_VM_RESULTS/bench.csv" --medians "$AFXDP_VM_RESULTS/medians.csv")
fi
echo "# kernel $(uname -r), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
"$bench" --rx-ifname xbA --tx-ifname xbB "${csv[@]}" "$@"
