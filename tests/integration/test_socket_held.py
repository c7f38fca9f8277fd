#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""socket_held: a socket another process holds a copy of is not reclaimed at stop (the kernel may still use its mbufs), and its mbufs come back once it is gone.

    netns gen: g0  == veth ==  d0 (net_af_xdp0)  netns dut: testpmd rxonly

A secondary process borrows the primary's socket descriptors (to read the
kernel's counters): while it holds its copy, closing the primary's does not
release the socket, which stays bound, its fill ring offered, and the
kernel may write frames into those mbufs. Here the test itself takes the
copy, as a secondary would, with pidfd_getfd(2): of testpmd's socket
descriptors, the one whose SO_DOMAIN is AF_XDP.

1. Started: the mempool's mbufs out of the pool (`dump_mempool`: size -
   avail) are about the fill ring's (the refill tops it up 64 at a time).
2. The copy taken, `port stop 0`: the fill ring's mbufs stay out of the
   pool (not reclaimed under the kernel's feet: the socket is still bound).
3. The copy closed, `port start 0`: the new socket binds to the queue, which
   the kernel allows only once the old one is gone, and the old socket's
   mbufs come back: out of the pool is again one fill ring's, not two.
4. `port stop 0`: every mbuf back (out of the pool: 0), none lost.
"""

import ctypes
import os
import socket

from afxdp_test import env, runner, testpmd, topo, traffic

SYS_PIDFD_GETFD = 438           # x86-64 and every architecture's generic table
AF_XDP = 44
RING = 2048                     # the driver's default ring size: the fill ring's mbufs
REFILL = 64                     # the fill ring is topped up a batch at a time
FRAMES = 100


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


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly") as tp:
            tp.cmd("start")
            traffic.send(peer, port.mac, FRAMES, [60], stream="before")
            tp.wait_rx(0, FRAMES)
            tp.cmd("stop")
            pool = tp.rx_pool()
            started = out_of_pool(tp, pool)
            t.check(RING - REFILL <= started <= RING, "started: the fill ring's mbufs out of "
                    "mempool %s (%d, ring %d)" % (pool, started, RING))

            copy = copy_of_xsk(tp.proc.pid)
            try:
                tp.cmd("port stop 0")
                held = out_of_pool(tp, pool)
                t.equal(held, started, "stopped with a copy of the socket held: its mbufs stay "
                        "out of the pool")
            finally:
                os.close(copy)

            tp.cmd("port start 0")
            again = out_of_pool(tp, pool)
            t.check(RING - REFILL <= again <= RING, "restarted, the copy closed: one fill ring's "
                    "mbufs out of the pool (%d), the held socket's came back" % again)
            tp.cmd("port stop 0")
            t.equal(out_of_pool(tp, pool), 0, "stopped: every mbuf back in mempool %s" % pool)
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "socket_held", __doc__.splitlines()[0])
