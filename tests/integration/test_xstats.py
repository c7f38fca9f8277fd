#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""xstats: `show port xstats 0` lists ethdev's counters and the kernel's, per queue.

Checks, after N frames: the generic counters (rx_good_packets/bytes) equal what
was sent; every name of EXPECTED_PER_QUEUE (the kernel's AF_XDP counters,
XDP_STATISTICS) appears in at least QUEUES xstat names, one per queue; each
of EXPECTED_DRIVER (the driver's own: batches, wakeups) appears; after a burst with nobody polling, one of the
OVERFLOW_COUNTERS is non-zero (the counters are live); after
`clear port xstats 0` every counter reads 0.

Required of our driver. Debian's stock driver lists only ethdev's generic
counters: it fails the name checks, for that reason.
"""

import re

from afxdp_test import env, runner, testpmd, topo, traffic

# --- what the driver must list: adjust to the driver's names ------------------
# The kernel's per-socket counters (struct xdp_statistics), each expected once
# per queue: a name containing the counter (e.g. q0_rx_ring_full), or ethdev's
# per-queue form, the queue after the direction (rx_q0_ring_full).
EXPECTED_PER_QUEUE = [
    "rx_dropped",
    "rx_invalid_descs",
    "tx_invalid_descs",
    "rx_ring_full",
    "rx_fill_ring_empty_descs",
    "tx_ring_empty_descs",
]
# The driver's own counters (batches received full/partial, wakeups), matched
# the same way; each expected in at least one name.
EXPECTED_DRIVER = [
    "rx_full_batches",
    "rx_partial_batches",
    "rx_wakeups",
]
# At least one of these is non-zero after frames were sent with nobody
# polling (the socket's rings overflow).
OVERFLOW_COUNTERS = ["rx_dropped", "rx_ring_full"]
# In zero-copy mode the kernel driver drops a frame for an empty fill ring
# without rx_dropped (vm-zc/xstats): that counter shows it.
if env.socket_mode() == "zero-copy":
    OVERFLOW_COUNTERS.append("rx_fill_ring_empty_descs")
# Queues of the port under test (with 2, the veth gets 2 queues and the vdev
# queue_count=2).
QUEUES = 1
# -----------------------------------------------------------------------------

SIZES = traffic.SIZES
FRAMES = 300
OVERFLOW = 12000


def names_with(xs, counter):
    """xstat names for `counter` ("rx_dropped"): containing it, or in the
    per-queue form rx_q<N>_dropped."""
    direction, _, rest = counter.partition("_")
    per_queue = re.compile(r"(^|_)%s_q\d+_%s$" % (re.escape(direction), re.escape(rest)))
    return [n for n in xs if counter in n or per_queue.search(n)]


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0", queues=QUEUES)
        vdev = "net_af_xdp0,iface=%s" % port.name
        if QUEUES > 1:
            vdev += ",queue_count=%d" % QUEUES
        with testpmd.TestPmd(dut, [vdev], fwd="rxonly", queues=QUEUES) as tp:
            tp.cmd("start")
            traffic.send(peer, port.mac, FRAMES, SIZES)
            tp.wait_rx(0, FRAMES)
            xs = tp.xstats(0)
            t.require(bool(xs), "show port xstats 0 lists counters (%d)" % len(xs))
            env.log("xstats listed: %s" % ", ".join(xs))
            t.equal(xs.get("rx_good_packets"), FRAMES, "rx_good_packets")
            t.equal(xs.get("rx_good_bytes"), traffic.expected_bytes(FRAMES, SIZES), "rx_good_bytes")

            missing = []
            for frag in EXPECTED_PER_QUEUE:
                found = names_with(xs, frag)
                if len(found) < QUEUES:
                    missing.append("%s (%d of %d queues: %s)" % (frag, len(found), QUEUES,
                                                                 ", ".join(found) or "none"))
            t.check(not missing, "the kernel's counters listed per queue: %s"
                    % ", ".join(EXPECTED_PER_QUEUE) + (
                        "" if not missing else "; missing: %s" % "; ".join(missing)
                        + t.stock_note("it lists only ethdev's generic counters")))
            absent = [frag for frag in EXPECTED_DRIVER if not names_with(xs, frag)]
            t.check(not absent, "the driver's own counters listed: %s" % (
                ", ".join(EXPECTED_DRIVER) or "(none expected)") + (
                    "; missing: %s" % ", ".join(absent) + t.stock_note("it has none")
                    if absent else ""))

            tp.cmd("stop")
            traffic.send(peer, port.mac, OVERFLOW, [60], stream="overflow")
            xs = tp.xstats(0)
            watched = [n for frag in OVERFLOW_COUNTERS for n in names_with(xs, frag)]
            if watched:
                t.check(any(xs[n] > 0 for n in watched),
                        "after %d frames with nobody polling, a drop counter moved: %s"
                        % (OVERFLOW, {n: xs[n] for n in watched}))
            else:
                env.log("no xstat named after %s: the overflow check is left to the name "
                        "check above" % " or ".join(OVERFLOW_COUNTERS))
            tp.cmd("start")
            tp.wait_rx(0, FRAMES + OVERFLOW)
            tp.cmd("stop")

            tp.cmd("clear port xstats 0")
            xs = tp.xstats(0)
            nonzero = {n: v for n, v in xs.items() if v}
            t.check(not nonzero, "every xstat reads 0 after clear port xstats 0",
                    "non-zero: %s" % nonzero)
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "xstats", __doc__.splitlines()[0])
