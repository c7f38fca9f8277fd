#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""copy_umem: a mempool that cannot be a UMEM (testpmd --mp-alloc=xbuf) gets the driver's, one copy per frame.

testpmd's xbuf mempool has pinned external buffers: the mbufs' data is not
in the mempool, so the mempool cannot be registered as the UMEM. The port
then runs on a UMEM the driver owns and copies every frame once between it
and testpmd's mbufs. On veth pairs in namespaces (hosts.two_hosts()):

  1. The same port with testpmd's default mempool: state
     queue.0.umem.owner = mempool (reason none), rx_q0_copies stays 0.
  2. io forwarding with --mp-alloc=xbuf at MTU 1500: state
     queue.0.umem.owner = driver, reason pinned-external-buffers, the UMEM
     pool the driver's (afxdp_umem_*), not testpmd's; N raw frames of
     several sizes cross a->b and b->a byte for byte, port counters exact;
     rx_q0_copies and tx_q0_copies equal to the frames each port received
     and sent (also after ping and a TCP transfer of TCP_MB MB, sha256
     checked); no frame dropped for want of an mbuf.
  3. port stop/start CYCLES times under traffic: while stopped every mbuf
     of testpmd's pool is back, and the driver's UMEM pool of the socket
     just closed is gone (dump_mempool finds none); frames flow after each
     start, on a new driver's pool.
  4. Multi-buffer: every interface at MTU 9000, testpmd's 2176-byte xbuf
     mbufs with --enable-scatter: frames of 60..9014 bytes cross both ways
     intact (several UMEM chunks, then several mbufs of testpmd's), ping -M
     do -s 8972, a TCP transfer with its sha256, and the copy counters
     equal to the frames.
  5. Rx offloads through the copy: rxonly on two queues with xbuf and
     RSS_HASH and the checksum offloads: each UDP frame of OFFLOAD_FLOWS
     flows arrives with its RSS hash (one per flow, distinct across
     flows) and RTE_MBUF_F_RX_IP_CKSUM_GOOD, as on a port whose mempool
     is the UMEM. Where the kernel refuses the hash's program (asked of it:
     kernel.helper_refusal), the checksum offloads alone: every frame
     GOOD and none with a hash; then a SKIP for the hash, with the
     kernel's words.
  6. Tx checksums through the copy: testpmd's csum engine on xbuf mbufs,
     `csum set ip|tcp|udp hw`, hosts that leave their TCP checksums
     partial and DUT veths with tx checksumming off (the kernel computes
     at the offsets in the Tx metadata in front of the copy, and the
     receiving host verifies): with tx_csum=auto and tx_csum=sw, a TCP
     transfer arrives with its sha256, each port's checksums counted as
     completed by the kernel (auto) or the driver (sw), every frame sent
     a copy.
Each part a TAP line (`copy_umem/<part>`). Needs the kernel's AF_XDP
multi-buffer (Linux 6.6) for part 4, skipped with the reason otherwise;
needs our driver (the stock one refuses xbuf pools).
"""

import contextlib
import os
import re

from afxdp_test import cycles, env, hosts, kernel, runner, state, testpmd, topo, traffic

XBUF = "--mp-alloc=xbuf"
SIZES = traffic.SIZES
FRAMES_PER_SIZE = 100
TCP_MB = 20
CYCLES = 3
BACKGROUND_RATE = 1000
MTU = 9000
JUMBO_APP = ["--enable-scatter", "--max-pkt-len=%d" % (MTU + 14), "--tx-offloads=0x8000"]
JUMBO_SIZES = [60, 1514, 1920, 1921, 3840, 5760, 7000, 9014]
JUMBO_FRAMES_PER_SIZE = 40
OWN_POOL = re.compile(r"afxdp_umem_\d+_\d+$")
RX_OFFLOAD_RSS_HASH = 0x80000
RX_OFFLOAD_CHECKSUM = 0xe           # IPV4_CKSUM | UDP_CKSUM | TCP_CKSUM
ADJUST_META = "bpf_xdp_adjust_meta"
OFFLOAD_FLOWS = 4
OFFLOAD_PER_FLOW = 10
OFFLOAD_SIZES = [100, 200, 300, 400]   # one per flow
VERBOSE_LINE = (r"type=0x0800 - length=(\d+) - nb_segs=\d+([^\n]*)\n"
                r"\s*ol_flags: ([^\n]*)\n")


def raw_frames(t, src, dst, count, sizes, label):
    with traffic.Capture(dst, src=src.mac, dst=dst.mac, count=count, sizes=sizes,
                         stream=label) as cap:
        traffic.send(src, dst.mac, count, sizes, stream=label)
    t.check(traffic.all_intact(cap.result), "%s: %s" % (label, traffic.summary(cap.result)))


def umem_keys(t, tp, port):
    q = state.queue_keys(state.read(tp, port), 0)
    return q.get("umem.owner"), q.get("umem.owner.reason"), q.get("umem.pool", "")


def check_driver_umem(t, tp, ports):
    for port in ports:
        owner, reason, pool = umem_keys(t, tp, port)
        t.check((owner, reason) == ("driver", "pinned-external-buffers")
                and OWN_POOL.match(pool) is not None and pool != tp.rx_pool(port),
                "port %d: queue.0.umem.owner %s, reason %s, UMEM pool %s (testpmd's %s)"
                % (port, owner, reason, pool, tp.rx_pool(port)))


def check_copies(t, tp, ports, what):
    """Each port's copy counters equal the frames it received and sent."""
    for port in ports:
        st, xs = tp.port_stats(port), tp.xstats(port)
        t.equal((xs.get("rx_q0_copies"), xs.get("tx_q0_copies"), xs.get("rx_q0_copy_nombuf"),
                 st["RX-nombuf"]),
                (st["RX-packets"], st["TX-packets"], 0, 0),
                "%s: port %d rx_q0_copies, tx_q0_copies = RX-packets, TX-packets; "
                "rx_q0_copy_nombuf, RX-nombuf 0" % (what, port))


