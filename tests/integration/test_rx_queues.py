#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Fewer Rx queues than queue_count is refused at configure, naming both numbers and the fix.

A veth with 2 queues, `queue_count=2`: the port's sockets cover both
interface queues, and the kernel delivers a frame only to the socket of the
queue it arrived on, which only that Rx queue polls.
1. testpmd --rxq=1 --txq=2: the port is not started (testpmd says it
   failed to configure it); the driver's message names queue_count=2, the
   1 Rx queue, the interface queue that would go unread and --rxq=2; no XDP
   program is attached; `quit` exits 0.
2. testpmd --rxq=2 --txq=1 (fewer Tx queues lose nothing): the port starts
   (link up). testpmd's forwarding polls only min(rxq, txq) queues, so
   receiving on both is test_multiqueue's, with --rxq=2 --txq=2.
"""

import re

from afxdp_test import runner, testpmd, topo

QUEUES = 2
REFUSAL = re.compile(r"queue_count=2 binds 2 queues of \S+, but the application configured "
                     r"1 Rx queue: frames the interface steers to its queue 1 would never be "
                     r"received; configure 2 Rx queues \(testpmd: --rxq=2\)")


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0", queues=QUEUES)
        vdev = "net_af_xdp0,iface=%s,queue_count=%d" % (port.name, QUEUES)

        with testpmd.TestPmd(dut, [vdev], fwd="rxonly", label="testpmd --rxq=1 --txq=2",
                             app_extra=["--rxq=1", "--txq=2"]) as tp:
            out = tp.startup_output
            t.check(bool(re.search(r"Fail to configure port 0", out)),
                    "testpmd could not configure the port", out[-2000:])
            t.check(bool(REFUSAL.search(out)), "the driver names queue_count=2, the 1 Rx queue, "
                    "the unread interface queue 1 and --rxq=2",
                    "\n".join(ln for ln in out.splitlines() if "af_xdp" in ln))
            t.check(port.xdp() is None, "no XDP program attached to %s" % port.name)
            t.quit_testpmd(tp, net)

        with testpmd.TestPmd(dut, [vdev], fwd="rxonly", label="testpmd --rxq=2 --txq=1",
                             app_extra=["--rxq=2", "--txq=1"]) as tp:
            t.check("Fail to configure" not in tp.startup_output,
                    "--rxq=2 --txq=1 is configured")
            t.equal(tp.port_info(0).get("Link status"), "up", "and started: link status")
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "rx_queues", __doc__.splitlines()[0])
