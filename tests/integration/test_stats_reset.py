#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""stats reset: `clear port stats all` zeroes every counter, and counting restarts.

1. N1 frames received: RX-packets == N1.
2. Forwarding stopped, a burst far larger than the socket's rings: the kernel
   drops what does not fit, so RX-missed > 0 (the kernel's XDP_STATISTICS).
3. Forwarding restarted (the queued frames are received), then `clear port
   stats all`: RX/TX packets, bytes, missed, errors and nombuf all read 0,
   and still 0 a moment later (the missed count comes from the kernel and
   must be reset by an offset, not re-read).
4. N2 frames: RX-packets == N2, RX-bytes == their sizes, RX-missed == 0.
"""

import time

from afxdp_test import runner, testpmd, topo, traffic

SIZES = traffic.SIZES
FIRST = 300
SECOND = 240
# Far more than the Rx and fill rings hold (2048 descriptors by default each).
OVERFLOW = 12000
COUNTERS = ["RX-packets", "RX-missed", "RX-bytes", "RX-errors", "RX-nombuf",
            "TX-packets", "TX-errors", "TX-bytes"]


def reset_scenario(t, tp, peer, port, reset, who):
    """Steps 1-4 with `reset()` as the reset, by `who`; forwarding stopped at the end.
    Returns the stats after step 4."""
    tp.cmd("start")
    traffic.send(peer, port.mac, FIRST, SIZES, stream="first")
    st = tp.wait_rx(0, FIRST)
    t.equal(st["RX-packets"], FIRST, "RX-packets before the reset")

    tp.cmd("stop")
    traffic.send(peer, port.mac, OVERFLOW, [60], stream="overflow")
    time.sleep(0.5)
    st = tp.port_stats(0)
    t.check(st["RX-missed"] > 0, "RX-missed after %d frames with nobody polling: %d"
            % (OVERFLOW, st["RX-missed"]))
    tp.cmd("start")
    # Drained once every frame sent is either received or missed.
    st = tp.wait_rx(0, FIRST + OVERFLOW)
    t.equal(st["RX-packets"] + st["RX-missed"], FIRST + OVERFLOW,
            "RX-packets + RX-missed once the queued frames are drained")
    tp.cmd("stop")

    reset()
    st = tp.port_stats(0)
    t.equal({k: st.get(k) for k in COUNTERS}, {k: 0 for k in COUNTERS},
            "all counters right after %s" % who)
    tp.cmd("start")
    time.sleep(1)
    st = tp.port_stats(0)
    t.equal({k: st.get(k) for k in COUNTERS}, {k: 0 for k in COUNTERS},
            "all counters 1 s after %s (nothing sent)" % who)

    traffic.send(peer, port.mac, SECOND, SIZES, stream="second")
    st = tp.wait_rx(0, SECOND)
    t.equal(st["RX-packets"], SECOND, "RX-packets after the reset")
    t.equal(st["RX-bytes"], traffic.expected_bytes(SECOND, SIZES), "RX-bytes after the reset")
    t.equal(st["RX-missed"], 0, "RX-missed after the reset")
    tp.cmd("stop")
    return st


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly") as tp:
            reset_scenario(t, tp, peer, port, lambda: tp.cmd("clear port stats all"),
                           "`clear port stats all`")
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "stats_reset", __doc__.splitlines()[0])
