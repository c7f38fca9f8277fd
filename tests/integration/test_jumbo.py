#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""jumbo: MTU 9000 through AF_XDP multi-buffer: frames of several UMEM chunks received and forwarded whole.

Every interface at MTU 9000; testpmd with --enable-scatter, --max-pkt-len
9014 and the multi-segment Tx offload, its default 2176-byte mbufs (a chunk
holds a frame of 1920 bytes, so a 9014-byte frame takes 5 descriptors).

  1. rxonly on a veth: exactly N frames of sizes from 60 to 9014 (one chunk
     exactly, one byte more, two and three chunks exactly, ...) arrive, each
     of its length (`set verbose 1`), RX-packets and RX-bytes exact, none
     missed; rx_q0_multi_buffer counts the frames of several descriptors.
  2. io forwarding between two hosts (hosts.py): the same sizes cross a->b
     and b->a byte for byte; 64- and 9000-byte frames mixed in one stream
     arrive complete and in order; ping -M do -s 8972 loses nothing; a TCP
     transfer of TCP_MB MB at MTU 9000 arrives with its sha256; no frame
     dropped for too many segments.
  3. port stop/start with 9000-byte frames in flight, CYCLES times: while
     stopped every mbuf of the pool is back (no chain lost, none half kept),
     and frames flow again after the start.
  4. Multi-buffer only where frames span chunks (issue 26), even with the
     Rx scatter or Tx multi-segment offload: for each combination of MTU,
     those offloads and mbuf size in
     COMBOS, the state block's frame.multi_buffer (and its reason),
     queue.0.multi_buffer and rx.burst, and full-size frames received whole
     in as many segments as that binding gives (one, or one per chunk).
  5. Open vSwitch's case: io forwarding between two hosts at MTU 2500 with
     scatter and multi-segment Tx, on page-sized mbufs: the sockets are
     bound for one chunk (frame.multi_buffer = no, fits-one-chunk), frames
     of 60..2514 bytes cross both ways intact, and ping -M do -s 2472.
