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
# kernel's batches), and with threaded NAPI (skbs queue up between polls).
# zc runs the native cases with the sockets in zero-copy mode (this
# kernel's veth, layer c): each frame is received into a buffer of the
# socket's pool. Then,
# in zc mode only: frames the program passes reach the stack intact (ping,
# its data checked) while a pool is bound, with what copy mode keeps of the
# peer's skb (TCP and UDP with its checksum offload on, their skb hash, a
# VLAN tag out of band), frames longer than a chunk too (the copy-mode
# path); frames redirected to a device that refuses them, which may cost
# no memory, and to a socket of another device, whose buffers must all go
# back to the pool; a socket closed and bound again and again while frames
# arrive; a pool on queue 0 of a two-queue veth while queue 1 receives in
# copy mode; link down/up and deletion of the
# peer under traffic, each followed by exact counts; zero-copy transmit
# into a slow peer (xsk_tx, next to xsk_rx): every descriptor completed and
# every frame delivered; then, on the same veth, transmit from sockets set
# up as DPDK's drivers do (bound before the program, preferred busy
# polling), bound after the earlier socket's NAPI was deleted; one (woken,
# not busy polling) under which the NAPI is replaced; one that wakes the
# kernel once (the peer's poll must wake the sender it held back); one
# with no program on its veth (no NAPI); frames to the peer's stack, as
# xdp_frames, as skbs when they do not fit one in a page, and into the
# backlog of a peer without NAPI; and no kernel warning in the log.
# In drv mode, last: copy-mode transmit (the kernel's generic
# transmit, batched by layer a) into a slow peer, with all the Tx ring
# filled and a few frames in flight at a time: every descriptor completed
# exactly once, every frame delivered or counted in tx_dropped (veth
# without a qdisc drops what the peer's full ring refuses).
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

