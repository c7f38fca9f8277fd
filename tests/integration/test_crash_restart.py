#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""crash and restart: the programs a SIGKILLed process left are replaced at the next start, which forwards.

testpmd io-forwards between two hosts (hosts.two_hosts) over p0 and p1,
with a bpffs for libxdp (bpf.libxdp_bpffs: the dispatcher where it loads,
in the VM; each program alone on this host, where it cannot):
  1. ping a->b passes; p0 and p1 each carry a copy of the built-in program
     whose owner mark (bpftool's metadata) names this testpmd's pid;
  2. testpmd is killed with SIGKILL: both copies stay loaded and attached
     (what a crash or the OOM killer leaves);
  3. a second testpmd, same devargs, starts both ports; for each interface
     its log names the program it removed (name, id) and the process that
     left it (the dead pid); ping a->b passes again; the dead process's
     copies are gone from the kernel;
  4. quit (exit 0): no XDP program left.
Without the recognition of orphans, step 3 fails: alone, the start is
refused ("not managed by libxdp ... remove it"); under the dispatcher, the
dead copy stays loaded beside the new one.
"""

import os
import re
import signal
import time

from afxdp_test import bpf, dpdk_output, env, hosts, runner, state, testpmd, topo

GONE_DEADLINE = 10       # the kernel frees a program after its last user: only against a hang
REMOVED = re.compile(r"removed the orphaned XDP program (\S+) \(id (\d+)\) from (\S+): "
                     r"af_xdp_direct loaded it in process (\d+) ")


def copies_of(pid):
    return {p["id"]: p["name"] for p in bpf.marked_programs() if p["pid"] == pid}


def kill_hard(tp):
    """SIGKILL testpmd's whole session, as the OOM killer would: no clean-up at all."""
    os.killpg(tp.proc.pid, signal.SIGKILL)
    tp.proc.wait(env.scaled(30))
    env.log("%s: killed with SIGKILL" % tp.label)


def wait_gone(ids):
    deadline = env.deadline(GONE_DEADLINE)
    while True:
        left = [i for i in ids if bpf.prog_exists(i)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


def main(t):
    if env.is_stock():
        raise env.Skip("the owner mark and the recovery are this driver's (the stock driver "
                       "attaches a program of its own)")
    with bpf.libxdp_bpffs(), topo.Topology() as net:
        dut, a, b, p0, h0, p1, h1 = hosts.two_hosts(net)
        vdevs = ["net_af_xdp0,iface=%s" % p0.name, "net_af_xdp1,iface=%s" % p1.name]
        first = testpmd.TestPmd(dut, vdevs, fwd="io", eal_extra=[testpmd.LOG_INFO],
                                label="testpmd[first]")
        with first:
            env.log("dispatcher in use: %s" % state.read(first, 0).get("xdp.dispatcher"))
            first.cmd("start")
            hosts.ping(t, a)
            dead_pid = first.proc.pid
            dead = copies_of(dead_pid)
            env.log("copies of the built-in program owned by pid %d: %s" % (dead_pid, dead))
            t.require(len(dead) == 2, "p0 and p1 each carry a copy marked with testpmd's pid "
                      "%d: %s" % (dead_pid, dead))
            kill_hard(first)
        t.require(sorted(copies_of(dead_pid)) == sorted(dead),
                  "the killed process's copies are still loaded: %s" % copies_of(dead_pid))
        t.check(p0.xdp_word() is not None and p1.xdp_word() is not None,
                "p0 and p1 still carry an XDP program after the SIGKILL: %s, %s"
                % (p0.xdp_word(), p1.xdp_word()))

        with testpmd.TestPmd(dut, vdevs, fwd="io", eal_extra=[testpmd.LOG_INFO],
                             label="testpmd[second]") as second:
            log = second.startup_output
            t.check("Fail to start port" not in log, "the second testpmd starts both ports",
                    "\n".join(dpdk_output.problem_lines(log)))
            removed = REMOVED.findall(dpdk_output.clean(log))
            for r in removed:
                env.log("    | removed %s id %s from %s, left by pid %s" % r)
            t.equal(sorted((int(i), n) for n, i, _, _ in removed), sorted(dead.items()),
                    "programs the second testpmd says it removed (id, name)")
            t.equal(sorted({(ifc, int(pid)) for _, _, ifc, pid in removed}),
                    sorted({(p0.name, dead_pid), (p1.name, dead_pid)}),
                    "interfaces and dead owner pid named in the log")
            second.cmd("start")
            hosts.ping(t, a)
            left = wait_gone(list(dead))
            t.check(not left, "the killed process's copies are gone from the kernel: "
                    "still loaded: %s" % left)
            mine = copies_of(second.proc.pid)
            t.equal(len(mine), 2, "copies owned by the second testpmd (pid %d)" % second.proc.pid)
            blocks = [state.read(second, p) for p in (0, 1)]
            t.equal(sorted(int(b.get("xdp.program_id", 0)) for b in blocks), sorted(mine),
                    "the ports' state names those copies (xdp.program_id)")
            t.equal([b.get("xdp.owner.pid") for b in blocks], [str(second.proc.pid)] * 2,
                    "the ports' state names the second testpmd as their owner (xdp.owner.pid)")
            second.cmd("stop")
            t.quit_testpmd(second, net)


if __name__ == "__main__":
    runner.run(main, "crash_restart", __doc__.splitlines()[0])
