#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Multi-segment Tx: the true segment limits reported, chains sent, a chain too long dropped and counted.

testpmd txonly with multi-segment frames (`--txpkts=a,b,c`, the
MULTI_SEGS offload), to the veth peer. The offload binds the socket with
XDP_USE_SG (AF_XDP multi-buffer, Linux 6.6) only where the interface's
frames do not fit one chunk (issue 26): then chains go out in place, a
descriptor a segment; on a socket bound for one chunk (MTU 1500 here), each
is copied into one UMEM mbuf.
1. `show port info 0` reports the segments a packet may have: the kernel's
   MAX_SKB_FRAGS + 1 with multi-buffer, 65535 without (a chain is copied
   whatever its segments).
2. Chains of SHORT (128 bytes in 3 segments) reach the peer: its rx_bytes
   grow by 128 per frame; the socket is bound for one chunk (state
   frame.multi_buffer = no) and every frame sent was a copy (tx_q0_copies,
   no tx_q0_multi_buffer).
3. Chains of LONG (2148 bytes: more than the port's MTU of 1500, and than a
   fresh 2176-byte mbuf holds after its 128-byte headroom), with the peer's
   MTU raised so that it would take them: none reaches the peer, each is
   counted (tx_q0_dropped, TX-errors); a copy would have run past the mbuf.
4. Short chains again: they still reach the peer.
5. With multi-buffer: the port stopped, its interface's MTU raised with
   `ip link` to BIG_MTU, whose frames span two chunks; started, the socket
   is bound multi-buffer (frame.multi_buffer = yes, frames-span-chunks) and
   the LONG chains now reach the peer whole, in place (tx_q0_multi_buffer,
   no copies).
"""

import time

from afxdp_test import env, kernel, runner, state, testpmd, topo

SHORT = [64, 32, 32]
LONG = [1024, 1024, 100]
MULTI_SEGS = 0x8000          # RTE_ETH_TX_OFFLOAD_MULTI_SEGS
WINDOW = 1.0                 # seconds of sending (not a rate measurement)
SETTLE = 0.5
BIG_MTU = 3000               # frames of 3014 bytes: two chunks of 2176-byte mbufs


def seg_limits():
    if kernel.multi_buffer():
        with open("/proc/sys/net/core/max_skb_frags") as f:
            n = str(int(f.read()) + 1)
    else:
        n = "65535"
    return {"Max segment number per packet": n, "Max segment number per MTU/TSO": n}


def peer_counts(peer):
    """(rx_packets, rx_bytes) from sysfs: consistent only while nothing arrives."""
    return peer.sysfs_stat("rx_packets"), peer.sysfs_stat("rx_bytes")


def send_for_a_while(tp, peer, segs):
    """Returns (frames, bytes) the peer received, and testpmd's counters."""
    tp.cmd("set txpkts %s" % ",".join(map(str, segs)))
    tp.cmd("clear port stats all")
    before = peer_counts(peer)
    tp.cmd("start")
    time.sleep(WINDOW)
    tp.cmd("stop")
    time.sleep(SETTLE)
    after = peer_counts(peer)
    return (after[0] - before[0], after[1] - before[1]), tp.port_stats(0), tp.xstats(0)


def short_chains(t, tp, peer, when):
    (frames, nbytes), st, xs = send_for_a_while(tp, peer, SHORT)
    size = sum(SHORT)
    t.check(frames > 0, "%d-byte frames in %d segments reach the peer (%s): %d"
            % (size, len(SHORT), when, frames))
    t.equal(nbytes, frames * size, "the peer's rx_bytes == %d x frames (%s)" % (size, when))
    if not env.is_stock():
        t.equal(state.read(tp).get("frame.multi_buffer"), "no",
                "the socket bound for one chunk at MTU 1500 (state frame.multi_buffer, %s)"
                % when)
    t.check(xs.get("tx_q0_copies", 0) >= st["TX-packets"] > 0 and
            xs.get("tx_q0_multi_buffer", 0) == 0,
            "each chain sent was a copy into one chunk (%s): tx_q0_copies %s, "
            "tx_q0_multi_buffer %s, TX-packets %d" % (when, xs.get("tx_q0_copies"),
                                                     xs.get("tx_q0_multi_buffer"),
                                                     st["TX-packets"]))
    t.equal(st["TX-errors"], 0, "TX-errors (%s)" % when)


def long_chains_multi_buffer(t, tp, port, peer):
    """Step 5: the interface's MTU spans chunks: bound multi-buffer, chains in place."""
    tp.cmd("port stop 0")
    port.set_mtu(BIG_MTU)
    peer.ip("link", "set", "dev", peer.name, "mtu", str(BIG_MTU))
    out = tp.cmd("port start 0")
    t.check("Fail to start port" not in out, "port start with %s at MTU %d" % (port.name,
                                                                             BIG_MTU), out)
    st = state.read(tp)
    t.equal((st.get("frame.multi_buffer"), st.get("frame.multi_buffer.reason"),
             state.queue_keys(st, 0).get("multi_buffer")), ("yes", "frames-span-chunks", "yes"),
            "interface MTU %d, multi-segment Tx: frame.multi_buffer, reason, "
            "queue.0.multi_buffer" % BIG_MTU)
    (frames, nbytes), st, xs = send_for_a_while(tp, peer, LONG)
    size = sum(LONG)
    t.check(frames > 0, "%d-byte chains reach the peer at MTU %d: %d" % (size, BIG_MTU, frames))
    t.equal(nbytes, frames * size, "the peer's rx_bytes == %d x frames" % size)
    t.check(xs.get("tx_q0_multi_buffer", 0) >= st["TX-packets"] > 0 and
            xs.get("tx_q0_copies", 0) == 0,
            "each chain went in place as several descriptors: tx_q0_multi_buffer %s, "
            "tx_q0_copies %s, TX-packets %d" % (xs.get("tx_q0_multi_buffer"),
                                               xs.get("tx_q0_copies"), st["TX-packets"]))
    t.equal((st["TX-errors"], xs.get("tx_q0_dropped")), (0, 0), "TX-errors, tx_q0_dropped")


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        app = ["--txpkts=%s" % ",".join(map(str, SHORT)), "--eth-peer=0,%s" % peer.mac,
               "--tx-offloads=0x%x" % MULTI_SEGS]
        with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="txonly",
                             app_extra=app) as tp:
            info = tp.port_info(0)
            limits = seg_limits()
            t.equal({k: info.get(k) for k in limits}, limits,
                    "the Tx segment limits in show port info")
            short_chains(t, tp, peer, "first")

            peer.ip("link", "set", "dev", peer.name, "mtu", str(sum(LONG)))
            (frames, _), st, xs = send_for_a_while(tp, peer, LONG)
            env.log("long chains: peer got %d, TX-packets %d, TX-errors %d, tx_q0_dropped %s"
                    % (frames, st["TX-packets"], st["TX-errors"], xs.get("tx_q0_dropped")))
            t.equal(frames, 0, "%d-byte chains reaching the peer" % sum(LONG))
            t.check(st["TX-errors"] > 0 and xs.get("tx_q0_dropped") == st["TX-errors"],
                    "they are dropped and counted: TX-errors %d, tx_q0_dropped %s"
                    % (st["TX-errors"], xs.get("tx_q0_dropped")))
            peer.ip("link", "set", "dev", peer.name, "mtu", "1500")

            short_chains(t, tp, peer, "after the long ones")
            if kernel.multi_buffer() and not env.is_stock():
                long_chains_multi_buffer(t, tp, port, peer)
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "tx_segments", __doc__.splitlines()[0])
