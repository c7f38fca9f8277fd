#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""io forwarding: two ports carry frames byte for byte, ping and a TCP transfer.

    netns a: h0 10.99.0.1/24 == veth == p0 (net_af_xdp0)  netns dut: testpmd io
    netns b: h1 10.99.0.2/24 == veth == p1 (net_af_xdp1)

Checks: N raw frames of several sizes cross a->b and b->a intact (verified
byte for byte, none missing, duplicated or extra) and the port counters agree;
ping a->b loses nothing; a 20 MB random file sent with nc over TCP arrives with
the same sha256 (offloads off on h0 and h1: nothing would complete them);
testpmd quits with 0 and leaves no XDP program behind.
"""

from afxdp_test import env, hosts, runner, testpmd, topo, traffic

SIZES = traffic.SIZES
FRAMES_PER_SIZE = 100        # below one ring's worth: see test_rxonly


def raw_frames(t, tp, src, dst, count, label):
    with traffic.Capture(dst, src=src.mac, dst=dst.mac, count=count, sizes=SIZES,
                         stream=label) as cap:
        traffic.send(src, dst.mac, count, SIZES, stream=label)
    res = cap.result
    t.check(traffic.all_intact(res), "%s: %s" % (label, traffic.summary(res)))
    if res["foreign"]:
        env.log("note: %d other frames seen on %s" % (res["foreign"], dst))
    return res


def main(t):
    count = FRAMES_PER_SIZE * len(SIZES)
    with topo.Topology() as net:
        dut, a, b, p0, h0, p1, h1 = hosts.two_hosts(net)
        vdevs = ["net_af_xdp0,iface=%s" % p0.name, "net_af_xdp1,iface=%s" % p1.name]
        with testpmd.TestPmd(dut, vdevs, fwd="io") as tp:
            tp.cmd("start")
            raw_frames(t, tp, h0, h1, count, "a->b raw frames")
            raw_frames(t, tp, h1, h0, count, "b->a raw frames")
            nbytes = traffic.expected_bytes(count, SIZES)
            s0, s1 = tp.port_stats(0), tp.port_stats(1)
            t.equal((s0["RX-packets"], s0["RX-bytes"], s0["TX-packets"], s0["TX-bytes"]),
                    (count, nbytes, count, nbytes), "port 0 RX/TX packets and bytes")
            t.equal((s1["RX-packets"], s1["RX-bytes"], s1["TX-packets"], s1["TX-bytes"]),
                    (count, nbytes, count, nbytes), "port 1 RX/TX packets and bytes")

            hosts.ping(t, a, where_lost=tp.where_lost)

            hosts.tcp_transfer(t, a, b)
            st = [tp.port_stats(p) for p in (0, 1)]
            env.log("after TCP: port 0 RX %d TX %d, port 1 RX %d TX %d, missed %d/%d" % (
                st[0]["RX-packets"], st[0]["TX-packets"], st[1]["RX-packets"],
                st[1]["TX-packets"], st[0]["RX-missed"], st[1]["RX-missed"]))
            tp.cmd("stop")
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "io_fwd", __doc__.splitlines()[0])
