#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""a second process on a running port's interface: refused where it would take the first's frames; the first keeps its program and its traffic.

With a bpffs for libxdp (bpf.libxdp_bpffs: the dispatcher where it loads,
in the VM; each program alone on this host).

Same queue. A first testpmd io-forwards between two hosts over p0 and p1
(ping a->b passes). A second testpmd with a port on p0's queue 0:
  - fails to start its port, saying the queue is already used by another
    AF_XDP socket, and quits with 0;
  - the first still owns the same copies of the built-in program (same ids,
    bpftool's owner mark), attached, and ping a->b still passes.

Other queue. A 2-queue veth; a first testpmd (rxonly) on queue 0, a
second on queue 1. UDP frames of many flows are spread by veth over both
queues (its per-queue counters say how many each got).
  - Program attached alone: one program serves one process. The second's
    port fails to start, with a message naming the program and the live
    process that owns it (the first's pid, "still running"); the first's
    copy is still attached (same id) and the first receives exactly what
    the kernel counted on queue 0.
  - Under libxdp's dispatcher the two programs run side by side: both
    start, and each receives exactly its queue's frames; after the second
    quits, the first's copy is still loaded and it still receives queue 0.
In no case may the second remove or replace the first's program: that
happens only to a program whose owner no longer exists (crash_restart).
"""

import re

from afxdp_test import bpf, dpdk_output, env, hosts, runner, state, testpmd, topo, traffic

QUEUES = 2
FLOWS = 32
SIZES = [128, 512]
FRAMES = 600             # fewer than one ring holds, even if all hashed to one queue
QUEUE_BUSY = "is already used by another AF_XDP socket"


def copies_of(pid):
    return sorted(p["id"] for p in bpf.marked_programs() if p["pid"] == pid)


def refused(t, tp, what):
    log = tp.startup_output
    t.check("Fail to start port 0" in log, "%s: the second testpmd's port does not start" % what,
            "\n".join(dpdk_output.problem_lines(log)))
    lines = [ln.strip() for ln in dpdk_output.clean(log).splitlines() if "net_af_xdp0" in ln]
    for ln in lines:
        env.log("    | %s" % ln)
    return "\n".join(lines)


def same_queue(t):
    with topo.Topology() as net:
        dut, a, b, p0, h0, p1, h1 = hosts.two_hosts(net)
        vdevs = ["net_af_xdp0,iface=%s" % p0.name, "net_af_xdp1,iface=%s" % p1.name]
        with testpmd.TestPmd(dut, vdevs, fwd="io", eal_extra=[testpmd.LOG_INFO],
                             label="testpmd[first]") as first:
            env.log("same queue, dispatcher in use: %s"
                    % state.read(first, 0).get("xdp.dispatcher"))
            first.cmd("start")
            hosts.ping(t, a)
            mine = copies_of(first.proc.pid)
            attached = (bpf.attached_prog_id(p0), bpf.attached_prog_id(p1))
            with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % p0.name], fwd="rxonly",
                                 eal_extra=[testpmd.LOG_INFO],
                                 label="testpmd[second]") as second:
                text = refused(t, second, "same queue")
                t.check(QUEUE_BUSY in text and "queue 0 of %s" % p0.name in text,
                        "same queue: the message says queue 0 of %s is used by another "
                        "socket (%r)" % (p0.name, QUEUE_BUSY))
                rc, _ = second.quit()
                t.equal(rc, 0, "same queue: the second testpmd's exit code")
                t.equal(copies_of(second.proc.pid), [], "same queue: copies the second "
                        "testpmd left loaded")
            t.equal(copies_of(first.proc.pid), mine, "same queue: the first testpmd's copies "
                    "of the built-in program (ids)")
            t.equal((bpf.attached_prog_id(p0), bpf.attached_prog_id(p1)), attached,
                    "same queue: programs attached to p0 and p1 (ids)")
            hosts.ping(t, a)
            first.cmd("stop")
            t.quit_testpmd(first, net)


def received(tp, before, count):
    if count:
        tp.wait_rx(0, before + count)
    return tp.port_stats(0)["RX-packets"] - before


def other_queue(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0", queues=QUEUES)
        vdev = "net_af_xdp0,iface=%s,start_queue=%d,queue_count=1"
        with testpmd.TestPmd(dut, [vdev % (port.name, 0)], fwd="rxonly",
                             eal_extra=[testpmd.LOG_INFO], label="testpmd[first]") as first:
            dispatcher = state.read(first, 0).get("xdp.dispatcher") == "yes"
            env.log("other queue, dispatcher in use: %s" % dispatcher)
            first.cmd("start")
            mine = copies_of(first.proc.pid)
            t.require(len(mine) == 1, "the first testpmd's copy of the built-in program: %s"
                      % mine)
            attached = bpf.attached_prog_id(port)
            with testpmd.TestPmd(dut, [vdev % (port.name, 1)], fwd="rxonly",
                                 eal_extra=[testpmd.LOG_INFO],
                                 label="testpmd[second]") as second:
                before = [first.port_stats(0)["RX-packets"], 0]
                if dispatcher:
                    t.check("Fail to start port" not in second.startup_output,
                            "dispatcher: the second testpmd starts its port on queue 1",
                            "\n".join(dpdk_output.problem_lines(second.startup_output)))
                    second.cmd("start")
                    before[1] = second.port_stats(0)["RX-packets"]
                else:
                    text = refused(t, second, "alone, other queue")
                    owner = re.search(r"XDP program (\S+) \(id (\d+)\) is attached there alone "
                                      r"\(libxdp's dispatcher is not in use\) by process (\d+) "
                                      r"\(started [\d.]+ s after boot\), still running", text)
                    t.check(owner is not None and int(owner.group(2)) == mine[0]
                            and int(owner.group(3)) == first.proc.pid,
                            "alone, other queue: the message names the first's program (id %d) "
                            "and its live owner (pid %d)" % (mine[0], first.proc.pid))
                kernel = traffic.send_spread(port, peer, FRAMES, SIZES, FLOWS, "both")
                t.equal(received(first, before[0], kernel[0]), kernel[0],
                        "first testpmd: RX-packets == the kernel's count of queue 0")
                if dispatcher:
                    t.equal(received(second, before[1], kernel[1]), kernel[1],
                            "dispatcher: second testpmd: RX-packets == the kernel's count "
                            "of queue 1")
                    second.cmd("stop")
                rc, _ = second.quit()
                t.equal(rc, 0, "other queue: the second testpmd's exit code")
            t.equal(copies_of(first.proc.pid), mine, "other queue: the first testpmd's copy "
                    "(id) after the second quit")
            if not dispatcher:
                t.equal(bpf.attached_prog_id(port), attached, "alone: the program attached "
                        "(id) after the second quit")
            before = first.port_stats(0)["RX-packets"]
            kernel = traffic.send_spread(port, peer, FRAMES, SIZES, FLOWS, "after")
            t.equal(received(first, before, kernel[0]), kernel[0],
                    "after the second quit: first testpmd's RX-packets == the kernel's count "
                    "of queue 0")
            first.cmd("stop")
            t.quit_testpmd(first, net)


def main(t):
    if env.is_stock():
        raise env.Skip("the owner mark is this driver's (bpftool metadata afxdp_owner)")
    with bpf.libxdp_bpffs():
        same_queue(t)
        other_queue(t)


if __name__ == "__main__":
    runner.run(main, "second_process", __doc__.splitlines()[0])
