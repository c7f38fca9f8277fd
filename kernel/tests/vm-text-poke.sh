#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# vm-text-poke.sh <xdp object> <seconds>
#
# For the test VM (kernel/vm-run.sh). vCPU 0 attaches and detaches an XDP
# program on a veth in a loop, for <seconds> or until the guest dies, while
# vCPU 1 floods that veth through its peer: each change re-patches the BPF
# dispatcher's static call (text_poke_bp()) that vCPU 1's NAPI poll runs
# through. Under qemu's multi-threaded TCG this makes the stale-int3 oops
# that kernel/vm-run.sh boots again for (tests/stale_int3.sh). With
# single-threaded TCG (AFXDP_VM_TCG=single) it runs 10 cycles only.
set -u
obj=$1
seconds=$2
cycles_max=0
[ "${AFXDP_VM_TCG:-multi}" = single ] && cycles_max=10

ip link add vtp0 type veth peer name vtp1 || exit 1
ip link set vtp0 up && ip link set vtp1 up || exit 1
taskset -c 1 /usr/bin/python3 -c '
import socket
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("vtp0", 0))
frame = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + b"\x08\x00" + bytes(50)
while True:
    s.send(frame)
' &
flood=$!
trap 'kill $flood 2>/dev/null' EXIT

end=$((SECONDS + seconds))
n=0
while [ $SECONDS -lt $end ]; do
	taskset -c 0 ip link set dev vtp1 xdpdrv obj "$obj" sec xdp || exit 1
	taskset -c 0 ip link set dev vtp1 xdpdrv off || exit 1
	n=$((n + 1))
	[ $n = "$cycles_max" ] && break
done
kill -0 $flood 2>/dev/null || { echo "the flood ended early" >&2; exit 1; }
echo "$n program changes with AFXDP_VM_TCG=${AFXDP_VM_TCG:-multi}," \
	"$(cat /sys/class/net/vtp1/statistics/rx_packets) frames received"
