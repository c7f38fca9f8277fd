#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpdk-proc-info --stats-reset and --xstats-reset from a secondary reset the primary's counters.

testpmd (rxonly) is the primary, on hugepages; dpdk-proc-info runs through
scripts/afxdp-secondary.sh, as the README shows.

1. test_stats_reset's scenario with `dpdk-proc-info -- --stats-reset` as the
   reset (it exits 0 and reports no error): the kernel made to drop frames,
   the reset, every counter testpmd shows reads 0, and a second later with
   forwarding on (the kernel's counters are reset by moving their base, not
   re-read); then counting restarts exactly.
2. The kernel made to drop again; `dpdk-proc-info -- --xstats-reset` exits 0
   without an error, and every xstat testpmd shows reads 0 (xstats are
   counters only), and a second later too.
"""

import os
import time

from afxdp_test import env, hugepages, runner, testpmd, topo, traffic
from test_stats_reset import OVERFLOW, SECOND, reset_scenario

WRAPPER = os.path.join(os.path.dirname(runner.LIB_DIR), "scripts", "afxdp-secondary.sh")
HUGEPAGES = 192
MEM_MB = 256
SECONDARY_TIMEOUT = 60   # only against a hang
SETTLE = 0.5


def proc_info(t, ns, tp, what):
    argv = [WRAPPER, env.proc_info_path(), "--no-pci", "--file-prefix", tp.file_prefix,
            "--", what]
    env.log("secondary: ip netns exec %s %s" % (ns.name, " ".join(argv)))
    rc, out = testpmd.run_secondary(ns, argv, timeout=SECONDARY_TIMEOUT)
    ok = t.equal(rc, 0, "dpdk-proc-info %s exit code" % what)
    ok &= t.check("Error clearing" not in out, "dpdk-proc-info %s reports no error" % what,
                  "\n".join(ln for ln in out.splitlines() if "Error" in ln))
    if not ok:
        env.log(out[-3000:])


def nonzero_xstats(tp):
    xs = tp.xstats(0)
    return {n: v for n, v in xs.items() if v != 0}, len(xs)


def xstats_reset(t, ns, tp, peer, port):
    tp.cmd("stop")
    traffic.send(peer, port.mac, OVERFLOW, [60], stream="overflow2")
    time.sleep(SETTLE)
    tp.cmd("start")
    st = tp.wait_rx(0, SECOND + OVERFLOW)
    tp.cmd("stop")
    t.check(st["RX-missed"] > 0, "RX-missed after %d more frames with nobody polling: %d"
            % (OVERFLOW, st["RX-missed"]))
    nonzero, _ = nonzero_xstats(tp)
    t.check(nonzero, "some xstats non-zero before --xstats-reset: %s" % nonzero)
    proc_info(t, ns, tp, "--xstats-reset")
    nonzero, listed = nonzero_xstats(tp)
    t.check(listed > 0 and not nonzero, "all %d xstats read 0 in testpmd after the secondary's "
            "--xstats-reset; non-zero: %s" % (listed, nonzero))
    tp.cmd("start")
    time.sleep(1)
    nonzero, _ = nonzero_xstats(tp)
    t.check(not nonzero, "and 1 s later (nothing sent); non-zero: %s" % nonzero)
    tp.cmd("stop")


def main(t):
    env.proc_info_path()
    with topo.Topology() as net, hugepages.HugePages(HUGEPAGES) as hp:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly",
                             huge_dir=hp.mount, mem_mb=MEM_MB) as tp:
            reset_scenario(t, tp, peer, port, lambda: proc_info(t, dut, tp, "--stats-reset"),
                           "the secondary's --stats-reset")
            xstats_reset(t, dut, tp, peer, port)
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "proc_info_reset", __doc__.splitlines()[0])
