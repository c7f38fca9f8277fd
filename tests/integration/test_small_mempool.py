#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""small mempool: fewer mbufs than the fill ring: runs with the shortfall counted once, loses none, recovers.

testpmd io forwarding on one veth port (frames go back out of it) with
`--total-num-mbufs=1100` (testpmd's least is 1025), against a fill ring of
2048 (testpmd's default descriptors):
  1. the port starts, with a warning naming the mempool, the fill ring and
     rx_nombuf; RX-nombuf is then exactly the slots the warning says stay
     empty;
  2. a second of idle polling (each retries the refill) adds nothing to
     RX-nombuf (it used to grow by 64 a poll);
  3. under load (LOAD frames as fast as a raw socket sends them, forwarded
     back): frames are forwarded; RX-nombuf stays within the fill ring's
     size (each slot is counted once per shortage, and this one never ends:
     the pool cannot fill the ring);
  4. `port stop 0`: every mbuf of the pool is available (`dump_mempool`);
     `port start 0`: FRAMES frames sent then all arrive;
Then testpmd again with its default pool (16384 mbufs): no warning, LOAD
frames all counted (RX-packets + RX-missed), RX-nombuf 0, every mbuf
available after `port stop 0`.
"""

import re
import time

from afxdp_test import dpdk_output, env, runner, testpmd, topo, traffic

SMALL_POOL = 1100
LOAD = 20000
LOAD_SIZES = [60]
FRAMES = 150
SIZES = [60, 512, 1500]
IDLE = 1.0                   # seconds of empty polls
QUIET = 0.5                  # seconds without a new frame: the load has drained
QUIET_DEADLINE = 20          # only against a hang
WARNING = re.compile(r"mempool (\S+) had (\d+) mbufs for a fill ring of (\d+): (\d+) slots "
                     r"stay empty \(counted once in rx_nombuf\)")


def wait_quiet(tp):
    last, since = tp.port_stats(0), time.monotonic()
    deadline = env.deadline(QUIET_DEADLINE)
    while time.monotonic() - since < QUIET and time.monotonic() < deadline:
        time.sleep(0.1)
        now = tp.port_stats(0)
        if (now["RX-packets"], now["RX-missed"]) != (last["RX-packets"], last["RX-missed"]):
            last, since = now, time.monotonic()
    return last


def all_back(t, tp, what):
    """port stop 0: every mbuf of the pool available."""
    tp.cmd("stop")
    tp.cmd("port stop 0")
    mp = tp.mempool(tp.rx_pool())
    t.equal(mp["avail"], mp["size"], "%s: mbufs available once the port is stopped (common "
            "pool %d + caches %d), of %d" % (what, mp["common_pool_count"],
                                            mp["total_cache_count"], mp["size"]))


def small_pool(t, net, port, peer, dut):
    vdev = "net_af_xdp0,iface=%s" % port.name
    with testpmd.TestPmd(dut, [vdev], fwd="io", total_mbufs=SMALL_POOL,
                         label="testpmd[%d mbufs]" % SMALL_POOL) as tp:
        log = tp.startup_output
        t.require("Fail to start port" not in log, "port 0 starts with %d mbufs" % SMALL_POOL,
                  "\n".join(dpdk_output.problem_lines(log)))
        m = WARNING.search(log)
        t.require(m is not None, "a warning names the mempool, the fill ring and rx_nombuf",
                  "\n".join(dpdk_output.problem_lines(log)))
        env.log("    | %s" % [ln for ln in log.splitlines() if m.group(0) in ln][0].strip())
        ring, short = int(m.group(3)), int(m.group(4))
        st = tp.port_stats(0)
        t.equal(st["RX-nombuf"], short, "RX-nombuf at start: the slots the warning says stay "
                "empty")
        tp.cmd("start")
        time.sleep(IDLE)
        st = tp.port_stats(0)
        t.equal(st["RX-nombuf"], short, "RX-nombuf after %.0f s of empty polls, each retrying "
                "the refill" % IDLE)

        before = st
        traffic.send(peer, port.mac, LOAD, LOAD_SIZES, stream="load")
        st = wait_quiet(tp)
        got, missed = (st["RX-packets"] - before["RX-packets"],
                       st["RX-missed"] - before["RX-missed"])
        env.log("under load: %d of %d frames received, %d dropped by the kernel (RX-missed), "
                "%d sent back; RX-nombuf %d" % (got, LOAD, missed, st["TX-packets"],
                                                st["RX-nombuf"]))
        t.check(got > 0 and st["TX-packets"] > 0, "frames are forwarded under load: %d received, "
                "%d sent" % (got, st["TX-packets"]))
        t.check(short <= st["RX-nombuf"] <= ring, "RX-nombuf under load %d: within %d..%d (each "
                "fill-ring slot counted once in a shortage that never ends)"
                % (st["RX-nombuf"], short, ring))
        all_back(t, tp, "%d mbufs" % SMALL_POOL)

        tp.cmd("port start 0")
        tp.cmd("start")
        before = wait_quiet(tp)
        traffic.send(peer, port.mac, FRAMES, SIZES, stream="after-restart")
        st = tp.wait_rx(0, before["RX-packets"] + FRAMES)
        t.equal(st["RX-packets"] - before["RX-packets"], FRAMES, "RX-packets after `port start "
                "0`, of %d sent" % FRAMES)
        tp.cmd("stop")
        t.quit_testpmd(tp, net)


def default_pool(t, net, port, peer, dut):
    vdev = "net_af_xdp0,iface=%s" % port.name
    with testpmd.TestPmd(dut, [vdev], fwd="io", label="testpmd[default mbufs]") as tp:
        log = tp.startup_output
        t.check("Fail to start port" not in log and WARNING.search(log) is None,
                "with testpmd's default pool: the port starts, no warning",
                "\n".join(dpdk_output.problem_lines(log)))
        tp.cmd("start")
        traffic.send(peer, port.mac, LOAD, LOAD_SIZES, stream="load-default")
        st = wait_quiet(tp)
        t.equal(st["RX-packets"] + st["RX-missed"], LOAD, "RX-packets + RX-missed, of %d sent"
                % LOAD)
        t.equal(st["RX-nombuf"], 0, "RX-nombuf")
        all_back(t, tp, "default pool")
        t.quit_testpmd(tp, net)


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        small_pool(t, net, port, peer, dut)
        default_pool(t, net, port, peer, dut)


if __name__ == "__main__":
    runner.run(main, "small_mempool", __doc__.splitlines()[0])
