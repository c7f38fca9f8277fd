#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""the port's interface deleted under traffic: no crash, the link reported down, a clean quit.

testpmd io-forwards between two hosts (hosts.two_hosts) over p0 and p1
while h1 sends a paced background stream, forwarded out of p0. Then p0's
veth pair is deleted (`ip link del`), as an operator or a container runtime
would under a running application:
  - testpmd keeps running, and prints a link state change event for port 0;
  - `show port info 0` says "Link status: down"; port 1 stays up;
  - `stop` and `quit` work: testpmd exits with 0, and no XDP program is
    left on p1 (p0 is gone, its program with it).
"""

import time

from afxdp_test import hosts, runner, testpmd, topo, traffic

RATE = 2000              # frames/s from h1 through p1 and out of p0
LSC = r"Port 0: link state change event"
FOLLOW_DEADLINE = 10     # only against a hang
RUN_ON = 1.0             # seconds of traffic after the deletion


def link_status(tp, port):
    return tp.port_info(port).get("Link status")


def main(t):
    with topo.Topology() as net:
        dut, a, b, p0, h0, p1, h1 = hosts.two_hosts(net)
        vdevs = ["net_af_xdp0,iface=%s" % p0.name, "net_af_xdp1,iface=%s" % p1.name]
        with testpmd.TestPmd(dut, vdevs, fwd="io") as tp:
            tp.cmd("start")
            hosts.ping(t, a, where_lost=tp.where_lost)
            with traffic.Background(h1, h0.mac, RATE, kind="udp", sizes=[128, 1000]):
                time.sleep(0.5)
                before = tp.port_stats(1)["RX-packets"]
                t.require(before > 0, "background frames arrive on port 1 before the deletion")
                net.delete_veth(p0)
                events = tp.wait_output(LSC, 1, timeout=FOLLOW_DEADLINE)
                time.sleep(RUN_ON)
                t.check(tp.alive(), "testpmd still runs after %s was deleted" % p0.name)
                t.equal(len(events), 1, "link state change events for port 0 after the deletion")
                t.equal(link_status(tp, 0), "down", "port 0's link status")
                t.equal(link_status(tp, 1), "up", "port 1's link status")
                t.check(tp.port_stats(1)["RX-packets"] > before,
                        "port 1 still receives the background frames")
            tp.cmd("stop")
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "iface_deleted", __doc__.splitlines()[0])
