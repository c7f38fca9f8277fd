#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""restart without owning the XDP program alone: a stopped port gives back its fill ring's mbufs.

The driver documents that in copy mode a stopped port gives every mbuf back
to its mempool, so that a port can be stopped and started any number of
times. Checked here where the port is not the only user of the XDP program,
CYCLES times each (more cycles than the pool has fill rings' worth of mbufs,
so a leak of the fill ring per stop exhausts the pool):
  A. use_pinned_map=1: the program is someone else's (bpftool, pinned map).
     While port 0 is stopped every mbuf is available: avail == pool size.
  B. two ports on two queues of one veth (the built-in program, shared,
     redirect=map): while port 0 is stopped, port 1 (started, no traffic, so
     its fill ring is exactly full) holds RING mbufs: avail == pool size - RING.
  C. the same with redirect=auto: the map where the kernel batches the map's
     redirects, the direct program (bpf_redirect_xsk) where it only has that.
  D. the same with redirect=direct, where the kernel has bpf_redirect_xsk
     (our patched kernel; a note elsewhere). The direct program keeps the
     map's semantics (a socket out of the map receives nothing), and the
     driver closes the socket before it gives the mbufs back: the stopped
     port's mbufs come back as with the map.
Each `port start 0` must succeed; afterwards N frames still arrive.
(`avail` is the common pool plus every lcore cache: see test_restart.py.)

Found a driver bug (fixed): every stop of such a port lost its whole fill
ring, and after 6 or 7 restarts `port start 0` failed for want of mbufs.
"""

import re

from afxdp_test import bpf, cleanup, cycles, env, runner, state, testpmd, topo, traffic

OBJ = "xdp_ethertype"
CYCLES = 9                   # 16384 mbufs: 8 fill rings of 2048
SIZES = [60, 1500]
FRAMES = 200


def rx_ring_size(tp):
    out = tp.cmd("show rxq info 0 0")
    m = re.search(r"Number of RXDs:\s*(\d+)", out)
    if not m:
        raise testpmd.TestPmdError("no RXDs in `show rxq info 0 0`:\n%s" % out)
    return int(m.group(1))


def stop_start(t, tp, what, pool, want_stopped):
    """`port stop 0` / `port start 0` CYCLES times (afxdp_test.cycles), the
    mbufs checked while stopped; stop at the first failed start."""
    def stopped(i):
        avail = tp.mempool(pool)["avail"]
        if not t.check(avail == want_stopped, "%s, cycle %d: mbufs available while port 0 is "
                       "stopped: %d (expected %d)" % (what, i, avail, want_stopped)):
            env.log("(%d mbufs missing so far)" % (want_stopped - avail))

    res = cycles.run(tp, CYCLES, hooks=cycles.Hooks(stopped=stopped), stop_on_failure=True)
    env.log("%s: %s" % (what, res))
    t.check(res.all_ok(), "%s: port 0 starts again in each of %d cycles: %s" % (what, CYCLES, res),
            "\n".join(res.reasons))
    return res.all_ok()


def receive(t, tp, port, peer, what, stream, map_path=None):
    before = tp.port_stats(0)["RX-packets"]
    tp.cmd("start")
    traffic.send(peer, port.mac, FRAMES, SIZES, stream=stream)
    st = tp.wait_rx(0, before + FRAMES)
    tp.cmd("stop")
    if not t.equal(st["RX-packets"] - before, FRAMES, "%s: RX-packets after the cycles" % what):
        # What the kernel and the driver saw, for the report.
        env.log("xstats: %s" % {k: v for k, v in tp.xstats(0).items() if v})
        env.log("veth %s: %s" % (port.name, {k: v for k, v in port.ethtool_stats().items() if v}))
        if map_path:
            cp = env.run([bpf.bpftool(), "map", "dump", "pinned", map_path], check=False)
            env.log("XSKMAP %s:\n%s%s" % (map_path, cp.stdout, cp.stderr))


def pinned(t, net, dut, port, peer, obj):
    what = "use_pinned_map"
    with bpf.Bpffs() as fs:
        prog = fs.load(obj, "redirect")
        undo = prog.attach(port)
        vdev = "net_af_xdp0,iface=%s,use_pinned_map=1,dp_path=%s" % (
            port.name, prog.map_path("xsks_map"))
        with testpmd.TestPmd(dut, [vdev], fwd="rxonly", label="testpmd[%s]" % what) as tp:
            pool = tp.mempool("mb_pool_0")
            env.log("%s: pool of %d mbufs, %d available with port 0 started"
                    % (what, pool["size"], pool["avail"]))
            if stop_start(t, tp, what, "mb_pool_0", pool["size"]):
                receive(t, tp, port, peer, what, "pinned", prog.map_path("xsks_map"))
            rc, _ = tp.quit()
            t.equal(rc, 0, "%s: exit code after quit" % tp.label)
        cleanup.release(undo)


def same_iface(t, net, dut, port, peer, redirect):
    what = "second port on the interface, redirect=%s" % redirect
    vdevs = ["net_af_xdp%d,iface=%s,start_queue=%d,redirect=%s" % (q, port.name, q, redirect)
             for q in range(2)]
    with testpmd.TestPmd(dut, vdevs, fwd="rxonly", eal_extra=[testpmd.LOG_INFO],
                         label="testpmd[same iface, %s]" % redirect) as tp:
        env.log("%s: the built-in program redirects with %s" % (
            what, state.read(tp, 0).get("xdp.redirect")))
        pool = tp.mempool("mb_pool_0")
        ring = rx_ring_size(tp)
        env.log("%s: pool of %d mbufs, %d available with both ports started, fill rings of %d"
                % (what, pool["size"], pool["avail"], ring))
        stop_start(t, tp, what, "mb_pool_0", pool["size"] - ring)
        t.quit_testpmd(tp, net)


def main(t):
    obj = bpf.obj(OBJ)
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        # One queue for the pinned-map port: with two, a frame could land on
        # the queue it does not bind, and go to the kernel stack.
        port, peer = net.veth(dut, "d0", gen, "g0")
        pinned(t, net, dut, port, peer, obj)
        port, peer = net.veth(dut, "d1", gen, "g1", queues=2)
        same_iface(t, net, dut, port, peer, "map")
        same_iface(t, net, dut, port, peer, "auto")
        kernel = bpf.KernelXdp()
        if kernel.direct:
            same_iface(t, net, dut, port, peer, "direct")
        else:
            env.log("D not run: %s" % kernel)


if __name__ == "__main__":
    runner.run(main, "restart_shared_prog", __doc__.splitlines()[0])
