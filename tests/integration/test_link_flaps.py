#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""20 link flaps under traffic: one link event per change, the status follows, forwarding resumes.

testpmd io-forwards between two hosts (hosts.two_hosts) over p0 and p1
while h1 sends a paced background stream, forwarded out of p0. FLAPS times,
alternately on p0 (the port's own interface) and on h0 (its veth peer: p0
loses its carrier), `ip link set down`, then `up`. After each change testpmd
must print a "Port 0: link state change event" (waited for), and `show port
info 0` must say the new status. The next change follows at once: no quiet
time per change. Once the flaps are done and testpmd has been quiet for
SETTLE, the events are counted in the output between one change and the
next: exactly one each (a duplicate would show under its change, or the
next); the events number exactly 2 x FLAPS, and port 1 never saw one.
Afterwards ping a->b passes (forwarding resumed).
"""

import re

from afxdp_test import env, hosts, runner, testpmd, topo, traffic

FLAPS = 20
RATE = 1000              # frames/s from h1 through p1 and out of p0
EVENT = r"Port (\d+): link state change event"
FOLLOW_DEADLINE = 10     # only against a hang
SETTLE = 0.5             # quiet time after the last event in which a duplicate would show


def change(t, tp, ifc, up, what):
    """Bring ifc up or down, wait for testpmd's event and check the status;
    the transcript position where this change's output starts."""
    at = tp.drain()
    (ifc.set_up if up else ifc.set_down)()
    got = tp.wait_output(EVENT, 1, timeout=FOLLOW_DEADLINE, settle=0, since=at)
    want = "up" if up else "down"
    status = tp.port_info(0).get("Link status")
    t.check(got and status == want, "%s: an event, and port 0's link status %r (expected %r)"
            % (what, status, want))
    return at


def main(t):
    with topo.Topology() as net:
        dut, a, b, p0, h0, p1, h1 = hosts.two_hosts(net)
        vdevs = ["net_af_xdp0,iface=%s" % p0.name, "net_af_xdp1,iface=%s" % p1.name]
        with testpmd.TestPmd(dut, vdevs, fwd="io") as tp:
            tp.cmd("start")
            hosts.ping(t, a, where_lost=tp.where_lost)
            marks = []          # (transcript position, change)
            with traffic.Background(h1, h0.mac, RATE, kind="udp", sizes=[128, 1000]):
                for i in range(FLAPS):
                    ifc = p0 if i % 2 == 0 else h0
                    what = "flap %d (%s)" % (i + 1, "p0" if ifc is p0 else "its peer h0")
                    for up in (False, True):
                        what_ = "%s %s" % (what, "up" if up else "down")
                        marks.append((change(t, tp, ifc, up, what_), what_))
            # Any late duplicate shows now.
            tp.wait_output(EVENT, 0, timeout=FOLLOW_DEADLINE, settle=SETTLE, since=marks[-1][0])
            ends = [m[0] for m in marks[1:]] + [len(tp.transcript)]
            events = []
            rx = re.compile(EVENT)
            for (start, what), end in zip(marks, ends):
                got = rx.findall(tp.transcript, start, end)
                if got != ["0"]:
                    t.check(False, "%s: events printed %s (expected one, port 0)" % (what, got))
                events += got
            t.equal(len([p for p in events if p == "0"]), 2 * FLAPS,
                    "link state change events for port 0 over %d flaps" % FLAPS)
            t.equal([p for p in events if p != "0"], [], "events for other ports")
            hosts.ping(t, a, where_lost=tp.where_lost)
            st = tp.port_stats(0)
            env.log("port 0: TX-packets %d TX-errors %d" % (st["TX-packets"], st["TX-errors"]))
            tp.cmd("stop")
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "link_flaps", __doc__.splitlines()[0])