In zero-copy mode (AFXDP_SOCKET_MODE=zero-copy, vm-zc/jumbo) 1, 4 and 5
run, checking what that mode means here: the patched kernel's veth takes
one buffer per frame in zero-copy mode (xdp_zc_max_segs 1), so the kernel
binds a multi-buffer socket in copy mode; in 1 the port's state block must
say queue.0.mode = copy, queue.0.multi_buffer = yes, and the frames arrive
as in the copy-mode run; in 4 and 5 a socket bound for one chunk, scatter
asked or not, is zero-copy. Parts 2 and 3 would repeat the copy-mode run
(vm-copy/jumbo) exactly. In the VM's copy-mode boot (AFXDP_SOCKET_MODE=copy,
vm-copy/jumbo) 1, 2 and 3 run, the patched kernel's copy-mode receive of
frames of several descriptors, with a TCP transfer of VM_TCP_MB MB; 4 and 5
check the driver's choice of binding, which the host's run and the
zero-copy boot's make in copy mode and in zero-copy.
Needs the kernel's AF_XDP multi-buffer (Linux 6.6): skipped with the reason
on an older kernel, or with Debian's stock driver, which has none (upstream
refuses an MTU above one chunk).
"""

import collections
import os
import re

from afxdp_test import cycles, env, hosts, kernel, runner, state, testpmd, topo, traffic

MTU = 9000
APP = ["--enable-scatter", "--max-pkt-len=%d" % (MTU + 14), "--tx-offloads=0x8000"]
# With 2176-byte mbufs a chunk holds 1920 bytes of frame.
SIZES = [60, 1514, 1920, 1921, 3840, 5760, 7000, 9014]
FRAMES_PER_SIZE = 40
MIXED = [64, 9000]
MIXED_FRAMES = 400
TCP_MB = 50
VM_TCP_MB = 10          # under the VM's emulated CPU: what the sha256 needs, not a load
CYCLES = 3
BACKGROUND_RATE = 1000
VERBOSE_LINE = r"type=0x[0-9a-f]+ - length=(\d+) - nb_segs=(\d+)"
# Part 4: (MTU, testpmd options, frame.multi_buffer, its reason, the chunk's
# frame). --max-pkt-len sets the port's MTU; 4096-byte mbufs hold a frame of
# 3840 bytes, testpmd's default 2176-byte ones 1920.
SCATTER, MULTI_SEG_TX, PAGE_MBUF = "--enable-scatter", "--tx-offloads=0x8000", "--mbuf-size=4096"
OVS_MTU = 2500               # Open vSwitch asks for scatter from this MTU
COMBOS = [
    (OVS_MTU, [SCATTER, MULTI_SEG_TX, PAGE_MBUF], "no", "fits-one-chunk", 3840),
    (OVS_MTU, [SCATTER, MULTI_SEG_TX], "yes", "frames-span-chunks", 1920),
    (OVS_MTU, [PAGE_MBUF], "no", "not-asked", 3840),
    (1500, [MULTI_SEG_TX], "no", "fits-one-chunk", 1920),
]
COMBO_FRAMES = 20



def zero_copy_run():
    return env.socket_mode() == "zero-copy"


def require_multi_buffer(t, tp, ports=(0,)):
    """Each port receives chains (rx.burst) on sockets bound with XDP_USE_SG."""
    for port in ports:
        st = state.read(tp, port)
        t.require((st.get("rx.burst"), state.queue_keys(st, 0).get("multi_buffer"))
                  == ("multi-buffer", "yes"),
                  "port %d receives frames of several descriptors (state rx.burst %s, "
                  "queue.0.multi_buffer %s)" % (port, st.get("rx.burst"),
                                                st.get("queue.0.multi_buffer")))


def rxonly(t, net):
    dut, gen = net.netns("dut1"), net.netns("gen1")
    port, peer = net.veth(dut, "d0", gen, "g0")
    for ifc in (port, peer):
        ifc.set_mtu(MTU)
    count = FRAMES_PER_SIZE * len(SIZES)
    with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly",
                         eal_extra=[testpmd.LOG_INFO], app_extra=APP,
                         label="testpmd[rxonly]", check_mode=not zero_copy_run()) as tp:
        tp.cmd("set verbose 1")
        tp.cmd("start")
        require_multi_buffer(t, tp)
        if zero_copy_run():
            t.equal(state.socket_modes(state.read(tp, 0)), ["copy"],
                    "zero-copy asked, multi-buffer: the kernel bound the socket in copy mode "
                    "(state queue.0.mode)")
        traffic.send(peer, port.mac, count, SIZES, stream="rx")
        seen = tp.wait_output(VERBOSE_LINE, count)
        tp.cmd("stop")
        tp.cmd("set verbose 0")
        lengths = collections.Counter(int(length) for length, _ in seen)
        t.equal(dict(lengths), {s: FRAMES_PER_SIZE for s in SIZES},
                "frames received by length (`set verbose 1`)")
        segs = {int(length): int(n) for length, n in seen}
        t.equal(segs, {s: (s - 1) // 1920 + 1 for s in SIZES},
                "segments per frame (a chunk holds 1920 bytes)")
        st = tp.port_stats(0)
        t.equal((st["RX-packets"], st["RX-bytes"], st["RX-missed"], st["RX-nombuf"]),
                (count, traffic.expected_bytes(count, SIZES), 0, 0),
                "RX-packets, RX-bytes, RX-missed, RX-nombuf")
        xs = tp.xstats(0)
        multi = sum(FRAMES_PER_SIZE for s in SIZES if s > 1920)
        t.equal((xs.get("rx_q0_multi_buffer"), xs.get("rx_q0_chains_dropped")), (multi, 0),
                "rx_q0_multi_buffer, rx_q0_chains_dropped")
        t.quit_testpmd(tp, net)


def raw_frames(t, src, dst, count, sizes, label, in_order=False):
    with traffic.Capture(dst, src=src.mac, dst=dst.mac, count=count, sizes=sizes,
                         stream=label) as cap:
        traffic.send(src, dst.mac, count, sizes, stream=label)
    t.check(traffic.all_intact(cap.result, in_order=in_order),
            "%s: %s%s" % (label, traffic.summary(cap.result),
                          ", %d out of order" % cap.result["reordered"] if in_order else ""))


def pool_name(tp):
    m = re.search(r"Mempool:\s*(\S+)", tp.cmd("show rxq info 0 0"))
    return m.group(1) if m else "mb_pool_0"


def stop_start(t, tp, h0, p0):
    pool = pool_name(tp)
    size = tp.mempool(pool)["size"]

    def stopped(i):
        t.equal(tp.mempool(pool)["avail"], size, "cycle %d: mbufs available with both ports "
                "stopped under 9000-byte traffic" % i)

    res = cycles.run(tp, CYCLES, port="all", forwarding=True,
                     hooks=cycles.stream_hooks(t, tp, h0, p0, rate=BACKGROUND_RATE, size=MTU,
                                               stopped=stopped))
    t.check(res.all_ok(), "both ports stopped and started %d times: %s" % (CYCLES, res),
            "\n".join(res.reasons))


def forwarding(t, net):
    dut, a, b, p0, h0, p1, h1 = hosts.two_hosts(net, mtu=MTU)
    vdevs = ["net_af_xdp0,iface=%s" % p0.name, "net_af_xdp1,iface=%s" % p1.name]
    with testpmd.TestPmd(dut, vdevs, fwd="io", eal_extra=[testpmd.LOG_INFO], app_extra=APP,
                         label="testpmd[io]") as tp:
        tp.cmd("start")
        require_multi_buffer(t, tp, ports=(0, 1))
        count = FRAMES_PER_SIZE * len(SIZES)
        raw_frames(t, h0, h1, count, SIZES, "a->b frames of 60..9014 bytes")
        raw_frames(t, h1, h0, count, SIZES, "b->a frames of 60..9014 bytes")
        raw_frames(t, h0, h1, MIXED_FRAMES, MIXED, "a->b 64 and 9000 bytes mixed",
                   in_order=True)
        hosts.ping(t, a, size=MTU - 28, where_lost=tp.where_lost)
        hosts.tcp_transfer(t, a, b, mb=VM_TCP_MB if env.socket_mode() else TCP_MB)
        for port in (0, 1):
            xs = tp.xstats(port)
            t.check(xs.get("rx_q0_multi_buffer", 0) > 0 and xs.get("tx_q0_multi_buffer", 0) > 0,
                    "port %d: frames of several descriptors received and sent (rx %s, tx %s)"
                    % (port, xs.get("rx_q0_multi_buffer"), xs.get("tx_q0_multi_buffer")))
            t.equal((xs.get("rx_q0_chains_dropped"), xs.get("tx_q0_too_many_segs"),
                     xs.get("tx_q0_dropped")), (0, 0, 0),
                    "port %d: chains dropped, too many segments, too long" % port)
        stop_start(t, tp, h0, p0)
        tp.cmd("stop")
        t.quit_testpmd(tp, net)


def max_pkt_len(mtu):
    return "--max-pkt-len=%d" % (mtu + 14)


def frame_keys(st):
    return (st.get("frame.multi_buffer"), st.get("frame.multi_buffer.reason"),
            state.queue_keys(st, 0).get("multi_buffer"), st.get("rx.burst"))


def combinations(t, net):
    """Part 4: the binding per MTU/scatter/mbufs, and full-size frames received whole."""
    dut, gen = net.netns("dutc"), net.netns("genc")
    port, peer = net.veth(dut, "d0", gen, "g0")
    for mtu, app, multi, reason, chunk in COMBOS:
        what = "MTU %d %s" % (mtu, " ".join(app))
        for ifc in (port, peer):
            ifc.set_mtu(mtu)
        sizes = [60, mtu + 14]
        with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly",
                             app_extra=app + [max_pkt_len(mtu)], label="testpmd[%s]" % what,
                             check_mode=False) as tp:
            tp.cmd("set verbose 1")
            tp.cmd("start")
            st = state.read(tp, 0)
            t.equal(frame_keys(st), (multi, reason, multi,
                                     "multi-buffer" if multi == "yes" else "single"),
                    "%s: frame.multi_buffer, its reason, queue.0.multi_buffer, rx.burst" % what)
            t.equal((st.get("frame.largest"), st.get("frame.chunk")),
                    (str(mtu + 14), str(chunk)), "%s: frame.largest, frame.chunk" % what)
            if zero_copy_run():
                t.equal(state.socket_modes(st), ["copy" if multi == "yes" else "zero-copy"],
                        "%s: the socket's mode (zero-copy unless bound multi-buffer)" % what)
            count = COMBO_FRAMES * len(sizes)
            traffic.send(peer, port.mac, count, sizes, stream="combo-%d" % len(app))
            seen = tp.wait_output(VERBOSE_LINE, count)
            tp.cmd("stop")
            tp.cmd("set verbose 0")
            got = collections.Counter((int(n), int(k)) for n, k in seen)
            want = {(s, (s - 1) // chunk + 1 if multi == "yes" else 1): COMBO_FRAMES
                    for s in sizes}
            t.equal(dict(got), want, "%s: frames received whole by (length, segments)" % what)
            xs = tp.xstats(0)
            t.equal((xs.get("rx_q0_dropped", 0), xs.get("rx_q0_chains_dropped", 0)), (0, 0),
                    "%s: rx_q0_dropped, rx_q0_chains_dropped" % what)
            t.quit_testpmd(tp, net)


def ovs_case(t, net):
    """Part 5: forwarding at MTU 2500 with scatter and page-sized mbufs: one chunk a frame."""
    dut, a, b, p0, h0, p1, h1 = hosts.two_hosts(net, mtu=OVS_MTU)
    vdevs = ["net_af_xdp0,iface=%s" % p0.name, "net_af_xdp1,iface=%s" % p1.name]
    sizes = [60, 1514, OVS_MTU + 14]
    with testpmd.TestPmd(dut, vdevs, fwd="io", app_extra=COMBOS[0][1] + [max_pkt_len(OVS_MTU)],
                         label="testpmd[io, MTU %d]" % OVS_MTU, check_mode=False) as tp:
        tp.cmd("start")
        for port in (0, 1):
            st = state.read(tp, port)
            t.equal(frame_keys(st), ("no", "fits-one-chunk", "no", "single"),
                    "port %d at MTU %d with scatter: frame.multi_buffer, reason, "
                    "queue.0.multi_buffer, rx.burst" % (port, OVS_MTU))
            if zero_copy_run():
                t.equal(state.socket_modes(st), ["zero-copy"],
                        "port %d at MTU %d with scatter: zero-copy kept" % (port, OVS_MTU))
        count = FRAMES_PER_SIZE * len(sizes)
        raw_frames(t, h0, h1, count, sizes, "a->b frames of 60..%d bytes" % sizes[-1])
        raw_frames(t, h1, h0, count, sizes, "b->a frames of 60..%d bytes" % sizes[-1])
        hosts.ping(t, a, size=OVS_MTU - 28)
        for port in (0, 1):
            xs = tp.xstats(port)
            t.equal((xs.get("rx_q0_multi_buffer"), xs.get("tx_q0_multi_buffer"),
                     xs.get("tx_q0_dropped"), xs.get("rx_q0_dropped", 0)), (0, 0, 0, 0),
                    "port %d: frames of several descriptors rx/tx, tx dropped, rx dropped" % port)
        tp.cmd("stop")
        t.quit_testpmd(tp, net)


def main(t):
    if env.is_stock():
        raise env.Skip("Debian's stock net_af_xdp has no AF_XDP multi-buffer: it refuses an "
                       "MTU above one chunk (an upstream limit)")
    if not kernel.multi_buffer():
        raise env.Skip("kernel %s has no AF_XDP multi-buffer (XDP_USE_SG: no struct "
                       "xdp_sock.sg in its BTF)" % os.uname().release)
    copy_boot = env.socket_mode() == "copy"
    with topo.Topology() as net:
        rxonly(t, net)
        if copy_boot:
            env.log("copy-mode boot: the bindings (4, 5) are the host's and the zero-copy boot's")
        else:
            combinations(t, net)
    # hosts.two_hosts() names its namespaces: one pair per topology.
    if not copy_boot:
        with topo.Topology() as net:
            ovs_case(t, net)
    with topo.Topology() as net:
        if zero_copy_run():
            env.log("zero-copy run: jumbo forwarding and stop/start not repeated (copy mode, "
                    "as in the copy-mode run)")
            return
        forwarding(t, net)


if __name__ == "__main__":
    runner.run(main, "jumbo", __doc__.splitlines()[0])
