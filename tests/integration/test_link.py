#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""link status: the port follows its kernel interface going down and up.

For each way of taking the link down (table below), `show port info 0` must
report "Link status: down" after it and "up" again after it is undone; frames
sent after the link came back must still be received.

Required of our driver. Debian's stock driver reports the status it set at
port start and does not follow the interface: it fails at the first "down"
step, for exactly that reason.

Then the link events refused (tests/faults, link_events: the netlink
socket's bind to rtnetlink's link group fails): testpmd asks for them
(intr_conf.lsc), so the port must not start, rather than start without
the events it was configured for (before issue 45 it started, an ERR line
the only trace), and leaves no XDP program.
"""

import time

from afxdp_test import env, faults, runner, state, testpmd, topo, traffic

# (what, which end of the veth to set down: "port" = the AF_XDP interface
#  itself, "peer" = the other end, so the port loses its carrier)
SCENARIOS = [
    ("port interface set down", "port"),
    ("peer set down (carrier lost)", "peer"),
]
# How long the status may take to follow: a guard against waiting forever,
# not a timing requirement.
FOLLOW_DEADLINE = 10
FRAMES_AFTER = 200
SIZES = [64, 1500]


def wait_link(tp, want, deadline):
    end = env.deadline(deadline)
    while True:
        status = tp.port_info(0).get("Link status")
        if status == want or time.monotonic() > end:
            return status
        time.sleep(0.2)


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        ends = {"port": port, "peer": peer}
        with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly") as tp:
            tp.cmd("start")
            t.equal(wait_link(tp, "up", FOLLOW_DEADLINE), "up", "link status at start")
            for what, end in SCENARIOS:
                ifc = ends[end]
                ifc.set_down()
                got = wait_link(tp, "down", FOLLOW_DEADLINE)
                t.check(got == "down", "%s: link status %r" % (what, got) + (
                    "" if got == "down" else " (expected 'down' within %ds)" % FOLLOW_DEADLINE
                    + t.stock_note("it does not follow the interface")))
                ifc.set_up()
                got = wait_link(tp, "up", FOLLOW_DEADLINE)
                t.check(got == "up", "%s, then up again: link status %r" % (what, got))

            # The port still receives once the link is back.
            tp.cmd("clear port stats all")
            traffic.send(peer, port.mac, FRAMES_AFTER, SIZES)
            st = tp.wait_rx(0, FRAMES_AFTER)
            t.equal(st["RX-packets"], FRAMES_AFTER, "RX-packets after the link came back")
            tp.cmd("stop")
            t.quit_testpmd(tp, net)

        if env.is_stock():
            env.log("the stock driver has no link events: the refusal is ours to check")
            return
        with faults.Refusal("link_events") as r:
            with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly",
                                 wrapper=r.wrapper(), label="testpmd[link events refused]") as tp:
                t.check(r.seen("link_events"), "link events refused: the driver met the "
                        "refusal (the fault library's log)", str(r.refused()))
                t.equal(state.read(tp).get("state"), "stopped", "link events refused: the port "
                        "configured for them (intr_conf.lsc) does not start")
                t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "link", __doc__.splitlines()[0])
