#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""socket_held: a socket the kernel still has after its close (another process holds a copy, Tx frames in flight) is not reclaimed at stop, and every mbuf comes back once it is gone.

    netns gen: g0  == veth ==  d0 (net_af_xdp0)  netns dut: testpmd

A secondary process borrows the primary's socket descriptors (to read the
kernel's counters): while it holds its copy, closing the primary's does not
release the socket, which stays bound, its fill ring offered, and the
kernel may write frames into those mbufs. Here the test itself takes the
copy, as a secondary would, with pidfd_getfd(2): of testpmd's socket
descriptors, the one whose SO_DOMAIN is AF_XDP.

Part 1, rxonly:
1. Started: the mempool's mbufs out of the pool (`dump_mempool`: size -
   avail) are about the fill ring's (the refill tops it up 64 at a time).
2. The copy taken, `port stop 0`: the fill ring's mbufs stay out of the
   pool (not reclaimed under the kernel's feet: the socket is still bound).
3. The copy closed, `port start 0`: the new socket binds to the queue, which
   the kernel allows only once the old one is gone, and the old socket's
   mbufs come back: out of the pool is again one fill ring's, not two.
4. `port stop 0`: every mbuf back (out of the pool: 0), none lost.

Part 2, txonly with Tx frames in flight at the stop (issue 26): the kernel
has taken Tx descriptors and not completed them, so their mbufs are still
its. In copy mode each frame the kernel takes becomes an skb that holds
the socket until it is freed, and its completion is written then: the peer
g0 redirects what it receives (tc mirred, no clone) to an ifb whose tbf
qdisc lets through a frame every few seconds, so the frames sit there, un-
completed, and the socket lives on after testpmd closed it. In zero-copy
mode (vm-zc) the patched veth copies a frame for the peer and completes it
in the poll that took it: what is outstanding at the stop is only what
sits untaken in the Tx ring (none in the runs so far: T = 0 there, so the
Tx hold is exercised on the host); the copy of the descriptor keeps the
socket.
1. `port start 0` (nothing received): F mbufs out of the pool, the fill
   ring's; txonly for a moment, then `stop`.
2. The copy taken, `port stop 0`: the socket's mbufs stay out of the pool:
   the fill ring's F and the Tx frames not completed, T = out - F; in copy
   mode T > 0 and at least the frames the tbf still holds: the kernel
   takes as many as its send buffer allows (sk_sndbuf: about 256 such
   skbs), the tbf holds them, the rest wait untaken in the Tx ring.
3. The copy closed and the tbf removed (its frames freed: their skbs
   complete and release the socket), `port start 0`: out of the pool is
   one fill ring's again; `port stop 0`: every mbuf back (0), exactly. A
   driver that gives up the frames the kernel took (before issue 26) lost
   T mbufs here.

Part 3, the driver's probe of the queue refused (issue 45): the driver
asks whether the kernel has let go of the closed socket by binding a
socket of its own with a one-page UMEM to the queue, which a memlock
limit (RLIMIT_MEMLOCK without CAP_IPC_LOCK) refuses with ENOBUFS while the
held socket's UMEM is still charged: exactly when it is asked. The fault
library (tests/faults/refuse.c, small_umem) refuses it so in a second
testpmd, on every kernel:
1. Started, the copy taken, `port stop 0`: the probe was refused (the
   fault library's log), and the fill ring's mbufs stay out of the pool: a
   probe that cannot run says nothing. Before issue 45 a refused probe was
   taken for a free queue, and they came back under the kernel's feet.
2. The copy closed, `port start 0`: the new socket binds, so the old one is
   gone: one fill ring's mbufs out of the pool, not two.
"""

import ctypes
import os
import re
import socket
import time

from afxdp_test import env, faults, runner, testpmd, topo, traffic

SYS_PIDFD_GETFD = 438           # x86-64 and every architecture's generic table
AF_XDP = 44
RING = 2048                     # the driver's default ring size: the fill ring's mbufs
REFILL = 64                     # the fill ring is topped up a batch at a time
FRAMES = 100
IFB = "ifb0"                    # in the test's gen namespace, gone with it
TX_IN_FLIGHT = 256              # Tx frames the tbf holds before the stop
WAIT = 20                       # only against a hang


def copy_of_xsk(pid):
    """A copy, in this process, of process pid's AF_XDP socket descriptor
    (pidfd_getfd on each of its sockets, SO_DOMAIN told apart)."""
    libc = ctypes.CDLL(None, use_errno=True)
    pidfd = os.pidfd_open(pid)
    try:
        for name in os.listdir("/proc/%d/fd" % pid):
            if not os.readlink("/proc/%d/fd/%s" % (pid, name)).startswith("socket:"):
                continue
            copy = libc.syscall(SYS_PIDFD_GETFD, pidfd, int(name), 0)
            if copy < 0:
                raise env.Skip("pidfd_getfd: %s" % os.strerror(ctypes.get_errno()))
            domain, size = ctypes.c_int(0), ctypes.c_uint(ctypes.sizeof(ctypes.c_int))
            libc.getsockopt(copy, socket.SOL_SOCKET, socket.SO_DOMAIN, ctypes.byref(domain),
                            ctypes.byref(size))
            if domain.value == AF_XDP:
                env.log("testpmd's AF_XDP socket: its fd %s, ours %d" % (name, copy))
                return copy
            os.close(copy)
    finally:
        os.close(pidfd)
    raise env.HarnessError("testpmd (pid %d) has no AF_XDP socket" % pid)


def out_of_pool(tp, pool):
    m = tp.mempool(pool)
    return m["size"] - m["avail"]


def part_rx(t, tp, what="", stopped=None, last_stop=True):
    """Part 1: the fill ring's mbufs of a socket a copy keeps. `what`
    prefixes the checks; stopped(), the test's own check once stopped with
    the copy held; last_stop: stop again, every mbuf back."""
    pool = tp.rx_pool()
    started = out_of_pool(tp, pool)
    t.check(RING - REFILL <= started <= RING, "%sstarted: the fill ring's mbufs out of "
            "mempool %s (%d, ring %d)" % (what, pool, started, RING))

    copy = copy_of_xsk(tp.proc.pid)
    try:
        tp.cmd("port stop 0")
        if stopped:
            stopped()
        held = out_of_pool(tp, pool)
        t.equal(held, started, "%sstopped with a copy of the socket held: its mbufs stay "
                "out of the pool" % what)
    finally:
        os.close(copy)

    tp.cmd("port start 0")
    again = out_of_pool(tp, pool)
    t.check(RING - REFILL <= again <= RING, "%srestarted, the copy closed: one fill ring's "
            "mbufs out of the pool (%d), the held socket's came back" % (what, again))
    if last_stop:
        tp.cmd("port stop 0")
        t.equal(out_of_pool(tp, pool), 0, "stopped: every mbuf back in mempool %s" % pool)


def tbf_backlog(gen):
    """Frames the ifb's tbf holds (tc -s: "backlog <bytes>b <frames>p")."""
    out = gen.exec(["tc", "-s", "qdisc", "show", "dev", IFB], check=False).stdout
    m = re.search(r"backlog \S+ (\d+)p", out)
    return int(m.group(1)) if m else 0


def hold_tx_in_flight(gen, peer):
    """What the peer receives goes to an ifb whose tbf passes a frame every
    few seconds: the skbs of copy mode's Tx, not completed, wait there."""
    gen.exec(["ip", "link", "add", IFB, "type", "ifb"])
    gen.exec(["ip", "link", "set", IFB, "up"])
    gen.exec(["tc", "qdisc", "add", "dev", IFB, "root", "tbf", "rate", "1kbit",
              "burst", "1600", "limit", "1000000"])
    gen.exec(["tc", "qdisc", "add", "dev", peer.name, "clsact"])
    gen.exec(["tc", "filter", "add", "dev", peer.name, "ingress", "protocol", "all", "u32",
              "match", "u32", "0", "0", "action", "mirred", "egress", "redirect", "dev", IFB])


def part_tx(t, tp, gen, peer):
    """Part 2: Tx frames the kernel took and had not completed at the stop."""
    pool = tp.rx_pool()
    copy_mode = env.socket_mode() != "zero-copy"
    if copy_mode:
        hold_tx_in_flight(gen, peer)
    tp.cmd("port start 0")
    fill = out_of_pool(tp, pool)
    t.check(RING - REFILL <= fill <= RING, "started for txonly: the fill ring's mbufs out "
            "of the pool (%d)" % fill)
    tp.cmd("set fwd txonly")
    tp.cmd("set eth-peer 0 %s" % peer.mac)
    tp.cmd("start")
    deadline = env.deadline(WAIT)
    while copy_mode and tbf_backlog(gen) < TX_IN_FLIGHT and time.monotonic() < deadline:
        time.sleep(0.05)
    if not copy_mode:
        time.sleep(0.5)
    tp.cmd("stop")
    sent = tp.port_stats(0)["TX-packets"]

    copy = copy_of_xsk(tp.proc.pid)
    try:
        tp.cmd("port stop 0")
        held = out_of_pool(tp, pool) - fill
        backlog = tbf_backlog(gen) if copy_mode else 0
        env.log("txonly sent %d frames; stopped: %d Tx mbufs held, the tbf holds %d frames"
                % (sent, held, backlog))
        t.check(0 <= held <= RING, "stopped with the socket held: the fill ring's %d mbufs "
                "and the Tx frames not completed (%d, at most a ring's %d) stay out of the "
                "pool" % (fill, held, RING))
        if copy_mode:
            # The tbf passes a frame now and then: fewer than it held at the stop.
            t.check(held >= backlog > 0, "copy mode: the frames the kernel took and has "
                    "not completed (%d still in the tbf) are among those held (%d)"
                    % (backlog, held))
    finally:
        os.close(copy)
    if copy_mode:
        # The tbf's frames freed: their skbs complete and let go of the socket.
        gen.exec(["tc", "qdisc", "del", "dev", IFB, "root"])
        gen.exec(["tc", "qdisc", "del", "dev", peer.name, "clsact"])

    tp.cmd("port start 0")
    again = out_of_pool(tp, pool)
    t.check(RING - REFILL <= again <= RING, "restarted, the holders gone: one fill ring's "
            "mbufs out of the pool (%d), the %d held Tx mbufs and the old fill ring's came "
            "back" % (again, held))
    tp.cmd("port stop 0")
    t.equal(out_of_pool(tp, pool), 0, "stopped: every mbuf back in mempool %s, the Tx "
            "frames the kernel had included" % pool)


def part_probe_refused(t, net, dut, port):
    """Part 3: the queue's probe refused (ENOBUFS, as under a memlock limit)."""
    with faults.Refusal("small_umem") as r:
        with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly",
                             wrapper=r.wrapper(), label="testpmd[probe refused]") as tp:
            part_rx(t, tp, "probe refused: ", last_stop=False, stopped=lambda: t.check(
                r.seen("small_umem"), "probe refused: the driver's probe of the queue met "
                "the refusal (the fault library's log)", str(r.refused()[:3])))
            t.quit_testpmd(tp, net)


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly") as tp:
            tp.cmd("start")
            traffic.send(peer, port.mac, FRAMES, [60], stream="before")
            tp.wait_rx(0, FRAMES)
            tp.cmd("stop")
            part_rx(t, tp)
            part_tx(t, tp, gen, peer)
            t.quit_testpmd(tp, net)
        part_probe_refused(t, net, dut, port)


if __name__ == "__main__":
    runner.run(main, "socket_held", __doc__.splitlines()[0])
