#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# vm-rx.sh [--require] <xsk_rx> <pkt_inject> drv|skb|zc [count]
#
# Frames through a veth pair into AF_XDP sockets, counted exactly and in
# order: the receiver (xsk_rx) on veth "va" in one network namespace, the
# sender (pkt_inject) on its peer "vb" in another, IPv6 off on both.
# Scenarios: bpf_redirect_map() and bpf_redirect_xsk() with one socket, the
# map fallback with two sockets on the queue, the direct socket restored
# after the first of two leaves, nothing for a socket that is not in the map,
# two sockets alternating and the socket changing within a NAPI poll. In
# native (drv) mode the frames arrive as skbs (AF_PACKET), as xdp_frames one
# per poll (BPF_PROG_RUN live frames) and in bursts of 64 per poll (the
# kernel's batches), also with batching off (sysctl net.core.xsk_rx_batch=0)
# and with threaded NAPI (skbs queue up between polls). zc runs the native
# cases with the sockets in zero-copy mode (this kernel's veth, patches
# 11-13): each frame is received into a buffer of the socket's pool.
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
	echo "usage: $0 [--require] <xsk_rx> <pkt_inject> drv|skb|zc [count]" >&2
	exit 2
fi
xsk_rx=$1
pkt_inject=$2
mode=$3
count=${4:-1000}
case "$mode" in drv | skb | zc) ;; *) echo "mode must be drv, skb or zc" >&2; exit 2 ;; esac
# zero-copy is native XDP
native=0
[ "$mode" = skb ] || native=1

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

# va's NAPI in a kernel thread (1) or in softirq (0). A veth has a NAPI
# only with XDP or GRO: GRO on gives it one before the program is attached.
set_threaded() {
	if [ "$1" = 1 ]; then
		in_rx ethtool -K va gro on >/dev/null &&
			in_rx sh -c 'echo 1 > /sys/class/net/va/threaded'
	else
		in_rx sh -c 'echo 0 > /sys/class/net/va/threaded' 2>/dev/null
		in_rx ethtool -K va gro off >/dev/null
	fi
}

# run_case <label> <via> <batch 0|1|-> <xsk_rx arguments...>
# THREADED=1 in the environment: va's NAPI runs in a kernel thread, so that
# skbs from the sender queue up between its polls.
run_case() {
	local label=$1 via=$2 batch=$3 rc before after expect_stat=0
	shift 3
	run_id=$((run_id + 1))
	if [ "${THREADED:-0}" = 1 ] && ! set_threaded 1; then
		echo "FAIL $label: cannot run va's NAPI in a thread"
		failed=$((failed + 1))
		set_threaded 0
		return
	fi
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
	rm -f "$tmp/ready" "$tmp/sent"
	in_rx "$xsk_rx" --ifname va --mode "$mode" --count "$count" --run-id "$run_id" \
		--ready "$tmp/ready" --sent "$tmp/sent" --timeout 60 $require "$@" &
	rx_pid=$!
	for _ in $(seq 300); do
		[ -e "$tmp/ready" ] || ! kill -0 "$rx_pid" 2>/dev/null && break
		sleep 0.1
	done
	if [ -e "$tmp/ready" ]; then
		in_tx "$pkt_inject" --ifname vb --count "$count" --run-id "$run_id" --via "$via" ||
			echo "# the sender failed"
	fi
	touch "$tmp/sent"
	wait "$rx_pid"
	rc=$?
	rx_pid=
	[ "${THREADED:-0}" = 1 ] && set_threaded 0
	after=$(redirect_xsk_stat)
	case "$native/$*" in
	1/*"--prog xsk"*"--scenario single"* | 1/*"--prog xsk"*"--scenario restore"*)
		expect_stat=$count ;;
	esac
	if [ "$rc" = 0 ] && [ "$native" = 1 ]; then
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
run_case "$mode: bpf_redirect_xsk, socket not in the map (nothing delivered)" packet 1 \
	--prog xsk --scenario absent
run_case "$mode: bpf_redirect_map, two sockets alternating" packet 1 --prog map --scenario alternate
if [ "$native" = 1 ]; then
	run_case "$mode: bpf_redirect_xsk, one socket, batching off" packet 0 --prog xsk --scenario single
	run_case "$mode: bpf_redirect_map, one socket, xdp_frames" xdp - --prog map --scenario single
	run_case "$mode: bpf_redirect_xsk, one socket, xdp_frames" xdp 1 --prog xsk --scenario single
	run_case "$mode: bpf_redirect_xsk, one socket, xdp_frames, batching off" xdp 0 \
		--prog xsk --scenario single
	run_case "$mode: bpf_redirect_map, one socket, bursts" burst 1 --prog map --scenario single
	run_case "$mode: bpf_redirect_map, one socket, bursts, batching off" burst 0 \
		--prog map --scenario single
	run_case "$mode: bpf_redirect_xsk, one socket, bursts" burst 1 --prog xsk --scenario single
	run_case "$mode: bpf_redirect_map, two sockets alternating, bursts" burst 1 \
		--prog map --scenario alternate
	run_case "$mode: bpf_redirect_map, socket switch within a poll, bursts" burst 1 \
		--prog map --scenario switch
	THREADED=1 run_case "$mode: bpf_redirect_map, one socket, threaded NAPI" packet 1 \
		--prog map --scenario single
	THREADED=1 run_case "$mode: bpf_redirect_map, socket switch, threaded NAPI" packet 1 \
		--prog map --scenario switch
fi

echo "$mode: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] || exit 1
[ "$passed" -gt 0 ] || exit 77
exit 0
