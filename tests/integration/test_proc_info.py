#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpdk-proc-info: a secondary process reads a running testpmd's port stats.

testpmd runs as primary on hugepages (a --no-huge primary shares no memory
with secondaries); the harness adds the pages and a private hugetlbfs mount
and gives both back afterwards. After N frames, `dpdk-proc-info --stats`
and `--xstats` (same plugin, same --file-prefix) must exit 0 and report
RX-packets == N, RX-bytes == their sizes and rx_good_packets == N; after N
more, a second run must report 2N (it reads live counters). The primary must
still answer and count correctly after the secondaries have come and gone.
"""

from afxdp_test import dpdk_output, env, hugepages, runner, testpmd, topo, traffic

SIZES = traffic.SIZES
FRAMES = 300
HUGEPAGES = 192          # 2 MiB each: testpmd's -m 256 plus EAL's own
MEM_MB = 256
SECONDARY_TIMEOUT = 60   # only against a hang


def proc_info(ns, tp, what):
    """Run dpdk-proc-info -- <what>; it shows one of --stats, --xstats per run
    (an else-if chain) and adds -c1 and --proc-type=secondary itself."""
    argv = ([env.proc_info_path()] + testpmd.secondary_eal_args(tp.file_prefix)
            + ["--", what])
    env.log("secondary: ip netns exec %s %s" % (ns.name, " ".join(argv)))
    return testpmd.run_secondary(ns, argv, timeout=SECONDARY_TIMEOUT)


def check_secondary(t, ns, tp, frames, round_):
    rc, out = proc_info(ns, tp, "--stats")
    stats = dpdk_output.port_stats(out).get(0, {})
    ok = t.equal(rc, 0, "dpdk-proc-info --stats (%s) exit code" % round_)
    ok &= t.check(bool(stats), "dpdk-proc-info --stats (%s) printed port 0 stats" % round_)
    t.equal(stats.get("RX-packets"), frames, "RX-packets seen by the secondary (%s)" % round_)
    t.equal(stats.get("RX-bytes"), traffic.expected_bytes(frames, SIZES),
            "RX-bytes seen by the secondary (%s)" % round_)
    if not ok:
        env.log(out[-3000:])

    rc, out = proc_info(ns, tp, "--xstats")
    xstats = dpdk_output.xstats(out).get(0, {})
    ok = t.equal(rc, 0, "dpdk-proc-info --xstats (%s) exit code" % round_)
    ok &= t.check(bool(xstats), "dpdk-proc-info --xstats (%s) printed port 0 xstats" % round_)
    t.equal(xstats.get("rx_good_packets"), frames,
            "rx_good_packets seen by the secondary (%s)" % round_)
    if not ok:
        env.log(out[-3000:])


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

            st = tp.port_stats(0)
            t.equal(st["RX-packets"], 2 * FRAMES, "testpmd still answers, same count")
            tp.cmd("stop")
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "proc_info", __doc__.splitlines()[0])
