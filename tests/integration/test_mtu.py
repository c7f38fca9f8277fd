#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""MTU: `port config mtu 0 N` reaches the kernel interface; out of range is refused.

Each accepted MTU must show on the kernel interface (`ip link`) and in
`show port info 0`; each refused one must leave both unchanged and make
testpmd say so. The largest MTU the port takes as it is configured (no Rx
scatter: frames of one mbuf), learnt from the refusal of a too-large value
(ethdev names the device's maximum; our driver, with multi-buffer, the MTU
one chunk holds and the scatter offload a larger one needs), must itself be
accepted: a maximum the kernel then rejects is a wrong maximum, and so is one
whose full-size frames (MTU + 14 bytes of Ethernet header) do not arrive (up
to the largest frame the veth peer can send: with XDP on the port, veth caps
the peer's MTU). Frames sent after the changes still arrive. Larger MTUs,
with scatter, are test_jumbo's.
"""

import re

from afxdp_test import env, runner, testpmd, topo, traffic

# Below any driver's maximum with testpmd's default 2176-byte mbufs; values
# above 1500 are covered by the advertised maximum, learnt below.
ACCEPTED = [1400, 1280, 1500]
# Below ethdev's minimum (68, RTE_ETHER_MIN_MTU), and far above what one
# UMEM chunk (at most a page) holds.
REFUSED = [67, 60000]
# testpmd's and ethdev's refusal messages (app/test-pmd/config.c, rte_ethdev.c)
REFUSAL = re.compile(r"MTU \(\d+\) [<>] device (min|max) MTU|Frame size \(\d+\) [<>]|"
                     r"Set MTU failed|not in valid range")
# The largest MTU without scatter: ethdev's device maximum (a driver without
# multi-buffer), or our driver's MTU of one chunk, named with the scatter
# offload that a larger one needs.
ADVERTISED_MAX = re.compile(r"device max MTU \((\d+)\)|an MTU of (\d+)\): enable the Rx scatter")
# Whether the advertised maximum must be accepted, and then carry full-size
# frames (with testpmd's default mbufs: 2176 bytes).
CHECK_ADVERTISED_MAX = True
FRAMES_AFTER = 100
FRAMES_AT_MAX = 50
SIZES = [64, 1400]


def set_mtu(tp, mtu):
    return tp.cmd("port config mtu 0 %d" % mtu).strip()


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly") as tp:
            t.equal(tp.port_info(0).get("MTU"), str(port.mtu()),
                    "MTU at start (testpmd == kernel %d)" % port.mtu())
            for mtu in ACCEPTED:
                out = set_mtu(tp, mtu)
                t.check(not REFUSAL.search(out), "port config mtu 0 %d accepted" % mtu, out)
                t.equal(port.mtu(), mtu, "kernel MTU of %s after setting %d" % (port.name, mtu))
                t.equal(tp.port_info(0).get("MTU"), str(mtu), "show port info MTU after %d" % mtu)

            advertised = None
            for mtu in REFUSED:
                before = port.mtu()
                out = set_mtu(tp, mtu)
                t.check(bool(REFUSAL.search(out)), "port config mtu 0 %d refused: %s"
                        % (mtu, out.replace("\n", " ")))
                t.equal(port.mtu(), before, "kernel MTU unchanged after refusing %d" % mtu)
                t.equal(tp.port_info(0).get("MTU"), str(before),
                        "show port info MTU unchanged after refusing %d" % mtu)
                m = ADVERTISED_MAX.search(out)
                if m:
                    advertised = int(m.group(1) or m.group(2))

            if CHECK_ADVERTISED_MAX:
                if t.check(advertised is not None, "the refusal names the device's max MTU: %s"
                           % advertised):
                    out = set_mtu(tp, advertised)
                    t.check(not REFUSAL.search(out), "the advertised max MTU %d is accepted"
                            % advertised, out)
                    t.equal(port.mtu(), advertised, "kernel MTU after setting the advertised max")
                    # Full-size frames at that MTU, sent by the peer. With an XDP
                    # program on the port, veth caps the PEER's MTU at what one
                    # page holds (kernel veth_xdp_set): frames beyond that cannot
                    # be sent here at all, so the check stops at the cap.
                    peer_max = int(peer.link().get("max_mtu", advertised))
                    send_mtu = min(advertised, peer_max)
                    if send_mtu < advertised:
                        env.log("note: the peer %s can send at most MTU %d (veth's cap with XDP "
                                "on its peer); frames of the advertised %d are not tested"
                                % (peer.name, peer_max, advertised))
                    peer.ip("link", "set", "dev", peer.name, "mtu", str(send_mtu))
                    tp.cmd("start")
                    tp.cmd("clear port stats all")
                    size = send_mtu + 14
                    traffic.send(peer, port.mac, FRAMES_AT_MAX, [size], stream="max")
                    st = tp.wait_rx(0, FRAMES_AT_MAX)
                    got = (st["RX-packets"], st["RX-bytes"])
                    want = (FRAMES_AT_MAX, FRAMES_AT_MAX * size)
                    detail = ""
                    if got != want:
                        k = port.ethtool_stats()
                        detail = ("RX-missed %d, RX-errors %d; kernel: rx_queue_0_xdp_packets %s, "
                                  "xdp_redirect %s" % (st["RX-missed"], st["RX-errors"],
                                                       k.get("rx_queue_0_xdp_packets"),
                                                       k.get("rx_queue_0_xdp_redirect")))
                    t.check(got == want, "%d-byte frames (MTU %d) received at port MTU %d "
                            "(packets, bytes): %s%s" % (
                                size, send_mtu, advertised, got,
                                "" if got == want else " (expected %s)" % (want,) + t.stock_note(
                                    "it advertises the max MTU for page-sized mbufs, testpmd's "
                                    "default 2176-byte mbufs hold less, and the kernel drops "
                                    "the frames (RX-missed)")), detail)
                    tp.cmd("stop")
                    peer.ip("link", "set", "dev", peer.name, "mtu", "1500")
                    set_mtu(tp, 1500)
                    t.equal(port.mtu(), 1500, "kernel MTU back to 1500")

            tp.cmd("clear port stats all")
            tp.cmd("start")
            traffic.send(peer, port.mac, FRAMES_AFTER, SIZES)
            st = tp.wait_rx(0, FRAMES_AFTER)
            t.equal(st["RX-packets"], FRAMES_AFTER, "RX-packets after the MTU changes")
            tp.cmd("stop")
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "mtu", __doc__.splitlines()[0])
