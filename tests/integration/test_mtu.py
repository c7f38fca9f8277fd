#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""MTU: `port config mtu 0 N` reaches the kernel interface; the limit is the driver's, whatever the queues.

With testpmd's default 2176-byte mbufs:
1. Each accepted MTU shows on the kernel interface (`ip link`) and in `show
   port info 0`; each refused one (67, 60000) leaves both unchanged and makes
   testpmd say so.
2. The device's maximum without scatter (learnt from the refusal of 60000:
   ethdev's, or with multi-buffer our driver's, which names the scatter
   offload a larger MTU needs) is the driver's own limit, a page less the XDP
   headroom and the Ethernet header (3826 at 4 KiB pages), not what the mbufs
   set up so far hold: an application sets the MTU, then sets up queues with
   mbufs sized for it. Larger MTUs, with scatter, are test_jumbo's.
3. So on the started port, whose mbufs hold 1920-byte frames, that maximum is
   refused by the driver with a message naming the mempool and the data room
   it needs, and the kernel MTU is unchanged; the largest MTU those mbufs hold
   (1906) is accepted and carries full-size frames.
4. Stopped, the port takes the maximum (the queues may be set up again
   before start); `port start` with the same mbufs is then refused, saying
   why; back at 1500 it starts and receives.
With --mbuf-size=4096 (page-sized chunks), a second testpmd takes the
advertised maximum on its started port, and full-size frames arrive (up to
the largest frame the veth peer can send: with XDP on the port, veth caps
the peer's MTU).
5. With the Rx scatter offload and page-sized mbufs (issue 26; needs the
   kernel's AF_XDP multi-buffer, Linux 6.6): the sockets are bound for
   frames of one chunk while the MTU's frames fit one (state
   frame.multi_buffer = no), so on the started port the largest MTU a chunk
   holds is taken, and one whose frames span chunks (CROSSING) is refused
   (kernel MTU and state unchanged); stopped, the port takes it and its
   start binds multi-buffer (frames-span-chunks), full-size frames arrive;
   lowered again on the started port the MTU is taken, the sockets stay
   multi-buffer until the next start, which binds them for one again.
"""

import os
import re

from afxdp_test import env, kernel, runner, state, testpmd, topo, traffic

# Below any driver's maximum with testpmd's default 2176-byte mbufs.
ACCEPTED = [1400, 1280, 1500]
# Below ethdev's minimum (68, RTE_ETHER_MIN_MTU), and far above what one
# UMEM chunk (at most a page) holds.
REFUSED = [67, 60000]
# testpmd's and ethdev's refusal messages (app/test-pmd/config.c, rte_ethdev.c)
REFUSAL = re.compile(r"MTU \(\d+\) [<>] device (min|max) MTU|Frame size \(\d+\) [<>]|"
                     r"Set MTU failed|not in valid range")
# The largest MTU without scatter: ethdev's device maximum (a driver without
# multi-buffer), or, where the kernel has multi-buffer and the device maximum
# is larger, the MTU one chunk holds, named in our driver's refusal with the
# scatter offload a larger one needs.
ADVERTISED_MAX = re.compile(r"device max MTU \((\d+)\)|an MTU of (\d+)\): enable the Rx scatter")
XDP_HEADROOM, ETHER_HDR = 256, 14
DEFAULT_DATA_ROOM = 2176      # testpmd's default --mbuf-size
PAGE_DATA_ROOM = 4096
DRIVER_MAX = os.sysconf("SC_PAGESIZE") - XDP_HEADROOM - ETHER_HDR
MEMPOOL_MAX = DEFAULT_DATA_ROOM - XDP_HEADROOM - ETHER_HDR
# The driver's refusal: the mempool, and the data room an MTU needs.
MEMPOOL_REFUSAL = re.compile(r"the mempool \S+ of Rx queue 0 holds frames of at most (\d+) "
                             r"bytes.*data room of at least (\d+) bytes")
# An MTU whose frames take two page-sized chunks.
CROSSING = 5000
FRAMES_AFTER = 100
FRAMES_AT_MAX = 50
SIZES = [64, 1400]


def set_mtu(tp, mtu):
    return tp.cmd("port config mtu 0 %d" % mtu).strip()


def full_size_frames(t, tp, port, peer, mtu):
    """FRAMES_AT_MAX frames of MTU + 14 bytes sent by the peer all arrive."""
    # With an XDP program on the port, veth caps the PEER's MTU at what one
    # page holds (kernel veth_xdp_set): frames beyond that cannot be sent.
    peer_max = int(peer.link().get("max_mtu", mtu))
    send_mtu = min(mtu, peer_max)
    if send_mtu < mtu:
        env.log("note: the peer %s can send at most MTU %d (veth's cap with XDP on its "
                "peer); frames of MTU %d are not tested" % (peer.name, peer_max, mtu))
    peer.ip("link", "set", "dev", peer.name, "mtu", str(send_mtu))
    tp.cmd("start")
    tp.cmd("clear port stats all")
    size = send_mtu + ETHER_HDR
    traffic.send(peer, port.mac, FRAMES_AT_MAX, [size], stream="max%d" % mtu)
    st = tp.wait_rx(0, FRAMES_AT_MAX)
    tp.cmd("stop")
    peer.ip("link", "set", "dev", peer.name, "mtu", "1500")
    got, want = (st["RX-packets"], st["RX-bytes"]), (FRAMES_AT_MAX, FRAMES_AT_MAX * size)
    t.check(got == want, "%d-byte frames (MTU %d) received at port MTU %d (packets, bytes): %s%s"
            % (size, send_mtu, mtu, got, "" if got == want else " (expected %s)" % (want,)),
            "RX-missed %d, RX-errors %d" % (st["RX-missed"], st["RX-errors"]))


def accepted_and_refused(t, tp, port):
    """Steps 1 and 2: returns the advertised maximum."""
    t.equal(tp.port_info(0).get("MTU"), str(port.mtu()),
            "MTU at start (testpmd == kernel %d)" % port.mtu())
    for mtu in ACCEPTED:
        out = set_mtu(tp, mtu)
        t.check(not REFUSAL.search(out), "port config mtu 0 %d accepted" % mtu, out)
        t.equal(port.mtu(), mtu, "kernel MTU of %s after setting %d" % (port.name, mtu))
        t.equal(tp.port_info(0).get("MTU"), str(mtu), "show port info MTU after %d" % mtu)
    advertised = None
    for mtu in REFUSED:
        before = port.mtu()
        out = set_mtu(tp, mtu)
        t.check(bool(REFUSAL.search(out)), "port config mtu 0 %d refused: %s"
                % (mtu, out.replace("\n", " ")))
        t.equal(port.mtu(), before, "kernel MTU unchanged after refusing %d" % mtu)
        t.equal(tp.port_info(0).get("MTU"), str(before),
                "show port info MTU unchanged after refusing %d" % mtu)
        m = ADVERTISED_MAX.search(out)
        if m:
            advertised = int(m.group(1) or m.group(2))
    t.require(advertised is not None, "the refusal names the device's max MTU")
    t.equal(advertised, DRIVER_MAX, "the advertised max MTU is the driver's limit (a page "
            "less %d bytes of XDP headroom and %d of Ethernet header), not the mbufs'"
            % (XDP_HEADROOM, ETHER_HDR) + t.stock_note("its limit subtracts the mbuf "
                                                        "header and headroom too"))
    return advertised


def started_port(t, tp, port, peer, advertised):
    """Step 3."""
    before = len(tp.transcript)
    out = set_mtu(tp, advertised)
    t.check(bool(REFUSAL.search(out)), "MTU %d refused on the started port with %d-byte "
            "mbufs: %s" % (advertised, DEFAULT_DATA_ROOM, out.replace("\n", " ")))
    t.equal(port.mtu(), 1500, "kernel MTU unchanged after that refusal")
    m = MEMPOOL_REFUSAL.search(tp.transcript[before:])
    t.check(m is not None and int(m.group(1)) == MEMPOOL_MAX + ETHER_HDR
            and int(m.group(2)) == advertised + ETHER_HDR + XDP_HEADROOM,
            "the driver names the mempool, the frames it holds (%d) and the data room MTU %d "
            "needs (%d)" % (MEMPOOL_MAX + ETHER_HDR, advertised,
                            advertised + ETHER_HDR + XDP_HEADROOM), tp.transcript[before:])
    out = set_mtu(tp, MEMPOOL_MAX)
    t.check(not REFUSAL.search(out), "MTU %d, the largest the mbufs hold, accepted" % MEMPOOL_MAX,
            out)
    t.equal(port.mtu(), MEMPOOL_MAX, "kernel MTU after setting %d" % MEMPOOL_MAX)
    full_size_frames(t, tp, port, peer, MEMPOOL_MAX)
    set_mtu(tp, 1500)


def stopped_port(t, tp, port, advertised):
    """Step 4: the MTU first, the queues' mbufs checked at start."""
    tp.cmd("port stop 0")
    out = set_mtu(tp, advertised)
    t.check(not REFUSAL.search(out), "MTU %d accepted on the stopped port" % advertised, out)
    t.equal(port.mtu(), advertised, "kernel MTU after setting %d on the stopped port" % advertised)
    before = len(tp.transcript)
    out = tp.cmd("port start 0")
    t.check("Fail to start port 0" in out, "port start refused with %d-byte mbufs at MTU %d"
            % (DEFAULT_DATA_ROOM, advertised), out)
    t.check(bool(re.search(r"cannot start: the mempool", tp.transcript[before:])),
            "the driver says why it cannot start", tp.transcript[before:])
    set_mtu(tp, 1500)
    out = tp.cmd("port start 0")
    t.check("Fail to start port" not in out, "port start at MTU 1500", out)


def binding(tp):
    st = state.read(tp)
    return (st.get("frame.multi_buffer"), st.get("frame.multi_buffer.reason"),
            state.queue_keys(st, 0).get("multi_buffer"))


def scatter_port(t, net, dut, port, peer, vdev):
    """Step 5: an MTU change on a started port across the multi-buffer line."""
    single = ("no", "fits-one-chunk", "no")
    multi = ("yes", "frames-span-chunks", "yes")
    with testpmd.TestPmd(dut, [vdev], fwd="rxonly", label="testpmd --enable-scatter",
                         app_extra=["--enable-scatter", "--mbuf-size=%d" % PAGE_DATA_ROOM]) as tp:
        t.equal(binding(tp), single, "scatter at MTU 1500: frame.multi_buffer, reason, "
                "queue.0.multi_buffer")
        out = set_mtu(tp, DRIVER_MAX)
        t.check(not REFUSAL.search(out), "MTU %d (one chunk) taken on the started port"
                % DRIVER_MAX, out)
        t.equal(port.mtu(), DRIVER_MAX, "kernel MTU after setting %d" % DRIVER_MAX)
        t.equal(binding(tp), single, "still bound for one chunk at MTU %d" % DRIVER_MAX)
        full_size_frames(t, tp, port, peer, DRIVER_MAX)
        out = set_mtu(tp, CROSSING)
        t.check(bool(REFUSAL.search(out)), "MTU %d (frames of two chunks) refused on the "
                "started port bound for one: %s" % (CROSSING, out.replace("\n", " ")))
        t.equal((port.mtu(), tp.port_info(0).get("MTU")), (DRIVER_MAX, str(DRIVER_MAX)),
                "kernel and port MTU unchanged after that refusal")
        t.equal(binding(tp), single, "the binding unchanged after that refusal")
        tp.cmd("port stop 0")
        out = set_mtu(tp, CROSSING)
        t.check(not REFUSAL.search(out), "MTU %d taken on the stopped port" % CROSSING, out)
        out = tp.cmd("port start 0")
        t.check("Fail to start port" not in out, "port start at MTU %d" % CROSSING, out)
        t.equal(binding(tp), multi, "started at MTU %d: bound multi-buffer" % CROSSING)
        full_size_frames(t, tp, port, peer, CROSSING)
        out = set_mtu(tp, 1500)
        t.check(not REFUSAL.search(out), "MTU 1500 taken on the started multi-buffer port", out)
        t.equal(port.mtu(), 1500, "kernel MTU after lowering it on the started port")
        t.equal(binding(tp), multi, "still multi-buffer until the next start")
        full_size_frames(t, tp, port, peer, 1500)
        tp.cmd("port stop 0")
        tp.cmd("port start 0")
        t.equal(binding(tp), single, "restarted at MTU 1500: bound for one chunk again")
        t.quit_testpmd(tp, net)


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        vdev = "net_af_xdp0,iface=%s" % port.name
        with testpmd.TestPmd(dut, [vdev], fwd="rxonly") as tp:
            advertised = accepted_and_refused(t, tp, port)
            if not env.is_stock():
                started_port(t, tp, port, peer, advertised)
                stopped_port(t, tp, port, advertised)
            tp.cmd("clear port stats all")
            tp.cmd("start")
            traffic.send(peer, port.mac, FRAMES_AFTER, SIZES)
            st = tp.wait_rx(0, FRAMES_AFTER)
            t.equal(st["RX-packets"], FRAMES_AFTER, "RX-packets after the MTU changes")
            tp.cmd("stop")
            t.quit_testpmd(tp, net)
        t.equal(port.mtu(), 1500, "kernel MTU back to 1500")

        with testpmd.TestPmd(dut, [vdev], fwd="rxonly", label="testpmd --mbuf-size=%d"
                             % PAGE_DATA_ROOM,
                             app_extra=["--mbuf-size=%d" % PAGE_DATA_ROOM]) as tp:
            out = set_mtu(tp, advertised)
            t.check(not REFUSAL.search(out), "the advertised max MTU %d accepted on the started "
                    "port with %d-byte mbufs" % (advertised, PAGE_DATA_ROOM), out)
            t.equal(port.mtu(), advertised, "kernel MTU after setting the advertised max")
            full_size_frames(t, tp, port, peer, advertised)
            set_mtu(tp, 1500)
            t.quit_testpmd(tp, net)

        if env.is_stock() or not kernel.multi_buffer():
            env.log("SKIP (part): step 5 needs our driver and the kernel's AF_XDP "
                    "multi-buffer (no struct xdp_sock.sg in the BTF of %s)"
                    % os.uname().release)
        else:
            scatter_port(t, net, dut, port, peer, vdev)


if __name__ == "__main__":
    runner.run(main, "mtu", __doc__.splitlines()[0])
