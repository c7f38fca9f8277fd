#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""restart: port stop/start under traffic: frames to the kernel while stopped; no leak.

testpmd rxonly on a veth; the peer sends a paced background stream of UDP
frames (BACKGROUND_RATE per second) through every stop and start. Each cycle
(afxdp_test.cycles, the restart tests' one loop, with this test's hooks):
  1. background frames are arriving (RX-packets grows); `stop` (forwarding:
     testpmd stops a port only when it is not forwarding) and `port stop 0`
     while they still arrive;
  2. while the port is stopped: `ip link` shows no XDP program, every mbuf of
     the pool is available again (see below), and FRAMES raw frames sent to
     the port reach the kernel stack instead (a raw socket on the interface
     receives them all, intact);
  3. `port start 0` (an XDP program attached again), `start`: background
     frames arrive again; then, with the background stopped and the port
     quiet, FRAMES raw frames arrive exactly (RX-packets grows by FRAMES).

Mbufs (`dump_mempool <pool>`: avail = common_pool_count + total_cache_count,
what rte_mempool_avail_count() returns). An mbuf is either available (in the
common pool or in an lcore's cache: both are counted, so the per-lcore
caches, which hold up to 1.5 x cache_size mbufs each and move between the
two as lcores get and put, need no tolerance as long as they are summed), or
held by the port: offered to the kernel in the fill ring, received but not
yet taken from the Rx ring, or (Tx, not used by rxonly) queued for sending.
  - While stopped (on veth, in copy mode and in zero-copy mode, vm-zc/restart:
    the driver documents that everything comes back): avail == the pool's
    size, exactly.
  - Started and idle, with forwarding running: the Rx ring is empty, so the
    port holds just the fill ring's mbufs. The fill ring (as large as the Rx
    ring) is filled completely at start, and after receiving it is topped up
    only in whole batches of 64, so up to 63 of its slots may stay empty.
    Hence, against the same state measured right after start before any
    traffic (the ring full): 0 <= avail_after - avail_before <= 63. A lower
    value is a leak; a higher one, mbufs the fill ring lost.
"""

from afxdp_test import cycles, env, runner, testpmd, topo, traffic

CYCLES = 5
BACKGROUND_RATE = 2000       # frames/s: enough to be mid-flight at every stop/start
BACKGROUND_SIZES = [128, 1000]
SIZES = [60, 512, 1500]
FRAMES = 150                 # raw frames per check: fewer than a ring holds
FILL_BATCH = 64              # the fill ring is topped up in batches of this many
FILL_SLACK = FILL_BATCH - 1  # slots that may stay empty


def rx(tp):
    return tp.port_stats(0)["RX-packets"]


def hooks(t, tp, port, peer, pool, size):
    """The checks of each cycle, for afxdp_test.cycles (steps 1-3 above)."""
    def what(i):
        return "cycle %d" % i

    def around(i):
        return traffic.Background(peer, port.mac, BACKGROUND_RATE, kind="udp",
                                  sizes=BACKGROUND_SIZES, stream="background-%d" % i)

    def before_stop(i):
        base = rx(tp)
        t.require(tp.wait_rx_growth(base) > base,
                  "%s: background frames arrive before the stop" % what(i))

    def stopped(i):
        t.equal(port.xdp_word(), None, "%s: XDP attachment `ip link` shows while stopped"
                % what(i))
        mp = tp.mempool(pool)
        t.equal(mp["avail"], size, "%s: mbufs available while stopped (common pool %d + "
                "caches %d), of %d" % (what(i), mp["common_pool_count"],
                                       mp["total_cache_count"], size))
        with traffic.Capture(port, src=peer.mac, dst=port.mac, count=FRAMES, sizes=SIZES,
                             stream="stopped-%d" % i) as cap:
            traffic.send(peer, port.mac, FRAMES, SIZES, stream="stopped-%d" % i)
        t.check(traffic.all_intact(cap.result), "%s: the kernel stack got the frames sent "
                "while stopped: %s" % (what(i), traffic.summary(cap.result)))

    def started(i):
        t.check(port.xdp_word() is not None, "%s: an XDP program is attached after `port "
                "start 0`: %s" % (what(i), port.xdp_word()))
        base = rx(tp)
        t.check(tp.wait_rx_growth(base) > base, "%s: background frames arrive after the "
                "restart" % what(i))

    def after(i):
        before = tp.wait_rx_quiet()
        traffic.send(peer, port.mac, FRAMES, SIZES, stream="started-%d" % i)
        st = tp.wait_rx(0, before + FRAMES)
        t.equal(st["RX-packets"] - before, FRAMES, "%s: RX-packets of the frames sent after "
                "the restart" % what(i))

    return cycles.Hooks(around=around, before_stop=before_stop, stopped=stopped,
                        started=started, after=after)


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly") as tp:
            pool = tp.rx_pool()
            tp.cmd("start")
            first = tp.mempool(pool)
            size = first["size"]
            env.log("pool %s: %d mbufs, cache size %d; started, before any traffic: %d "
                    "available (%d held by the port)" % (pool, size, first["cache_size"],
                                                         first["avail"], size - first["avail"]))
            res = cycles.run(tp, CYCLES, forwarding=True,
                             hooks=hooks(t, tp, port, peer, pool, size))
            t.check(res.all_ok(), "port 0 stopped and started %d times: %s" % (CYCLES, res),
                    "\n".join(res.reasons))
            tp.wait_rx_quiet()
            last = tp.mempool(pool)
            diff = last["avail"] - first["avail"]
            env.log("started and idle after %d cycles: %d available (%d held by the port)"
                    % (CYCLES, last["avail"], size - last["avail"]))
            t.check(0 <= diff <= FILL_SLACK,
                    "mbufs available, started and idle, after the cycles minus before: %d "
                    "(0..%d: fill-ring slots left empty between refill batches of %d)"
                    % (diff, FILL_SLACK, FILL_BATCH))
            st = tp.port_stats(0)
            env.log("RX-packets %d, RX-missed %d, RX-nombuf %d" % (
                st["RX-packets"], st["RX-missed"], st["RX-nombuf"]))
            t.equal(st["RX-nombuf"], 0, "RX-nombuf")
            tp.cmd("stop")
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "restart", __doc__.splitlines()[0])
