#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""txonly: testpmd's generated frames of a fixed size reach the veth peer.

testpmd `--forward-mode=txonly --txpkts=FRAME_SIZE` (one segment, addressed
to the peer's MAC) transmits for WINDOW seconds. Checks:
  - the peer's rx_packets (sysfs) grows during the window, > 0;
  - the first SNIFF frames a raw socket on the peer sees are FRAME_SIZE
    bytes, IPv4, from the port's MAC to the peer's; once testpmd has
    stopped, the peer's rx_bytes have grown by exactly FRAME_SIZE per frame
    (compared only when quiet: the two sysfs files are not read at once);
  - TX-packets of port 0 > 0, and exactly what the peer received overall,
    plus what the veth pair dropped on the way (d0's tx_dropped, the peer's
    rx_dropped: each frame sent is counted once, and reached the peer or a
    drop counter); no TX-errors. Nothing else is sent on d0: it has no
    address and IPv6 is off in the test's namespaces.
No rate is asserted.
"""

import time

from afxdp_test import env, runner, testpmd, topo, traffic

FRAME_SIZE = 128         # testpmd txonly: Ethernet + IPv4 + UDP + payload, no FCS
WINDOW = 1.0             # seconds of counting at the peer (not a rate measurement)
SNIFF = 20
ETH_P_IP = 0x0800
SETTLE = 0.5             # after stop: frames in flight reach the peer


def peer_counts(peer):
    """(rx_packets, rx_bytes) from sysfs: consistent only while nothing arrives."""
    return peer.sysfs_stat("rx_packets"), peer.sysfs_stat("rx_bytes")


def drops(port, peer):
    """Frames the veth pair dropped between port and peer, so far."""
    return port.sysfs_stat("tx_dropped") + peer.sysfs_stat("rx_dropped")


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        app = ["--txpkts=%d" % FRAME_SIZE, "--eth-peer=0,%s" % peer.mac]
        with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="txonly",
                             app_extra=app) as tp:
            start_pkts, start_bytes = peer_counts(peer)
            start_drops = drops(port, peer)
            with traffic.Sniff(peer, SNIFF) as sniff:
                tp.cmd("start")
                p0 = peer.sysfs_stat("rx_packets")
                time.sleep(WINDOW)
                p1 = peer.sysfs_stat("rx_packets")
            tp.cmd("stop")
            time.sleep(SETTLE)
            end_pkts, end_bytes = peer_counts(peer)
            dropped = drops(port, peer) - start_drops
            st = tp.port_stats(0)

            window = p1 - p0
            env.log("peer %s: %d frames in the %.1fs window; %d in all; port 0 TX-packets %d"
                    % (peer, window, WINDOW, end_pkts - start_pkts, st["TX-packets"]))
            t.check(window > 0, "the peer received frames during the window: %d" % window)
            got = sniff.result
            t.equal(len(got), SNIFF, "frames seen by a raw socket on the peer")
            t.equal(sorted({f["length"] for f in got}), [FRAME_SIZE],
                    "lengths of the frames on the peer")
            t.equal(sorted({f["ethertype"] for f in got}), [ETH_P_IP],
                    "ethertypes of the frames on the peer")
            t.equal(sorted({(f["src"], f["dst"]) for f in got}), [(port.mac, peer.mac)],
                    "source and destination MAC of the frames on the peer")
            total = end_pkts - start_pkts
            t.equal(end_bytes - start_bytes, total * FRAME_SIZE,
                    "peer rx_bytes overall == %d bytes x %d frames" % (FRAME_SIZE, total))
            t.check(st["TX-packets"] > 0, "port 0 TX-packets: %d" % st["TX-packets"])
            t.equal(st["TX-packets"], total + dropped,
                    "port 0 TX-packets == frames the peer received (%d) + dropped on the "
                    "way (%d)" % (total, dropped))
            t.equal(st["TX-bytes"], st["TX-packets"] * FRAME_SIZE,
                    "port 0 TX-bytes == %d x TX-packets" % FRAME_SIZE)
            t.equal(st["TX-errors"], 0, "port 0 TX-errors")
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "txonly", __doc__.splitlines()[0])
