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
  2. The cycles, `stop`, `port stop 0`, `port start 0`, `start` each, go to
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
import re
import time

from afxdp_test import env, runner, testpmd, topo, traffic

CYCLES = int(os.environ.get("AFXDP_SOAK_CYCLES") or 500)
# Twice the fill ring (2048) with room for the lcore caches: each start
# registers the pool as the UMEM, pinning its pages, which costs by its size.
MBUFS = 4608
BATCH = 50                   # cycles per file given to `load`
BATCH_TIMEOUT = 300          # seconds per file: only against a hang
BACKGROUND_RATE = 1000       # frames/s
BACKGROUND_SIZES = [128, 1000]
SIZES = [60, 512, 1500]
FRAMES = 150                 # raw frames after the soak: fewer than a ring holds
CYCLE_COMMANDS = ("stop", "port stop 0", "port start 0", "start")
# What testpmd prints for each stop and for each successful start (`load`
# does not echo the commands it reads).
STOPPED = re.compile(r"^Stopping ports\.\.\.$", re.M)
STARTED = re.compile(r"^Port 0: [0-9A-F]{2}(:[0-9A-F]{2}){5}$", re.M)


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


def run_batch(tp, path, n):
    """n cycles through one `load`; (seconds, failed starts, stops, starts)."""
    with open(path, "w") as f:
        f.write("\n".join(CYCLE_COMMANDS * n) + "\n")
    t0 = time.monotonic()
    out = tp.cmd("load %s" % path, timeout=BATCH_TIMEOUT)
    took = time.monotonic() - t0
    return (took, out.count("Fail to start port"), len(STOPPED.findall(out)),
            len(STARTED.findall(out)))


def soak(t, tp):
    path = os.path.join(env.run_dir(), "soak-cycles.txt")
    done, failed, seconds = 0, 0, 0.0
    while done < CYCLES:
        n = min(BATCH, CYCLES - done)
        took, fail, stops, starts = run_batch(tp, path, n)
        done += n
        failed += fail
        seconds += took
        env.log("cycles %d..%d: %.1f s (%.2f s a cycle), %d failed starts"
                % (done - n + 1, done, took, took / n, fail))
        t.require(stops == n and starts == n, "cycles %d..%d: testpmd stopped the port "
                  "%d times and started it %d times, of %d" % (done - n + 1, done, stops,
                                                              starts, n))
    env.log("%d cycles in %.1f s: %.2f s a cycle" % (CYCLES, seconds, seconds / CYCLES))
    t.equal(failed, 0, "port starts that failed in %d stop/start cycles" % CYCLES)


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
