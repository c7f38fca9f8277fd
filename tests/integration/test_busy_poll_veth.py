#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""busy polling on veth: asked for, it is reported as useless (a warning); by default, only noted.

veth gives AF_XDP sockets no NAPI id, so SO_PREFER_BUSY_POLL/SO_BUSY_POLL_BUDGET
succeed and do nothing. For each row of RUNS, testpmd starts with the row's
devargs and log level and the driver's start-up output must (or must not)
contain NOTICE_TEXT:
  - busy_budget=32 at log level warning: the warning is there, and the port
    still receives N frames exactly;
  - no busy_budget (the default budget, not asked for) at level warning: no
    such line (it is not a warning);
  - no busy_budget at level info: the line is there (an info line).
The log level separates a warning from an info line: DPDK prints no level.
"""

from afxdp_test import dpdk_output, env, runner, testpmd, topo, traffic

NOTICE_TEXT = "busy polling has no effect"
# (devargs after iface=, log level of pmd.net.af_xdp, NOTICE_TEXT expected,
#  also check that frames arrive)
RUNS = [
    ("busy_budget=32", "warning", True, True),
    ("", "warning", False, False),
    ("", "info", True, False),
]
SIZES = [64, 1500]
FRAMES = 200


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        for devargs, level, expected, traffic_check in RUNS:
            vdev = "net_af_xdp0,iface=%s" % port.name + ("," + devargs if devargs else "")
            what = "%s, log level %s" % (devargs or "no busy_budget", level)
            env.log("--- %s" % what)
            tp = testpmd.TestPmd(dut, [vdev], fwd="rxonly",
                                 eal_extra=["--log-level=pmd.net.af_xdp:%s" % level],
                                 label="testpmd[%s]" % what)
            with tp:
                lines = [ln.strip() for ln in tp.startup_output.splitlines() if NOTICE_TEXT in ln]
                for ln in lines:
                    env.log("    | %s" % ln)
                if expected:
                    t.check(bool(lines), "%s: the start-up output says %r" % (what, NOTICE_TEXT),
                            "\n".join(dpdk_output.problem_lines(tp.startup_output)))
                    t.check(all(port.name in ln for ln in lines),
                            "%s: the line names the interface %s" % (what, port.name))
                else:
                    t.check(not lines, "%s: no line says %r" % (what, NOTICE_TEXT))
                if traffic_check:
                    tp.cmd("start")
                    traffic.send(peer, port.mac, FRAMES, SIZES)
                    st = tp.wait_rx(0, FRAMES)
                    tp.cmd("stop")
                    t.equal(st["RX-packets"], FRAMES, "%s: RX-packets" % what)
                    t.equal(st["RX-missed"], 0, "%s: RX-missed" % what)
                t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "busy_poll_veth", __doc__.splitlines()[0])
