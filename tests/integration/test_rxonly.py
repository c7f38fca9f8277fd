#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rxonly: testpmd receives exactly the N frames injected, of several sizes.

A veth pair: the port end in netns `dut` (AF_XDP, testpmd rxonly), the peer in
netns `gen`, where a raw socket sends FRAMES_PER_SIZE frames of each size.
Checks, with `set verbose 1`, that every frame arrives with our addresses,
ethertype and its exact length, then RX-packets == N, RX-bytes == the sum of
the sizes, and no miss, error or mbuf shortage; then testpmd quits with 0 and
leaves no XDP program behind.
"""

import collections

from afxdp_test import frames, runner, testpmd, topo, traffic

SIZES = traffic.SIZES
# Fewer frames than one ring holds (2048 descriptors by default), so none can
# be lost however late the forwarding core polls.
FRAMES_PER_SIZE = 100
VERBOSE_LINE = (r"src=([0-9A-Fa-f:]{17}) - dst=([0-9A-Fa-f:]{17}) - pool=\S+ - "
                r"type=(0x[0-9a-f]+) - length=(\d+)")


def main(t):
    count = FRAMES_PER_SIZE * len(SIZES)
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly") as tp:
            info = tp.port_info(0)
            t.equal(info.get("Link status"), "up", "link status at start")
            tp.cmd("set verbose 1")
            tp.cmd("start")
            traffic.send(peer, port.mac, count, SIZES)
            seen = tp.wait_output(VERBOSE_LINE, count)
            tp.cmd("stop")
            tp.cmd("set verbose 0")

            t.equal(len(seen), count, "frames shown by `set verbose 1`")
            src, dst = peer.mac, port.mac
            ours = [s for s in seen if s[0].lower() == src and s[1].lower() == dst
                    and int(s[2], 16) == frames.ETH_P_TEST]
            t.equal(len(ours), len(seen), "frames with our MAC addresses and ethertype 0x%04x"
                    % frames.ETH_P_TEST)
            lengths = collections.Counter(int(s[3]) for s in seen)
            want = collections.Counter(frames.size_of(i, SIZES) for i in range(count))
            t.equal(dict(sorted(lengths.items())), dict(sorted(want.items())),
                    "frame lengths received (length: frames)")

            st = tp.port_stats(0)
            t.equal(st["RX-packets"], count, "RX-packets")
            t.equal(st["RX-bytes"], traffic.expected_bytes(count, SIZES), "RX-bytes")
            t.equal(st["RX-missed"], 0, "RX-missed")
            t.equal(st["RX-errors"], 0, "RX-errors")
            t.equal(st["RX-nombuf"], 0, "RX-nombuf")
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "rxonly", __doc__.splitlines()[0])
