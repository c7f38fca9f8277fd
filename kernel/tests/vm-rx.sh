#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# vm-rx.sh [--require] <xsk_rx> <pkt_inject> drv|skb [count]
#
# Frames through a veth pair into AF_XDP sockets, counted exactly: the
# receiver (xsk_rx) on veth "va" in one network namespace, the sender
# (pkt_inject) on its peer "vb" in another, IPv6 off on both. Scenarios:
# bpf_redirect_map() and bpf_redirect_xsk() with one socket, the map fallback
# with two sockets on the queue, the direct socket restored after the first
# of two leaves; in native (drv) mode also with batching off (sysctl
# net.core.xsk_rx_batch=0) and with frames arriving as xdp_frames (sent with
# BPF_PROG_RUN live frames) as well as skbs (AF_PACKET).
#
# Meant for the test VM (kernel/vm-run.sh); on another kernel the direct
# scenarios report the feature absent and are skipped, unless --require.
# Exit: 0 all passed, 1 one failed, 77 all skipped.

set -u

require=
if [ "${1:-}" = --require ]; then
	require=--require
	shift
fi
if [ $# -lt 3 ]; then
	echo "usage: $0 [--require] <xsk_rx> <pkt_inject> drv|skb [count]" >&2
	exit 2
fi
xsk_rx=$1
pkt_inject=$2
mode=$3
count=${4:-1000}
case "$mode" in drv | skb) ;; *) echo "mode must be drv or skb" >&2; exit 2 ;; esac

ns_rx=afxdp-rx-$$
ns_tx=afxdp-tx-$$
tmp=$(mktemp -d)
batch_sysctl=/proc/sys/net/core/xsk_rx_batch
batch_saved=$(cat "$batch_sysctl" 2>/dev/null)

cleanup() {
	[ -n "${rx_pid:-}" ] && kill "$rx_pid" 2>/dev/null && wait "$rx_pid" 2>/dev/null
	ip netns del "$ns_rx" 2>/dev/null
	ip netns del "$ns_tx" 2>/dev/null
	[ -n "$batch_saved" ] && echo "$batch_saved" 2>/dev/null >"$batch_sysctl"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

in_rx() { ip netns exec "$ns_rx" "$@"; }
in_tx() { ip netns exec "$ns_tx" "$@"; }

set -e
ip netns add "$ns_rx"
ip netns add "$ns_tx"
for ns in "$ns_rx" "$ns_tx"; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
	ip netns exec "$ns" ip link set lo up
done
ip link add va netns "$ns_rx" type veth peer name vb netns "$ns_tx"
# A second device in the receiver's namespace, for the restore scenario.
ip link add vc netns "$ns_rx" type veth peer name vd netns "$ns_rx"
in_rx ip link set va up
in_rx ip link set vc up
in_rx ip link set vd up
in_tx ip link set vb up
set +e

# Frames the native veth path delivered with XDP_REDIRECT_XSK so far.
redirect_xsk_stat() {
	in_rx ethtool -S va 2>/dev/null | awk '/xdp_redirect_xsk:/ { n += $2 } END { print n + 0 }'
}

passed=0
failed=0
skipped=0
run_id=$(( ($$ << 8) + 1 ))

# run_case <label> <via> <batch 0|1|-> <xsk_rx arguments...>
run_case() {
	local label=$1 via=$2 batch=$3 rc before after expect_stat=0
	shift 3
	run_id=$((run_id + 1))
	if [ "$batch" != - ]; then
		if [ -e "$batch_sysctl" ]; then
			echo "$batch" >"$batch_sysctl" || { failed=$((failed + 1)); return; }
		elif [ "$batch" = 0 ]; then
			echo "SKIP $label: no $batch_sysctl"
			skipped=$((skipped + 1))
			return
		fi
	fi
	echo "=== $label"
	before=$(redirect_xsk_stat)
	rm -f "$tmp/ready"
	in_rx "$xsk_rx" --ifname va --mode "$mode" --count "$count" --run-id "$run_id" \
		--ready "$tmp/ready" --timeout 60 $require "$@" &
	rx_pid=$!
	for _ in $(seq 300); do
		[ -e "$tmp/ready" ] || ! kill -0 "$rx_pid" 2>/dev/null && break
		sleep 0.1
	done
	if [ -e "$tmp/ready" ]; then
		in_tx "$pkt_inject" --ifname vb --count "$count" --run-id "$run_id" --via "$via" ||
			echo "# the sender failed"
	fi
	wait "$rx_pid"
	rc=$?
	rx_pid=
	after=$(redirect_xsk_stat)
	case "$mode/$*" in
	drv/*"--prog xsk"*"--scenario single"* | drv/*"--prog xsk"*"--scenario restore"*)
		expect_stat=$count ;;
	esac
	if [ "$rc" = 0 ] && [ "$mode" = drv ]; then
		echo "# veth xdp_redirect_xsk: +$((after - before)) (want +$expect_stat)"
		[ $((after - before)) = "$expect_stat" ] || rc=1
	fi
	case "$rc" in
	0) passed=$((passed + 1)); echo "PASS $label" ;;
	77) skipped=$((skipped + 1)); echo "SKIP $label" ;;
	*) failed=$((failed + 1)); echo "FAIL $label (status $rc)" ;;
	esac
}

run_case "$mode: bpf_redirect_map, one socket" packet - --prog map --scenario single
run_case "$mode: bpf_redirect_xsk, one socket (direct)" packet 1 --prog xsk --scenario single
run_case "$mode: bpf_redirect_xsk, two sockets (map fallback)" packet 1 --prog xsk --scenario shared
run_case "$mode: bpf_redirect_xsk, first of two sockets gone (direct to the one left)" \
	packet 1 --prog xsk --scenario restore --other-ifname vc
if [ "$mode" = drv ]; then
	run_case "drv: bpf_redirect_xsk, one socket, batching off" packet 0 --prog xsk --scenario single
	run_case "drv: bpf_redirect_map, one socket, xdp_frames" xdp - --prog map --scenario single
	run_case "drv: bpf_redirect_xsk, one socket, xdp_frames" xdp 1 --prog xsk --scenario single
	run_case "drv: bpf_redirect_xsk, one socket, xdp_frames, batching off" xdp 0 \
		--prog xsk --scenario single
fi

echo "$mode: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] || exit 1
[ "$passed" -gt 0 ] || exit 77
exit 0