def mempool_gone(tp, name):
    out = tp.cmd("dump_mempool %s" % name)
    if "Command not found" in out:
        out = tp.cmd("dump mempool %s" % name)
    return not re.search(r"^\s*size=\d+", out, re.M)


def plain_pool(t, net):
    """Part 1: testpmd's own mempool is the UMEM, nothing copied."""
    dut, gen = net.netns("dut0"), net.netns("gen0")
    port, peer = net.veth(dut, "d0", gen, "g0")
    with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly",
                         label="testpmd[mempool]") as tp:
        tp.cmd("start")
        traffic.send(peer, port.mac, 100, [60])
        st = tp.wait_rx(0, 100)
        owner, reason, pool = umem_keys(t, tp, 0)
        t.equal((owner, reason, pool), ("mempool", "none", tp.rx_pool(0)),
                "default mempool: queue.0.umem.owner, reason, pool")
        t.equal((st["RX-packets"], tp.xstats(0).get("rx_q0_copies")), (100, 0),
                "default mempool: RX-packets, rx_q0_copies")
        tp.cmd("stop")
        t.quit_testpmd(tp, net)


def stop_start(t, tp, h0, p0):
    pool = tp.rx_pool(0)
    size = tp.mempool(pool)["size"]
    own = {}

    def before_stop(i):
        own[i] = [umem_keys(t, tp, port)[2] for port in (0, 1)]

    def stopped(i):
        t.equal(tp.mempool(pool)["avail"], size,
                "cycle %d: testpmd's mbufs all back with both ports stopped" % i)
        t.check(all(mempool_gone(tp, name) for name in own[i]),
                "cycle %d: the driver's UMEM pools %s freed at stop" % (i, ", ".join(own[i])))

    def started(i):
        now = [umem_keys(t, tp, port)[2] for port in (0, 1)]
        t.check(all(OWN_POOL.match(n) for n in now) and now != own[i],
                "cycle %d: new driver's pools %s" % (i, ", ".join(now)))

    res = cycles.run(tp, CYCLES, port="all", forwarding=True,
                     hooks=cycles.stream_hooks(t, tp, h0, p0, rate=BACKGROUND_RATE, size=1000,
                                               before_stop=before_stop, stopped=stopped,
                                               started=started))
    t.check(res.all_ok(), "both ports stopped and started %d times: %s" % (CYCLES, res),
            "\n".join(res.reasons))
    tp.cmd("stop")
    tp.cmd("port stop all")
    t.equal(tp.mempool(pool)["avail"], size, "after the cycles: testpmd's mbufs all back")
    tp.cmd("port start all")


