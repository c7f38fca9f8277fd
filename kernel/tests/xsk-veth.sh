# SPDX-License-Identifier: BSD-3-Clause
#
# Sourced by vm-xsk-suite.sh and vm-xsk-teardown-busy.sh.
#
# xsk_veth_pair <veth0> <veth1> <busy>: a fresh veth pair as test_xsk.sh's
# setup_vethPairs() makes it (the old one deleted), 4 queues each, IPv6
# off (an MLD report the suite's program hands a socket fails a test by
# itself), MTU 1500, up; <busy> 1: the deferral settings test_xsk.sh uses
# for busy polling (napi_defer_hard_irqs 2, gro_flush_timeout 200 us).
xsk_veth_pair() {
	local v
	ip link del "$1" 2>/dev/null
	ip link add "$1" numtxqueues 4 numrxqueues 4 type veth peer name "$2" \
		numtxqueues 4 numrxqueues 4 || return 1
	for v in "$1" "$2"; do
		echo 1 >"/proc/sys/net/ipv6/conf/$v/disable_ipv6" 2>/dev/null
		if [ "$3" = 1 ]; then
			echo 2 >"/sys/class/net/$v/napi_defer_hard_irqs"
			echo 200000 >"/sys/class/net/$v/gro_flush_timeout"
		fi
	done
	ip link set "$2" mtu 1500 && ip link set "$1" mtu 1500 &&
		ip link set "$2" up && ip link set "$1" up
}