# stop_job <pid> <signal>: pid is a subshell (in_rx or in_tx run with &),
# which would not pass the signal on (and ignores SIGINT, as every
# background job of a shell without job control does): it goes to its
# child, the program itself (ip netns exec execs it); then the subshell
# ends.
stop_job() {
	pkill "-$2" -P "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

cleanup() {
	[ -n "${rx_pid:-}" ] && stop_job "$rx_pid" TERM
	ip netns del "$ns_rx" 2>/dev/null
	ip netns del "$ns_tx" 2>/dev/null
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
# The pair the frames go through; its addresses are for the ping of zc.
add_pair() {
	ip link add va netns "$ns_rx" type veth peer name vb netns "$ns_tx" &&
		in_rx ip addr add 10.199.0.1/24 dev va &&
		in_tx ip addr add 10.199.0.2/24 dev vb &&
		in_rx ip link set va up &&
		in_tx ip link set vb up
}
add_pair
# A second device in the receiver's namespace, for the restore scenario.
ip link add vc netns "$ns_rx" type veth peer name vd netns "$ns_rx"
in_rx ip link set vc up
in_rx ip link set vd up
if [ "$mode" = zc ]; then
	# Two queues each way, for the multi-queue case
	ip link add vm numtxqueues 2 numrxqueues 2 netns "$ns_rx" type veth \
		peer name vn numtxqueues 2 numrxqueues 2 netns "$ns_tx"
	in_rx ip link set vm up
	in_tx ip link set vn up
fi
set +e
# Kernel warnings are looked for from here on
dmesg_start=$(dmesg | wc -l)

# va's counters (ethtool -S), a "name value" line each
va_stats() {
	in_rx ethtool -S va 2>/dev/null | awk -F': *' 'NR > 1 { sub(/^ +/, "", $1); print $1, $2 }'
}
# Frames the native veth path delivered with XDP_REDIRECT_XSK so far:
# xdp_redirect_xsk summed over va's queues, from va_stats' text
redirect_xsk_stat() {
	awk '/xdp_redirect_xsk/ { n += $2 } END { print n + 0 }' <<<"$1"
}
# va's counters that a failed case changed: where its frames went
# (the guest has no /dev/fd: both texts through one pipe, "--" between)
va_stats_delta() {
	printf '%s\n--\n%s\n' "$1" "$2" | awk '$0 == "--" { after = 1; next }
		!after { b[$1] = $2; next }
		$2 != b[$1] { printf "# va %s: +%d\n", $1, $2 - b[$1] }'
}

passed=0
failed=0
skipped=0
# Each case's result line ends with its duration: "(12.3 s)".
since() {
	local us=$(( ${EPOCHREALTIME/./} - ${1/./} ))
	printf '(%d.%d s)' $((us / 1000000)) $((us / 100000 % 10))
}
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

# run_case <label> <via> <xsk_rx arguments...>
# In the environment: THREADED=1: va's NAPI runs in a kernel thread, so that
# skbs from the sender queue up between its polls. COUNT: frames instead of
# count. DURING: a command run once the receiver is ready, before the
# frames are sent; the case fails if it fails. AFTER: the same, run once
# the receiver is done. RX_IF, TX_IF: another pair
# than va/vb. SENDER: a command sending the frames instead of pkt_inject,
# called with the sender's device, the count and the run id.
run_case() {
	local label=$1 via=$2 rc before after va0 va1 expect_stat=0 during=0 t0=$EPOCHREALTIME
	local n=${COUNT:-$count} rx_if=${RX_IF:-va} tx_if=${TX_IF:-vb}
	shift 2
	run_id=$((run_id + 1))
	if [ "${THREADED:-0}" = 1 ] && ! set_threaded 1; then
		echo "FAIL $label: cannot run va's NAPI in a thread"
		failed=$((failed + 1))
		set_threaded 0
		return
	fi
	echo "=== $label"
	va0=$(va_stats)
	before=$(redirect_xsk_stat "$va0")
	rm -f "$tmp/ready" "$tmp/sent"
	in_rx "$xsk_rx" --ifname "$rx_if" --mode "$mode" --count "$n" --run-id "$run_id" \
		--ready "$tmp/ready" --sent "$tmp/sent" --timeout 60 $require "$@" &
	rx_pid=$!
	for _ in $(seq 300); do
		[ -e "$tmp/ready" ] || ! kill -0 "$rx_pid" 2>/dev/null && break
		sleep 0.1
	done
	if [ -e "$tmp/ready" ]; then
		if [ -n "${DURING:-}" ] && ! $DURING; then
			echo "# $DURING failed"
			during=1
		fi
		if [ -n "${SENDER:-}" ]; then
			$SENDER "$tx_if" "$n" "$run_id" || echo "# the sender failed"
		else
			in_tx "$pkt_inject" --ifname "$tx_if" --count "$n" --run-id "$run_id" \
				--via "$via" || echo "# the sender failed"
		fi
	fi
	touch "$tmp/sent"
	wait "$rx_pid"
	rc=$?
	rx_pid=
	if [ -n "${AFTER:-}" ] && ! $AFTER; then
		echo "# $AFTER failed"
		during=1
	fi
	[ "${THREADED:-0}" = 1 ] && set_threaded 0
	va1=$(va_stats)
	after=$(redirect_xsk_stat "$va1")
	case "$native/$*" in
	1/*"--prog xsk"*"--scenario single"* | 1/*"--prog xsk"*"--scenario restore"*)
		expect_stat=$count ;;
	esac
	if [ "$rc" = 0 ] && [ "$native" = 1 ]; then
		echo "# veth xdp_redirect_xsk: +$((after - before)) (want +$expect_stat)"
		[ $((after - before)) = "$expect_stat" ] || rc=1
	fi
	[ "$during" = 0 ] || rc=1
	case "$rc" in
	0) passed=$((passed + 1)); echo "PASS $label $(since "$t0")" ;;
	77) skipped=$((skipped + 1)); echo "SKIP $label $(since "$t0")" ;;
	*)
		failed=$((failed + 1))
		va_stats_delta "$va0" "$va1"
		echo "FAIL $label (status $rc) $(since "$t0")"
		;;
	esac
}

run_case "$mode: bpf_redirect_map, one socket" packet --prog map --scenario single
run_case "$mode: bpf_redirect_xsk, one socket (direct)" packet --prog xsk --scenario single
run_case "$mode: bpf_redirect_xsk, two sockets (map fallback)" packet --prog xsk --scenario shared
run_case "$mode: bpf_redirect_xsk, first of two sockets gone (direct to the one left)" \
	packet --prog xsk --scenario restore --other-ifname vc
run_case "$mode: bpf_redirect_xsk, socket not in the map (nothing delivered)" packet \
	--prog xsk --scenario absent
run_case "$mode: bpf_redirect_map, two sockets alternating" packet --prog map --scenario alternate
if [ "$native" = 1 ]; then
	run_case "$mode: bpf_redirect_map, one socket, xdp_frames" xdp --prog map --scenario single
	run_case "$mode: bpf_redirect_xsk, one socket, xdp_frames" xdp --prog xsk --scenario single
	run_case "$mode: bpf_redirect_map, one socket, bursts" burst --prog map --scenario single
	run_case "$mode: bpf_redirect_xsk, one socket, bursts" burst --prog xsk --scenario single
	run_case "$mode: bpf_redirect_map, two sockets alternating, bursts" burst \
		--prog map --scenario alternate
	run_case "$mode: bpf_redirect_map, socket switch within a poll, bursts" burst \
		--prog map --scenario switch
	THREADED=1 run_case "$mode: bpf_redirect_map, one socket, threaded NAPI" packet \
		--prog map --scenario single
	THREADED=1 run_case "$mode: bpf_redirect_map, socket switch, threaded NAPI" packet \
		--prog map --scenario switch
fi

# zc: what a pool bound to a queue must not break, and transmit.

# Frames the program passes (ICMP, ARP) go to the stack as copies of the
# pool's buffers: 20 pings of 1200 bytes, data checked by ping and by the
# checksums, all answered.
ping_through_pool() {
	local out
	out=$(in_tx ping -c 20 -i 0.05 -s 1200 -p a5c3e1 -W 5 10.199.0.1 2>&1)
	echo "$out" | tail -n 2 | sed 's/^/# ping: /'
	echo "$out" | grep -q ' 20 received' && ! echo "$out" | grep -q 'wrong data'
}

# What copy mode's XDP_PASS keeps of the peer's skb, the zero-copy one must
# keep too. TCP and UDP from vb's stack with its transmit checksum offload
# on (veth's default): they leave it CHECKSUM_PARTIAL, only the
# pseudo-header's sum in the bytes, and must arrive intact (l4_pass.py).
# Then 5 pings over VLAN 100, whose tag vb keeps out of band
# (tx-vlan-offload): va.100 must receive them (its rx_packets: a frame
# that lost its tag would reach va, which owns the address all the same).
l4_pass=$(dirname "$(readlink -f "$0")")/l4_pass.py
pass_offloaded() {
	local srv rc=0 before after out
	in_tx ethtool -k vb | grep -q '^tx-checksumming: on' || { echo "# vb: tx-checksumming off"; return 1; }
	in_tx ethtool -k vb | grep -q '^tx-vlan-offload: on' || { echo "# vb: tx-vlan-offload off"; return 1; }
	in_rx python3 "$l4_pass" serve 10.199.0.1 5201 200000 &
	srv=$!
	in_tx python3 "$l4_pass" send 10.199.0.1 5201 200000 || rc=1
	wait "$srv" || rc=1
	in_rx ip link add link va name va.100 type vlan id 100 &&
		in_tx ip link add link vb name vb.100 type vlan id 100 &&
		in_rx ip addr add 10.199.1.1/24 dev va.100 &&
		in_tx ip addr add 10.199.1.2/24 dev vb.100 &&
		in_rx ip link set va.100 up && in_tx ip link set vb.100 up || rc=1
	before=$(in_rx cat /sys/class/net/va.100/statistics/rx_packets)
	out=$(in_tx ping -c 5 -i 0.05 -W 5 10.199.1.1 2>&1)
	after=$(in_rx cat /sys/class/net/va.100/statistics/rx_packets)
	echo "# VLAN 100: $(echo "$out" | grep -o '[0-9]* received'), va.100 rx_packets +$((after - before))"
	echo "$out" | grep -q ' 5 received' && [ $((after - before)) -ge 5 ] || rc=1
	in_rx ip link del va.100
	in_tx ip link del vb.100
	return $rc
}

# A frame longer than a buffer of the pool (xsk_rx's 2048-byte chunks hold
# 1792 bytes after the headroom) takes the copy-mode path. The xsk core
# refuses a zero-copy bind at an MTU the chunks cannot hold, but not an MTU
# raised after the bind: at MTU 3000, set once the socket is bound, 10 pings
# of 2800 bytes, which the program passes, must all be answered, and va may
# count none of them in its drops. (The case resets the MTU.)
jumbo_through_pool() {
	local out before after
	in_rx ip link set va mtu 3000 && in_tx ip link set vb mtu 3000 || return 1
	before=$(in_rx cat /sys/class/net/va/statistics/rx_dropped)
	out=$(in_tx ping -c 10 -i 0.05 -s 2800 -M do -p 5ac3e1 -W 5 10.199.0.1 2>&1)
	after=$(in_rx cat /sys/class/net/va/statistics/rx_dropped)
	echo "$out" | tail -n 2 | sed 's/^/# ping: /'
	echo "# va rx_dropped +$((after - before)) (want +0)"
	echo "$out" | grep -q ' 10 received' && ! echo "$out" | grep -q 'wrong data' &&
		[ "$after" = "$before" ]
}

# The guest's available memory, in kB
mem_available() {
	awk '/^MemAvailable:/ { print $2 }' /proc/meminfo
}

# Frames the program redirects to a device that refuses them (lo, which has
# no ndo_xdp_xmit): in zero-copy mode each is first copied out of its pool
# buffer into a page of its own, the buffer going back to the pool, and
# the copy must be freed when lo refuses it (xdp_do_redirect() leaves that
# to the driver). refused_mark before the frames, refused_check after: the
# copies of REFUSED_COUNT frames would hold 4 kB each, their loss of
# available memory may be a quarter of that at most (the receiver and the
# sender come and go in between), and each frame must be counted in va's
# rx_dropped (at least: anything else va receives is redirected too).
REFUSED_COUNT=20000
refused_mark() {
	refused_mem=$(mem_available)
	refused_drops=$(in_rx cat /sys/class/net/va/statistics/rx_dropped)
}
refused_check() {
	local now=$(mem_available) limit=$((REFUSED_COUNT * 4 / 4)) lost
	local drops=$(($(in_rx cat /sys/class/net/va/statistics/rx_dropped) - refused_drops))
	lost=$((refused_mem - now))
	echo "# available memory $refused_mem kB before, $now kB after (lost at most $limit kB)," \
		"va rx_dropped +$drops (want >= $REFUSED_COUNT)"
	[ "$lost" -le "$limit" ] && [ "$drops" -ge "$REFUSED_COUNT" ]
}

# Half the frames from CPU 0, half from CPU 1: veth queues an xdp_frame on
# the receive queue of the sending CPU's number (veth_select_rxq()).
send_split() {
	local half=$(($2 / 2))
	in_tx taskset -c 0 "$pkt_inject" --ifname "$1" --count "$half" --run-id "$3" \
		--via xdp &&
		in_tx taskset -c 1 "$pkt_inject" --ifname "$1" --count $(($2 - half)) \
			--first "$half" --run-id "$3" --via xdp
}

# The churn's frames spread over its binds (SENDER): ten runs of a tenth,
# 50 ms apart. Sent as one burst, they fell whole into a gap between two
# sockets in 2 CI runs of 2026-12-04: XDP ran on all 20000 (va
# rx_queue_0_xdp_packets +20000) with no socket in the map (no redirect, no
# drop), and no socket of the 50 received one.
send_spread() {
	local i part=$(($2 / 10))
	for i in $(seq 0 9); do
		in_tx "$pkt_inject" --ifname "$1" --first $((i * part)) --run-id "$3" --via packet \
			--count $((i < 9 ? part : $2 - 9 * part)) || return 1
		sleep 0.05
	done
}

flap_va() {
	local i
	for i in 1 2 3; do
		in_rx ip link set va down && sleep 0.2 && in_rx ip link set va up || return 1
		sleep 0.3
	done
}

delete_peer() {
	in_tx ip link del vb
}

# disrupt_case <label> <command>: a zero-copy receiver on va and a flood
# from vb, the command in the middle of it; no count can be exact then, but
# the kernel must live and the receiver must stop when asked. Then the pair
# (re-created if it is gone) must give exact counts again.
disrupt_case() {
	local label=$1 action=$2 tx_pid rc t0=$EPOCHREALTIME
	run_id=$((run_id + 1))
	echo "=== $label"
	rm -f "$tmp/ready"
	in_rx "$xsk_rx" --ifname va --mode "$mode" --count 1000000 --run-id "$run_id" \
		--ready "$tmp/ready" --timeout 120 --prog map --scenario single >"$tmp/rx.log" 2>&1 &
	rx_pid=$!
	for _ in $(seq 300); do
		[ -e "$tmp/ready" ] || ! kill -0 "$rx_pid" 2>/dev/null && break
		sleep 0.1
	done
	in_tx "$pkt_inject" --ifname vb --count 1000000 --run-id "$run_id" >"$tmp/tx.log" 2>&1 &
	tx_pid=$!
	sleep 1
	$action
	rc=$?
	sleep 1
	stop_job "$tx_pid" TERM
	# Not all frames came: it reports what did, with status 1
	stop_job "$rx_pid" INT
	rx_pid=
	sed -n 's/^# first socket: /# during: /p' "$tmp/rx.log"
	if [ "$rc" != 0 ]; then
		failed=$((failed + 1))
		echo "FAIL $label: $action failed"
		return
	fi
	if ! in_rx ip link show va >/dev/null 2>&1 && ! add_pair; then
		failed=$((failed + 1))
		echo "FAIL $label: cannot create va/vb again"
		return
	fi
	echo "# $label: the disruption took $(since "$t0")"
	run_case "$label, then exact counts" packet --prog map --scenario single
}

# One run of xsk_tx on ta/tb: tx_run LABEL ARGS...
tx_run() {
	local label=$1 rc t0=$EPOCHREALTIME
	shift
	run_id=$((run_id + 1))
	echo "=== $label"
	in_rx taskset -c 0 "$xsk_tx" --ifname ta --peer tb --run-id "$run_id" "$@"
	rc=$?
	case "$rc" in
	0) passed=$((passed + 1)); echo "PASS $label $(since "$t0")" ;;
	*)
		failed=$((failed + 1))
		va_stats_delta "$va0" "$va1"
		echo "FAIL $label (status $rc) $(since "$t0")"
		;;
	esac
}

# The transmit cases' pair: ta, whose socket sends, and tb, a slow peer.
# tb's NAPI in a thread on CPU 1, the sender on CPU 0: tb cannot keep up,
# its ring fills (in softirq on one CPU the two polls would take turns, and
# the ring never would). IPv6 is off in the namespace: no frame of tb's
# stack runs ta's NAPI, which would hide a transmit that nothing wakes up.
# Sets xsk_tx (tx_run's program); where there is no xsk_tx or no pair,
# counts the case ($1, its label) skipped or failed and returns non-zero.
tx_pair() {
	local label=$1
	xsk_tx=$(dirname "$xsk_rx")/xsk_tx
	if [ ! -x "$xsk_tx" ]; then
		echo "SKIP $label: no $xsk_tx"
		skipped=$((skipped + 1))
		return 1
	fi
	in_rx ip link add ta type veth peer name tb &&
		in_rx ip link set ta up && in_rx ip link set tb up &&
		in_rx ethtool -K tb gro on >/dev/null &&
		in_rx sh -c 'echo 1 > /sys/class/net/tb/threaded' &&
		taskset -p -c 1 "$(pgrep '^napi/tb-')" >/dev/null && return 0
	failed=$((failed + 1))
	echo "FAIL $label: cannot create ta/tb with a NAPI thread on CPU 1"
	in_rx ip link del ta 2>/dev/null
	return 1
}

tx_case() {
	local label="zc: zero-copy Tx into a slow peer (every descriptor completed, every frame delivered)"
	tx_pair "$label" || return
	tx_run "$label" --count 8192
	# The socket above was bound after ta's program, whose NAPI went with
	# it: the next socket is bound while that NAPI's id names nothing, and
	# sends a few frames at a time, each batch needing a wakeup or a busy
	# poll of the live NAPI (layer c keeps the pool naming that one, and
	# the socket takes its id with its first sendmsg() after the program
	# is attached)
	tx_run "zc: zero-copy Tx from a socket bound as DPDK binds it, on a veth that had a socket before" \
		--count 512 --spin 100 --as-dpdk --in-flight 8 --timeout 30
	# The NAPI replaced under a bound socket that is woken up to transmit
	# (no preferred busy polling): the wakeup schedules the new NAPI. A
	# socket preferring busy polling keeps the first id it saw, on 6.12,
	# and its transmit waits once that NAPI is gone (kernel/README.md).
	tx_run "zc: zero-copy Tx goes on when the queue's NAPI is replaced under the socket" \
		--count 512 --spin 100 --in-flight 8 --replace-prog --timeout 30
	# No program on tb: its NAPI (GRO) gives the frames to its stack; the
	# xdp_frames of patch 13 become skbs there, counted in rx_packets.
	# Then frames too long for an xdp_frame in a page (MTU 3800, 3814
	# bytes) go to tb's ring as skbs, and with GRO off to its backlog.
	tx_run "zc: zero-copy Tx to the peer's stack (xdp_frames into skbs)" \
		--count 512 --as-dpdk --in-flight 8 --peer-stack --len 1000 --timeout 30
	# An application that wakes the kernel once and then busy waits on
	# the completion ring: what the full peer held back goes when the
	# peer drains its ring, as a NIC's Tx completion interrupt would go on
	tx_run "zc: zero-copy Tx held back by a full peer goes on when the peer drains (one wakeup in all)" \
		--count 1024 --kick-once --timeout 10
	# No program on ta and GRO off: its queue has no NAPI poll, and the
	# socket transmits as a copy-mode one would (the wakeups transmit)
	tx_run "zc: zero-copy Tx with no XDP program on the veth (no NAPI poll)" \
		--count 512 --no-prog --in-flight 64 --timeout 10
	if in_rx ip link set ta mtu 3800 && in_rx ip link set tb mtu 3800; then
		tx_run "zc: zero-copy Tx of frames longer than an xdp_frame in a page (as skbs)" \
			--count 512 --as-dpdk --in-flight 8 --peer-stack --len 3814 --timeout 30
		in_rx ethtool -K tb gro off >/dev/null
		tx_run "zc: zero-copy Tx to a peer without NAPI (its backlog)" \
			--count 512 --as-dpdk --in-flight 8 --peer-stack --len 3814 --timeout 30
	else
		failed=$((failed + 1))
		echo "FAIL zc: cannot set ta/tb's MTU to 3800"
	fi
	in_rx ip link del ta
}

# Copy-mode transmit (xsk_tx --copy) on the same pair
tx_copy_case() {
	local label="$mode: copy-mode Tx into a slow peer (every descriptor completed once, every frame delivered or counted)"
	tx_pair "$label" || return
	tx_run "$label" --copy --count 8192
	tx_run "$mode: copy-mode Tx, a few frames in flight at a time" \
		--copy --count 2048 --spin 100 --in-flight 5 --timeout 60
	tx_run "$mode: copy-mode Tx of 1500-byte frames" \
		--copy --count 2048 --spin 100 --len 1500 --timeout 60
	in_rx ip link del ta
}

if [ "$mode" = drv ]; then
	tx_copy_case
fi

if [ "$mode" = zc ]; then
	DURING=ping_through_pool run_case "zc: XDP_PASS frames reach the stack intact while a pool is bound" \
		packet --prog map --scenario single
	DURING=pass_offloaded run_case \
		"zc: XDP_PASS keeps a partial checksum (TCP, UDP) and an out-of-band VLAN tag" \
		packet --prog map --scenario single
	DURING=jumbo_through_pool run_case \
		"zc: frames longer than a chunk take the copy-mode path (XDP_PASS at MTU 3000)" \
		packet --prog map --scenario single
	in_rx ip link set va mtu 1500
	in_tx ip link set vb mtu 1500
	COUNT=$REFUSED_COUNT DURING=refused_mark AFTER=refused_check run_case \
		"zc: redirects lo refuses give their buffer back and free their copy" \
		packet --prog map --scenario refused --other-ifname lo
	# Bursts of 64 alternating between the pool's socket and one on vc,
	# which refuses va's frames: after a few batches of one, the poll
	# redirects frame by frame (xdp_do_redirect()), and the buffers of the
	# 10000 refused frames, five times the UMEM's, must all go back to the
	# pool for the 10000 others to arrive
	COUNT=20000 run_case "zc: redirects a socket of another device refuses give their buffer back" \
		burst --prog map --scenario foreign --other-ifname vc
	COUNT=20000 SENDER=send_spread run_case \
		"zc: a socket closed and bound again and again while frames arrive" \
		packet --prog map --scenario churn
	run_case "zc: bpf_redirect_map, one socket, after the churn" packet --prog map --scenario single
	RX_IF=vm TX_IF=vn SENDER=send_split run_case \
		"zc: a pool on queue 0 of a two-queue veth, queue 1 in copy mode" xdp \
		--prog map --scenario multiqueue
	disrupt_case "zc: link down/up under traffic" flap_va
	disrupt_case "zc: peer deleted under traffic" delete_peer
	tx_case
	warnings=$(dmesg | tail -n +"$((dmesg_start + 1))" |
		grep -E 'WARNING:|BUG:|Oops|KASAN|UBSAN|circular locking|suspicious RCU|lockdep')
	if [ -n "$warnings" ]; then
		echo "$warnings" | head -n 20 | sed 's/^/# dmesg: /'
		failed=$((failed + 1))
		echo "FAIL zc: kernel warnings in the log"
	else
		passed=$((passed + 1))
		echo "PASS zc: no kernel warning in the log"
	fi
fi

echo "$mode: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] || exit 1
[ "$passed" -gt 0 ] || exit 77
exit 0
