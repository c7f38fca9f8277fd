#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""queue_count=2: a 2-queue veth, one AF_XDP socket per queue, both used.

UDP frames of FLOWS flows (source ports) are sent into a veth with 2 receive
queues; the kernel's transmit hash spreads them over both (checked from veth's
own per-queue counters, `ethtool -S`). testpmd (rxonly, --rxq=2) must count
every frame, in total and per queue, and each queue's count must equal the
kernel's count for that queue.
"""

from afxdp_test import dpdk_output, env, runner, testpmd, topo, traffic

QUEUES = 2
FLOWS = 32
SIZES = [128, 512, 1500]
# Fewer frames than one queue's ring holds, even if all hashed to one queue.
FRAMES = 900
# The per-queue Rx packet counters in `show port xstats` (ethdev's names).
PER_QUEUE_RX_PACKETS = "rx_q{q}_packets"
PER_QUEUE_RX_BYTES = "rx_q{q}_bytes"


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0", queues=QUEUES)
        vdev = "net_af_xdp0,iface=%s,queue_count=%d" % (port.name, QUEUES)
        tp = testpmd.TestPmd(dut, [vdev], fwd="rxonly", queues=QUEUES)
        try:
            tp.start()
        except testpmd.TestPmdError:
            why = dpdk_output.problem_lines(tp.transcript)
            t.require(False, "testpmd starts with %s" % vdev + t.stock_note(
                "it reads only the 'combined' channel count, and veth has separate rx/tx "
                "channels (ethtool -l), so it refuses queue_count=2"),
                "\n".join(why))
        with tp:
            tp.cmd("start")
            before = port.kernel_rx_queue_packets()
            traffic.send(peer, port.mac, FRAMES, SIZES, kind="udp", flows=FLOWS)
            st = tp.wait_rx(0, FRAMES)
            kernel = [a - b for a, b in zip(port.kernel_rx_queue_packets(), before)]
            env.log("kernel per-queue receive (veth rx_queue_N_xdp_packets): %s" % kernel)
            if sum(kernel) != FRAMES or min(kernel) == 0:
                raise env.HarnessError("the sender did not spread %d frames over %d queues "
                                       "(veth counted %s)" % (FRAMES, QUEUES, kernel))
            t.equal(st["RX-packets"], FRAMES, "RX-packets (total)")
            t.equal(st["RX-bytes"], traffic.expected_bytes(FRAMES, SIZES), "RX-bytes (total)")
            t.equal(st["RX-missed"], 0, "RX-missed")
            xs = tp.xstats(0)
            names = [PER_QUEUE_RX_PACKETS.format(q=q) for q in range(QUEUES)]
            missing = [n for n in names if n not in xs]
            t.require(not missing, "per-queue counters %s in xstats" % ", ".join(names),
                      "missing: %s; listed: %s" % (missing, ", ".join(xs)))
            per_queue = [xs[n] for n in names]
            t.check(all(n > 0 for n in per_queue), "every queue received frames: %s" % per_queue)
            t.equal(sum(per_queue), FRAMES, "sum of per-queue RX packets")
            t.equal(per_queue, kernel, "per-queue RX packets == the kernel's per-queue counts")
            qbytes = [xs.get(PER_QUEUE_RX_BYTES.format(q=q), -1) for q in range(QUEUES)]
            t.equal(sum(qbytes), traffic.expected_bytes(FRAMES, SIZES), "sum of per-queue RX bytes")
            tp.cmd("stop")
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "multiqueue", __doc__.splitlines()[0])