def forwarding(t, net):
    """Parts 2 and 3: MTU 1500, io forwarding on xbuf mbufs."""
    dut, a, b, p0, h0, p1, h1 = hosts.two_hosts(net)
    vdevs = ["net_af_xdp0,iface=%s" % p0.name, "net_af_xdp1,iface=%s" % p1.name]
    with testpmd.TestPmd(dut, vdevs, fwd="io", eal_extra=[testpmd.LOG_INFO],
                         app_extra=[XBUF], label="testpmd[xbuf]") as tp:
        tp.cmd("start")
        check_driver_umem(t, tp, (0, 1))
        count = FRAMES_PER_SIZE * len(SIZES)
        raw_frames(t, h0, h1, count, SIZES, "a->b raw frames")
        raw_frames(t, h1, h0, count, SIZES, "b->a raw frames")
        nbytes = traffic.expected_bytes(count, SIZES)
        for port in (0, 1):
            s = tp.port_stats(port)
            t.equal((s["RX-packets"], s["RX-bytes"], s["TX-packets"], s["TX-bytes"]),
                    (count, nbytes, count, nbytes), "port %d RX/TX packets and bytes" % port)
        check_copies(t, tp, (0, 1), "raw frames")
        hosts.ping(t, a, where_lost=tp.where_lost)
        hosts.tcp_transfer(t, a, b, mb=TCP_MB)
        check_copies(t, tp, (0, 1), "after ping and TCP")
        stop_start(t, tp, h0, p0)
        tp.cmd("stop")
        t.quit_testpmd(tp, net)


def jumbo(t, net):
    """Part 4: MTU 9000, frames of several chunks and several xbuf mbufs."""
    dut, a, b, p0, h0, p1, h1 = hosts.two_hosts(net, mtu=MTU)
    vdevs = ["net_af_xdp0,iface=%s" % p0.name, "net_af_xdp1,iface=%s" % p1.name]
    with testpmd.TestPmd(dut, vdevs, fwd="io", eal_extra=[testpmd.LOG_INFO],
                         app_extra=[XBUF] + JUMBO_APP, label="testpmd[xbuf jumbo]") as tp:
        tp.cmd("start")
        check_driver_umem(t, tp, (0, 1))
        for port in (0, 1):
            st = state.read(tp, port)
            t.require(st.get("rx.burst") == "multi-buffer",
                      "port %d: sockets bound for frames of several chunks (rx.burst %s)"
                      % (port, st.get("rx.burst")))
        count = JUMBO_FRAMES_PER_SIZE * len(JUMBO_SIZES)
        raw_frames(t, h0, h1, count, JUMBO_SIZES, "a->b frames of 60..9014 bytes")
        raw_frames(t, h1, h0, count, JUMBO_SIZES, "b->a frames of 60..9014 bytes")
        check_copies(t, tp, (0, 1), "jumbo raw frames")
        for port in (0, 1):
            xs = tp.xstats(port)
            t.check(xs.get("rx_q0_multi_buffer", 0) > 0 and xs.get("tx_q0_multi_buffer", 0) > 0,
                    "port %d: frames of several descriptors received and sent (rx %s, tx %s)"
                    % (port, xs.get("rx_q0_multi_buffer"), xs.get("tx_q0_multi_buffer")))
        hosts.ping(t, a, size=MTU - 28, where_lost=tp.where_lost)
        hosts.tcp_transfer(t, a, b, mb=TCP_MB)
        check_copies(t, tp, (0, 1), "jumbo, after ping and TCP")
        tp.cmd("stop")
        t.quit_testpmd(tp, net)


def offloads(t, net):
    """Part 5: the Rx offloads' fields copied into testpmd's mbufs."""
    refusal = kernel.helper_refusal(ADJUST_META)
    hashed = refusal is None
    dut, gen = net.netns("dut5"), net.netns("gen5")
    port, peer = net.veth(dut, "d5", gen, "g5", queues=2)
    offloads = RX_OFFLOAD_CHECKSUM | (RX_OFFLOAD_RSS_HASH if hashed else 0)
    # Two queues: testpmd keeps RSS_HASH only with RSS.
    with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s,queue_count=2" % port.name],
                         fwd="rxonly", queues=2, label="testpmd[xbuf offloads]",
                         app_extra=[XBUF, "--rx-offloads=0x%x" % offloads]) as tp:
        st = state.read(tp)
        t.require(st.get("state") == "started", "offloads: port started")
        t.equal((st.get("rx.cksum"), st.get("rx.offloads"),
                 state.queue_keys(st, 0).get("umem.owner")),
                ("ipv4", "rss_hash" if hashed else "none", "driver"),
                "offloads: state rx.cksum, rx.offloads, queue.0.umem.owner")
        count = OFFLOAD_FLOWS * OFFLOAD_PER_FLOW
        tp.cmd("set verbose 1")
        tp.cmd("start")
        traffic.send(peer, port.mac, count, OFFLOAD_SIZES, kind="udp", flows=OFFLOAD_FLOWS,
                     stream="offloads")
        seen = tp.wait_output(VERBOSE_LINE, count)
        tp.cmd("stop")
        tp.cmd("set verbose 0")
        t.equal(len(seen), count, "offloads: frames shown by `set verbose 1`")
        hashes, good = {}, 0
        for length, rest, flags in seen:
            h = re.search(r" - RSS hash=(0x[0-9a-f]+)", rest)
            hashes.setdefault(int(length), set()).add(h.group(1) if h else None)
            good += "RTE_MBUF_F_RX_IP_CKSUM_GOOD" in flags
        if hashed:
            t.check(sorted(hashes) == OFFLOAD_SIZES and all(
                        len(hs) == 1 and None not in hs for hs in hashes.values())
                    and len({next(iter(hs)) for hs in hashes.values()}) == OFFLOAD_FLOWS,
                    "offloads: every frame has its flow's RSS hash, distinct across flows: %s"
                    % {n: sorted(map(str, hs)) for n, hs in sorted(hashes.items())})
        else:
            t.equal({n: sorted(map(str, hs)) for n, hs in sorted(hashes.items())},
                    {n: ["None"] for n in OFFLOAD_SIZES},
                    "offloads: no frame has an RSS hash (not asked: the kernel refuses it)")
        t.equal(good, count, "offloads: frames with RTE_MBUF_F_RX_IP_CKSUM_GOOD")
        xs = tp.xstats(0)
        t.equal(xs.get("rx_q0_copies", 0) + xs.get("rx_q1_copies", 0), count,
                "offloads: rx_q0_copies + rx_q1_copies")
        t.quit_testpmd(tp, net)
    if not hashed:
        raise env.Skip("the RSS hash through the copy not checked: the kernel refuses its "
                       "program (%s: %s); the checksums were" % (ADJUST_META, refusal))


