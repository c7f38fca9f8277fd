#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""two ports on two queues of one veth: one XDP attachment, each queue's frames on its own port.

A veth with 2 queues; testpmd (rxonly) gets two ports on it:
`net_af_xdp0,iface=X,start_queue=0` and `net_af_xdp1,iface=X,start_queue=1`.
Checks: both probe and start (their state blocks name one program, the
one attached to the interface, and each port's socket on its own queue); UDP frames of FLOWS flows, spread by the sender over both queues
(veth's own per-queue counters, `ethtool -S`), arrive exactly: port N counts
what the kernel counted on queue N, and the two add up to what was sent;
`port stop 0` leaves the program in place for port 1, which still takes its
queue's frames (queued in its ring while forwarding is off: testpmd forwards
only when every port is started), while queue 0's frames now go to the
kernel, not to port 0; `port start 0` joins the attachment again; after quit
no XDP program is left.
"""

from afxdp_test import bpf, dpdk_output, runner, state, testpmd, topo, traffic

QUEUES = 2
FLOWS = 32
SIZES = [128, 512, 1500]
FRAMES = 900             # fewer than one ring holds, even if all hashed to one queue
FRAMES_AFTER_STOP = 300


def rx_packets(tp):
    return [tp.port_stats(p)["RX-packets"] for p in range(QUEUES)]


def send_spread(port, peer, count, stream):
    """Send `count` UDP frames over both queues; returns the kernel's
    per-queue counts of them."""
    return traffic.send_spread(port, peer, count, SIZES, FLOWS, stream)


def received(tp, before, expect):
    """Wait until each port p has received expect[p] more frames (or the
    guard deadline); returns the per-port deltas."""
    for p in range(QUEUES):
        if expect[p]:
            tp.wait_rx(p, before[p] + expect[p])
    return [a - b for a, b in zip(rx_packets(tp), before)]


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0", queues=QUEUES)
        vdevs = ["net_af_xdp%d,iface=%s,start_queue=%d" % (q, port.name, q) for q in range(QUEUES)]
        tp = testpmd.TestPmd(dut, vdevs, fwd="rxonly", eal_extra=[testpmd.LOG_INFO])
        try:
            tp.start()
        except testpmd.TestPmdError:
            t.require(False, "testpmd starts with %s" % " ".join(vdevs),
                      "\n".join(dpdk_output.problem_lines(tp.transcript)))
        with tp:
            log = tp.startup_output
            t.equal(tp.port_count(), QUEUES, "ports probed")
            t.check("Fail to start port" not in log, "both ports started",
                    "\n".join(dpdk_output.problem_lines(log)))
            blocks = [state.read(tp, q) for q in range(QUEUES)]
            t.equal({b.get("xdp.attached_id") for b in blocks}, {str(bpf.attached_prog_id(port))},
                    "both ports' XDP program (state xdp.attached_id) is the one attached")
            t.equal(len({b.get("xdp.program_id") for b in blocks}), 1,
                    "one program, shared by both ports (state xdp.program_id)")
            for q in range(QUEUES):
                t.equal(blocks[q].get("queue.0.netdev_queue"), str(q),
                        "port %d's socket is on queue %d (state queue.0.netdev_queue)" % (q, q))
            t.check(port.xdp_word() is not None, "an XDP program is attached to %s" % port.name)

            tp.cmd("start")
            before = rx_packets(tp)
            kernel = send_spread(port, peer, FRAMES, "both")
            got = received(tp, before, kernel)
            t.equal(got, kernel, "RX-packets per port == the kernel's count of its queue")
            t.equal(sum(got), FRAMES, "RX-packets of both ports")
            for p in range(QUEUES):
                st = tp.port_stats(p)
                t.equal(st["RX-missed"], 0, "port %d RX-missed" % p)
            tp.cmd("stop")

            # Port 0 leaves; the program stays for port 1, whose socket still
            # takes its queue's frames (polled once forwarding is back on).
            tp.cmd("port stop 0")
            t.check(port.xdp_word() is not None,
                    "after `port stop 0`, the program is still attached for port 1")
            before = rx_packets(tp)
            kernel = send_spread(port, peer, FRAMES_AFTER_STOP, "after-stop")
            tp.cmd("port start 0")
            t.check(port.xdp_word() is not None, "after `port start 0`, a program is attached")
            tp.cmd("start")
            got = received(tp, before, [0, kernel[1]])
            t.equal(got[1], kernel[1], "port 1: RX-packets of frames sent while port 0 was "
                    "stopped == the kernel's count of queue 1")
            t.equal(got[0], 0, "port 0: RX-packets of frames sent while it was stopped "
                    "(they went to the kernel)")
            before = rx_packets(tp)
            kernel = send_spread(port, peer, FRAMES_AFTER_STOP, "after-restart")
            got = received(tp, before, kernel)
            t.equal(got, kernel, "after `port start 0`: RX-packets per port == the kernel's "
                    "count of its queue")
            tp.cmd("stop")
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "same_iface", __doc__.splitlines()[0])
