#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""stop/start soak: CYCLES port stop/start cycles under traffic; no mbuf lost, frames still arrive.

testpmd rxonly on one veth port, the peer sending a paced background stream
(BACKGROUND_RATE per second) through all of it, so that at many stops the
fill ring and the Rx ring hold frames the kernel has written (in zero-copy
mode, the vm suite's vm-zc/soak: written into the UMEM by the kernel's veth,
which is what the driver must reclaim at stop).

  1. Stopped once before the cycles: every mbuf of the pool is available
     (`dump_mempool`, common pool + lcore caches), exactly the pool's size.
  2. The cycles (afxdp_test.cycles, the restart tests' one loop), `stop`,
     `port stop 0`, `port start 0`, `start` each, go to
     testpmd in files of BATCH cycles read by its `load` command (one
     round trip per file, not four per cycle: under an emulated CPU that is
     what makes hundreds affordable); testpmd runs with --disable-link-check
     as an application would (no link wait after each command). No start
     may fail ("Fail to start port"); testpmd's output must show each stop
     and each start.
  3. Stopped again after the cycles: the available count is what it was in
     1, exactly (an mbuf lost at any stop would be missing now: in zero-copy
     mode before the driver reclaimed, 2000 a cycle went).
  4. Started: background frames still arrive, then with the background ended
     and the port quiet FRAMES raw frames arrive exactly.

Cycles: AFXDP_SOAK_CYCLES, default 500 (what issue 13 asks). Timings are
logged (seconds per cycle), never asserted.
"""

import os

from afxdp_test import cycles, env, runner, testpmd, topo, traffic

CYCLES = int(os.environ.get("AFXDP_SOAK_CYCLES") or 500)
# Twice the fill ring (2048) with room for the lcore caches: each start
# registers the pool as the UMEM, pinning its pages, which costs by its size.
MBUFS = 4608
BATCH = 50                   # cycles per file given to `load`
BACKGROUND_RATE = 1000       # frames/s
BACKGROUND_SIZES = [128, 1000]
SIZES = [60, 512, 1500]
FRAMES = 150                 # raw frames after the soak: fewer than a ring holds


def rx(tp):
    return tp.port_stats(0)["RX-packets"]


def stopped_avail(tp, pool):
    """Available mbufs with forwarding and the port stopped; started again after."""
    tp.cmd("stop")
    tp.cmd("port stop 0")
    mp = tp.mempool(pool)
    tp.cmd("port start 0")
    tp.cmd("start")
    return mp


def soak(t, tp):
    res = cycles.run(tp, CYCLES, forwarding=True, batch=BATCH)
    env.log("%s: %.2f s a cycle" % (res, res.seconds / CYCLES))
    t.equal((res.stops, res.starts), (CYCLES, CYCLES), "testpmd stopped the port and started "
            "it (times), of %d cycles" % CYCLES)
    t.equal(res.failed, 0, "port starts that failed in %d stop/start cycles" % CYCLES)


def main(t):
    env.log("%d stop/start cycles (AFXDP_SOAK_CYCLES)" % CYCLES)
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly",
                             total_mbufs=MBUFS, app_extra=["--disable-link-check"]) as tp:
            pool = tp.rx_pool()
            tp.cmd("start")
            with traffic.Background(peer, port.mac, BACKGROUND_RATE, kind="udp",
                                    sizes=BACKGROUND_SIZES, stream="soak",
                                    max_seconds=3600):
                t.require(tp.wait_rx_growth(rx(tp)) > 0, "background frames arrive before "
                          "the soak")
                before = stopped_avail(tp, pool)
                env.log("pool %s: %d mbufs; stopped before the soak: %d available"
                        % (pool, before["size"], before["avail"]))
                t.equal(before["avail"], before["size"], "mbufs available while stopped, "
                        "before the soak")
                soak(t, tp)
                base = rx(tp)
                t.check(tp.wait_rx_growth(base) > base, "background frames arrive after the "
                        "soak")
                after = stopped_avail(tp, pool)
            t.equal(after["avail"], before["avail"], "mbufs available while stopped after "
                    "%d cycles (common pool %d + caches %d), as before the soak"
                    % (CYCLES, after["common_pool_count"], after["total_cache_count"]))
            before_rx = tp.wait_rx_quiet()
            traffic.send(peer, port.mac, FRAMES, SIZES, stream="after-soak")
            st = tp.wait_rx(0, before_rx + FRAMES)
            t.equal(st["RX-packets"] - before_rx, FRAMES, "RX-packets of the frames sent "
                    "after the soak")
            env.log("RX-packets %d, RX-missed %d, RX-nombuf %d" % (
                st["RX-packets"], st["RX-missed"], st["RX-nombuf"]))
            t.equal(st["RX-nombuf"], 0, "RX-nombuf")
            tp.cmd("stop")
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "soak", __doc__.splitlines()[0])
