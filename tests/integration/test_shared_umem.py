#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""shared_umem=1: two ports on two veths share one UMEM and forward frames byte for byte.

    netns a: h0 == veth == p0 (net_af_xdp0,shared_umem=1)   netns dut: testpmd io
    netns b: h1 == veth == p1 (net_af_xdp1,shared_umem=1)

testpmd gives both ports one mbuf pool (checked: `show rxq info`), so the
second port's socket shares the first one's UMEM registration
(XDP_SHARED_UMEM): its state block says queue.0.umem.registered = no, the
first one's yes, both naming that pool. Raw frames of several sizes cross a->b and b->a
intact (none missing, duplicated or extra), the port counters agree, and
testpmd quits with 0, leaving no XDP program behind.
"""

import re

from afxdp_test import runner, state, testpmd, topo, traffic

SIZES = traffic.SIZES
FRAMES_PER_SIZE = 100        # below one ring's worth: see test_rxonly


def raw_frames(t, src, dst, count, label):
    with traffic.Capture(dst, src=src.mac, dst=dst.mac, count=count, sizes=SIZES,
                         stream=label) as cap:
        traffic.send(src, dst.mac, count, SIZES, stream=label)
    t.check(traffic.all_intact(cap.result), "%s: %s" % (label, traffic.summary(cap.result)))


def mempool_of(tp, port):
    out = tp.cmd("show rxq info %d 0" % port)
    m = re.search(r"Mempool:\s*(\S+)", out)
    return m.group(1) if m else None


def main(t):
    count = FRAMES_PER_SIZE * len(SIZES)
    with topo.Topology() as net:
        dut, a, b = net.netns("dut"), net.netns("a"), net.netns("b")
        p0, h0 = net.veth(dut, "p0", a, "h0")
        p1, h1 = net.veth(dut, "p1", b, "h1")
        vdevs = ["net_af_xdp0,iface=%s,shared_umem=1" % p0.name,
                 "net_af_xdp1,iface=%s,shared_umem=1" % p1.name]
        with testpmd.TestPmd(dut, vdevs, fwd="io", eal_extra=[testpmd.LOG_INFO]) as tp:
            pools = [mempool_of(tp, p) for p in (0, 1)]
            t.check(pools[0] is not None and pools[0] == pools[1],
                    "both ports receive into one mempool: %s" % pools)
            umem = [state.queue_keys(state.read(tp, p), 0) for p in (0, 1)]
            t.equal([u.get("umem.pool") for u in umem], pools, "the UMEM of each port's socket")
            t.equal(umem[0].get("umem.registered"), "yes", "net_af_xdp0's socket registered it")
            t.equal(umem[1].get("umem.registered"), "no",
                    "net_af_xdp1's socket shares it (the first port's registration)")

            tp.cmd("start")
            raw_frames(t, h0, h1, count, "a->b raw frames")
            raw_frames(t, h1, h0, count, "b->a raw frames")
            nbytes = traffic.expected_bytes(count, SIZES)
            for p in (0, 1):
                st = tp.port_stats(p)
                t.equal((st["RX-packets"], st["RX-bytes"], st["TX-packets"], st["TX-bytes"]),
                        (count, nbytes, count, nbytes), "port %d RX/TX packets and bytes" % p)
                t.equal((st["RX-missed"], st["TX-errors"]), (0, 0),
                        "port %d RX-missed, TX-errors" % p)
            tp.cmd("stop")
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "shared_umem", __doc__.splitlines()[0])
