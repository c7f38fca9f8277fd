#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpdk-proc-info: a secondary process reads a running testpmd's port stats, the kernel's included.

testpmd runs as primary on hugepages (a --no-huge primary shares no memory
with secondaries); the harness adds the pages and a private hugetlbfs mount
and gives both back afterwards. After N frames, `dpdk-proc-info --stats`
and `--xstats` (same plugin, same --file-prefix) must exit 0 and report
RX-packets == N, RX-bytes == their sizes and rx_good_packets == N; after N
more, a second run must report 2N (it reads live counters).

The kernel's counters (XDP_STATISTICS: the KERNEL_XSTATS below, imissed
among them) are read through the sockets, whose descriptors the primary
passes to the secondary: without them every one reads 0. So, with forwarding
stopped, a burst far larger than the rings makes the kernel drop frames; then
each kernel counter the secondary reads (--xstats; --stats prints no missed
count) must equal the primary's (nothing moves in between), and
rx_missed_errors must be non-zero.
The primary must still answer and count correctly after the secondaries
have come and gone.
"""

import time

from afxdp_test import dpdk_output, env, hugepages, runner, testpmd, topo, traffic

SIZES = traffic.SIZES
FRAMES = 300
# Far more than the Rx and fill rings hold (2048 descriptors by default each).
OVERFLOW = 12000
# The kernel's per-socket counters among the xstats (struct xdp_statistics).
KERNEL_XSTATS = ["rx_q0_dropped", "rx_q0_invalid_descs", "rx_q0_ring_full",
                 "rx_q0_fill_ring_empty_descs", "tx_q0_invalid_descs", "tx_q0_ring_empty_descs",
                 "rx_missed_errors"]     # imissed: the socket's drops
HUGEPAGES = 192          # 2 MiB each: testpmd's -m 256 plus EAL's own
MEM_MB = 256
SECONDARY_TIMEOUT = 60   # only against a hang
SETTLE = 0.5             # after a burst: the last frames reach the socket


def proc_info(ns, tp, what):
    """Run dpdk-proc-info -- <what>; it shows one of --stats, --xstats per run
    (an else-if chain) and adds -c1 and --proc-type=secondary itself."""
    argv = ([env.proc_info_path()] + testpmd.secondary_eal_args(tp.file_prefix)
            + ["--", what])
    env.log("secondary: ip netns exec %s %s" % (ns.name, " ".join(argv)))
    return testpmd.run_secondary(ns, argv, timeout=SECONDARY_TIMEOUT)


def secondary_counters(t, ns, tp, round_):
    """Port 0's stats and xstats as the secondary reads them."""
    counters = {}
    for what, parse in (("--stats", dpdk_output.port_stats), ("--xstats", dpdk_output.xstats)):
        rc, out = proc_info(ns, tp, what)
        got = parse(out).get(0, {})
        ok = t.equal(rc, 0, "dpdk-proc-info %s (%s) exit code" % (what, round_))
        ok &= t.check(bool(got), "dpdk-proc-info %s (%s) printed port 0's counters"
                      % (what, round_))
        if not ok:
            env.log(out[-3000:])
        counters[what] = got
    return counters["--stats"], counters["--xstats"]


def check_secondary(t, ns, tp, frames, round_):
    stats, xstats = secondary_counters(t, ns, tp, round_)
    t.equal(stats.get("RX-packets"), frames, "RX-packets seen by the secondary (%s)" % round_)
    t.equal(stats.get("RX-bytes"), traffic.expected_bytes(frames, SIZES),
            "RX-bytes seen by the secondary (%s)" % round_)
    t.equal(xstats.get("rx_good_packets"), frames,
            "rx_good_packets seen by the secondary (%s)" % round_)


def check_kernel_counters(t, ns, tp, peer, port):
    """The kernel's counters, made to move, read alike by both processes."""
    tp.cmd("stop")
    traffic.send(peer, port.mac, OVERFLOW, [60], stream="overflow")
    time.sleep(SETTLE)
    primary_x = tp.xstats(0)
    _, xstats = secondary_counters(t, ns, tp, "after the overflow")
    missing = [n for n in KERNEL_XSTATS if n not in primary_x]
    t.check(not missing, "the kernel's counters listed by the primary: %s"
            % ", ".join(KERNEL_XSTATS), "missing: %s" % missing + t.stock_note(
                "it lists only ethdev's generic counters"))
    primary = {n: primary_x[n] for n in KERNEL_XSTATS if n in primary_x}
    t.check(any(primary.values()), "after %d frames with nobody polling, a kernel counter "
            "read by the primary is non-zero: %s" % (OVERFLOW, primary))
    t.equal({n: xstats.get(n) for n in primary}, primary,
            "the kernel's counters read by the secondary == the primary's")
    t.check(primary.get("rx_missed_errors", 0) > 0, "rx_missed_errors (RX-missed, from the "
            "kernel) read by the primary after the overflow: %s" % primary.get("rx_missed_errors"))


def main(t):
    env.proc_info_path()        # SKIP at once if it is missing
    with topo.Topology() as net, hugepages.HugePages(HUGEPAGES) as hp:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly",
                             huge_dir=hp.mount, mem_mb=MEM_MB) as tp:
            tp.cmd("start")
            traffic.send(peer, port.mac, FRAMES, SIZES, stream="first")
            st = tp.wait_rx(0, FRAMES)
            t.equal(st["RX-packets"], FRAMES, "RX-packets seen by testpmd")
            check_secondary(t, dut, tp, FRAMES, "first")

            # Sizes cycle with the sequence number: a second stream of FRAMES
            # frames has the same byte count.
            traffic.send(peer, port.mac, FRAMES, SIZES, stream="second")
            st = tp.wait_rx(0, 2 * FRAMES)
            t.equal(st["RX-packets"], 2 * FRAMES, "RX-packets seen by testpmd after more frames")
            check_secondary(t, dut, tp, 2 * FRAMES, "second")

            check_kernel_counters(t, dut, tp, peer, port)

            st = tp.port_stats(0)
            t.equal(st["RX-packets"], 2 * FRAMES, "testpmd still answers, same count")
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "proc_info", __doc__.splitlines()[0])
