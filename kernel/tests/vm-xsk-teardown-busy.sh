#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# vm-xsk-teardown-busy.sh <xskxceiver directory>
#
# Reproduces an open defect (kernel/README.md, "The kernel's own AF_XDP
# suite": the core's busy-poll stop can leave veth's queue idle with its
# notifications masked): in zero-copy mode with busy polling, xskxceiver's
# TEARDOWN fails now and then, and the veth pair then carries nothing for
# any later socket, zero-copy or copy (drv), busy polling or not, until the
# program of the receiving veth is detached or the pair deleted (about 1
# TEARDOWN in 8 on 2026-12-03's loaded machine). On one pair as
# test_xsk.sh sets it up for busy polling (IPv6 off: an MLD report the
# program hands the socket fails a test by itself, "expected pkt_nb [N],
# got pkt_nb [0]", a failure of the setup, not of the kernel):
# SEND_RECEIVE, UMEM_HEADROOM, TEARDOWN, BIDIRECTIONAL, SEND_RECEIVE twice
# (busy), SEND_RECEIVE plain; then four times TEARDOWN and SEND_RECEIVE on
# a fresh pair. Prints each result with the programs attached and veth's
# drop counters. Not a test (no verdict): for the VM, by hand:
#   kernel/vm-run.sh kernel/tests/vm-xsk-teardown-busy.sh \
#       $AFXDP_KERNEL_CACHE/xsk-suite/<key>-<suite key>

set -u
cd "${1:?usage: $0 <xskxceiver directory>}" || exit 1
v0=xskt0
v1=xskt1
. "$(dirname "$(readlink -f "$0")")/xsk-veth.sh"
up() { xsk_veth_pair "$v0" "$v1" 1 || exit 1; }
state() {
	echo "  programs: $(ip -o link show "$v0" | grep -o 'prog/xdp id [0-9]*') /" \
		"$(ip -o link show "$v1" | grep -o 'prog/xdp id [0-9]*');" \
		"drops: $v0 tx $(cat "/sys/class/net/$v0/statistics/tx_dropped")," \
		"$v1 rx $(cat "/sys/class/net/$v1/statistics/rx_dropped")"
}
run() {
	echo "xskxceiver -m zc $*: $(timeout 120 ./xskxceiver -i "$v0" -i "$v1" -m zc "$@" 2>&1 |
		grep -E '^(not )?ok 1' | cut -c1-48)"
}
up
for t in 0 12 13 14 0 0; do
	run -b -t "$t"
	state
done
run -t 0
state
for _ in 1 2 3 4; do
	up
	run -b -t 13
	run -b -t 0
done
ip link del "$v0"
