#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""20 link flaps under traffic: one link event per change, the status follows, forwarding resumes.

testpmd io-forwards between two hosts (hosts.two_hosts) over p0 and p1
while h1 sends a paced background stream, forwarded out of p0. FLAPS times,
alternately on p0 (the port's own interface) and on h0 (its veth peer: p0
loses its carrier), `ip link set down`, then `up`. After each change testpmd
must print exactly one "Port 0: link state change event" (waited for, then
a quiet moment in which no second one may come), and `show port info 0`
must say the new status. Afterwards ping a->b passes (forwarding resumed),
the events number exactly 2 x FLAPS, and port 1 never saw an event.
"""

from afxdp_test import env, hosts, runner, testpmd, topo, traffic

FLAPS = 20
RATE = 1000              # frames/s from h1 through p1 and out of p0
EVENT = r"Port (\d+): link state change event"
FOLLOW_DEADLINE = 10     # only against a hang
SETTLE = 0.5             # quiet time after an event in which a duplicate would show


def change(t, tp, ifc, up, what):
    """Bring ifc up or down; the port-0 events testpmd printed for it."""
    (ifc.set_up if up else ifc.set_down)()
    ports = tp.wait_output(EVENT, 1, timeout=FOLLOW_DEADLINE, settle=SETTLE)
    want = "up" if up else "down"
    status = tp.port_info(0).get("Link status")
    t.check(status == want, "%s: port 0's link status %r (expected %r)" % (what, status, want))
    return ports


def main(t):
    with topo.Topology() as net:
        dut, a, b, p0, h0, p1, h1 = hosts.two_hosts(net)
        vdevs = ["net_af_xdp0,iface=%s" % p0.name, "net_af_xdp1,iface=%s" % p1.name]
        with testpmd.TestPmd(dut, vdevs, fwd="io") as tp:
            tp.cmd("start")
            hosts.ping(t, a)
            events = []
            with traffic.Background(h1, h0.mac, RATE, kind="udp", sizes=[128, 1000]):
                for i in range(FLAPS):
                    ifc = p0 if i % 2 == 0 else h0
                    what = "flap %d (%s)" % (i + 1, "p0" if ifc is p0 else "its peer h0")
                    for up in (False, True):
                        got = change(t, tp, ifc, up, "%s %s" % (what, "up" if up else "down"))
                        if got != ["0"]:
                            t.check(False, "%s %s: events printed %s (expected one, port 0)"
                                    % (what, "up" if up else "down", got))
                        events += got
            t.equal(len([p for p in events if p == "0"]), 2 * FLAPS,
                    "link state change events for port 0 over %d flaps" % FLAPS)
            t.equal([p for p in events if p != "0"], [], "events for other ports")
            hosts.ping(t, a)
            st = tp.port_stats(0)
            env.log("port 0: TX-packets %d TX-errors %d" % (st["TX-packets"], st["TX-errors"]))
            tp.cmd("stop")
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "link_flaps", __doc__.splitlines()[0])