def tx_checksums(t, net):
    """Part 6: checksum requests honoured on the copies."""
    dut, a, b, p0, h0, p1, h1 = hosts.two_hosts(net, tx_csum=True)
    for p in (p0, p1):
        env.run(["ethtool", "-K", p.name, "tx", "off"], ns=dut.name)
    for sw in (False, True):
        label = "tx_csum=%s" % ("sw" if sw else "auto")
        extra = ",tx_csum=sw" if sw else ""
        vdevs = ["net_af_xdp0,iface=%s%s" % (p0.name, extra),
                 "net_af_xdp1,iface=%s%s" % (p1.name, extra)]
        with testpmd.TestPmd(dut, vdevs, fwd="csum", app_extra=[XBUF],
                             label="testpmd[xbuf csum %s]" % label) as tp:
            tp.cmd("port stop all")
            for port in (0, 1):
                for proto in ("ip", "tcp", "udp"):
                    tp.cmd("csum set %s hw %d" % (proto, port))
            tp.cmd("port start all")
            tp.cmd("set eth-peer 0 %s" % h0.mac)
            tp.cmd("set eth-peer 1 %s" % h1.mac)
            check_driver_umem(t, tp, (0, 1))
            tp.cmd("start")
            hosts.tcp_transfer(t, a, b, mb=TCP_MB)
            for port in (0, 1):
                st, xs = tp.port_stats(port), tp.xstats(port)
                done = xs.get("tx_q0_csum_sw" if sw else "tx_q0_csum_kernel", 0)
                t.check(done >= (1000 if port == 1 else 100)
                        and xs.get("tx_q0_copies") == st["TX-packets"],
                        "%s: port %d: checksums completed by the %s: %s (kernel %s, driver "
                        "%s); tx_q0_copies %s of TX-packets %s" % (
                            label, port, "driver" if sw else "kernel", done,
                            xs.get("tx_q0_csum_kernel"), xs.get("tx_q0_csum_sw"),
                            xs.get("tx_q0_copies"), st["TX-packets"]))
            tp.cmd("stop")
            t.quit_testpmd(tp, net)


def jumbo_if_multi_buffer(t, net):
    if not kernel.multi_buffer():
        raise env.Skip("kernel %s has no AF_XDP multi-buffer (no struct xdp_sock.sg in its "
                       "BTF)" % os.uname().release)
    jumbo(t, net)


def in_topology(part):
    """A part run in a topology of its own."""
    def run(t, _):
        with topo.Topology() as net:
            part(t, net)
    return run


@contextlib.contextmanager
def setup(t):
    if env.is_stock():
        raise env.Skip("Debian's stock net_af_xdp refuses a mempool with pinned external "
                       "buffers")
    yield None


CHECKS = [
    ("plain_pool", in_topology(plain_pool)),
    ("forwarding", in_topology(forwarding)),
    ("offloads", in_topology(offloads)),
    ("tx_checksums", in_topology(tx_checksums)),
    ("jumbo", in_topology(jumbo_if_multi_buffer)),
]


if __name__ == "__main__":
    runner.run_session("copy_umem", __doc__.splitlines()[0], setup, CHECKS)
