#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""port_cycles: 100 port stop/start and 25 detach/attach cycles, and cycles with Rx offloads: descriptors, XDP programs and mbufs stay flat; frames still arrive.

A check a TAP line (`port_cycles/<check>`), each on a veth of its own.

  plain        the cycles below, without Rx offloads.
  rx_offloads  cycles of ports whose Rx offloads run the built-in program
               bound to the interface (afxdp_meta_map), loaded anew at each
               start: RSS with two queues and no offload asked (the hash
               only implied, what Open vSwitch configures), then RSS_HASH,
               VLAN_STRIP and TIMESTAMP asked; after RX_OFFLOAD_CYCLES
               stop/start cycles, descriptors, programs held, marked copies
               and mbufs in use as after the first start. A SKIP where the
               kernel refuses the program (kernel.helper_refusal of
               bpf_xdp_adjust_meta: this host's 6.18): vm-zc runs it.

plain: testpmd rxonly on a veth, with a bpffs for libxdp (bpf.libxdp_bpffs: the
dispatcher where it loads, in the VM; the program alone on this host). After
the first start, and again after each series of cycles, the test reads:
  - the process's open descriptors (/proc/<pid>/fd),
  - the BPF programs the process holds descriptors of (prog_id in
    /proc/<pid>/fdinfo): a leaked descriptor keeps its program loaded,
  - the copies of the driver's built-in program marked with testpmd's pid
    (bpftool's metadata), attached or not,
  - the mbufs of the pool in use, started and idle: the fill ring's, give or
    take the up to 63 slots a refill in whole batches of 64 leaves empty;
and each must be what it was after the first start. Then, while stopped,
every mbuf is back in the pool; and after the last start, FRAMES raw
frames sent to the port arrive exactly.

Cycles (afxdp_test.cycles, the restart tests' one loop): STOP_START times
`port stop 0` + `port start 0`; DETACH_ATTACH times `port stop 0`, `port
detach 0`, `port attach <devargs>`, `port start 0` (testpmd 22.11 cannot
attach a name again after `port close`, see shared/notes/real-clients.md).
Every start must succeed and show, every attach too. Under an emulated CPU
(the vm suite) fewer cycles run: a leak shows at the first ones.

Back to back: testpmd runs with --disable-link-check, so no wait for the
link (up to 100 ms) follows a `port stop`: the start comes at once, as in an
application calling rte_eth_dev_stop() and rte_eth_dev_start(). (What
test_restart_quick checked, 20 cycles, before issue 22 folded it in here.)

Found three bugs:
  - libxdp 1.3.1 leaks a descriptor of each program it looks up on an
    interface (xdp_multiprog__get_from_ifindex), which kept one program (two
    under the dispatcher) loaded and two descriptors (four) open per cycle;
  - the driver (fixed, 780b1d1): about every other back-to-back start
    failed with "queue 0 of <iface> is already used by another AF_XDP
    socket" and -EIO. The other socket was the port's own, closed by the
    stop: the kernel detaches a closed socket's buffer pool from the queue
    asynchronously (xsk_destruct -> xp_put_pool -> schedule_work(
    xp_release_deferred) -> xp_clear_dev, under rtnl), so bind() meets EBUSY
    until that work has run. The driver retries an EBUSY bind for a bounded
    while before blaming another user;
  - the driver (rx_offloads, issue 45): each start of a port with Rx
    offloads kept one more descriptor of its bound program, duplicated for
    libxdp, which duplicates it again: one program loaded more per cycle.
"""

import contextlib
import os
import time


from afxdp_test import bpf, cycles, env, kernel, runner, state, testpmd, topo, traffic

# A cycle costs about 0.1 s, nearly all the kernel's (the program's detach
# and attach, the socket's close: each waits for an RCU grace period); a
# leak shows at the first cycle, a racy start within ten.
STOP_START = 100
DETACH_ATTACH = 25
FILL_SLACK = 63              # fill-ring slots a refill in batches of 64 may leave empty
RX_OFFLOAD_CYCLES = 20      # a leak shows at the first
RX_OFFLOAD_RSS_HASH, RX_OFFLOAD_VLAN_STRIP = 0x80000, 0x1
ADJUST_META = "bpf_xdp_adjust_meta"
FRAMES = 300
SIZES = [60, 512, 1500]
QUIET = 0.5


def count(n):
    """n, or fewer under an emulated CPU (AFXDP_TIME_SCALE), at least 10."""
    return max(10, int(n / env.TIME_SCALE)) if env.TIME_SCALE > 1 else n


def held_programs(pid):
    ids = set()
    for fd in os.listdir("/proc/%d/fdinfo" % pid):
        try:
            with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                for line in f:
                    if line.startswith("prog_id:"):
                        ids.add(int(line.split()[1]))
        except OSError:
            continue        # closed meanwhile
    return sorted(ids)


def snapshot(tp, pool):
    """What must stay flat, read with the port started and idle."""
    time.sleep(QUIET)
    pid = tp.proc.pid
    mp = tp.mempool(pool)
    return {"fds": len(os.listdir("/proc/%d/fd" % pid)),
            "programs held": held_programs(pid),
            "marked copies": len([p for p in bpf.marked_programs() if p["pid"] == pid]),
            "mbufs in use": mp["size"] - mp["avail"]}


def describe(snap):
    return "%d fds, %d BPF programs held (ids %s), %d marked copies, %d mbufs in use" % (
        snap["fds"], len(snap["programs held"]), " ".join(map(str, snap["programs held"][:8])),
        snap["marked copies"], snap["mbufs in use"])


def compare(t, what, first, now):
    env.log("%s: %s" % (what, describe(now)))
    for key in ("fds", "marked copies"):
        t.equal(now[key], first[key], "%s: %s (as after the first start)" % (what, key))
    t.equal(len(now["programs held"]), len(first["programs held"]),
            "%s: BPF programs the process holds descriptors of" % what)
    grew = now["mbufs in use"] - first["mbufs in use"]
    t.check(-FILL_SLACK <= grew <= 0, "%s: mbufs in use %d, after the first start %d (the fill "
            "ring's; up to %d fewer between refills)" % (what, now["mbufs in use"],
                                                        first["mbufs in use"], FILL_SLACK))


def check_plain(t, ctx):
    net, dut, gen = ctx.net, ctx.dut, ctx.gen
    port, peer = net.veth(dut, "d0", gen, "g0")
    vdev = "net_af_xdp0,iface=%s" % port.name
    with testpmd.TestPmd(dut, [vdev], fwd="rxonly", eal_extra=[testpmd.LOG_INFO],
                         app_extra=["--disable-link-check"]) as tp:
        env.log("dispatcher in use: %s" % state.read(tp, 0).get("xdp.dispatcher"))
        pool = tp.rx_pool()
        tp.cmd("start")
        tp.cmd("stop")
        first = snapshot(tp, pool)
        env.log("after the first start: %s" % describe(first))

        n = count(STOP_START)
        res = cycles.run(tp, n)
        env.log("stop/start: %s" % res)
        t.check(res.all_ok(), "%d stop/start cycles back to back: every stop and start "
                "shown, none failed: %s" % (n, res), "\n".join(res.reasons[:10]))
        compare(t, "after %d stop/start cycles" % n, first, snapshot(tp, pool))

        n = count(DETACH_ATTACH)
        res = cycles.run(tp, n, attach=vdev)
        env.log("detach/attach: %s" % res)
        t.check(res.all_ok(), "%d detach/attach cycles: every attach, stop and start "
                "shown, none failed: %s" % (n, res), "\n".join(res.reasons[:10]))
        compare(t, "after %d detach/attach cycles" % n, first, snapshot(tp, pool))

        tp.cmd("port stop 0")
        mp = tp.mempool(pool)
        t.equal(mp["avail"], mp["size"], "mbufs available while stopped, of %d" % mp["size"])
        tp.cmd("port start 0")
        tp.cmd("start")
        before = tp.port_stats(0)["RX-packets"]
        traffic.send(peer, port.mac, FRAMES, SIZES)
        st = tp.wait_rx(0, before + FRAMES)
        t.equal(st["RX-packets"] - before, FRAMES, "RX-packets of the frames sent after "
                "the cycles")
        tp.cmd("stop")
        t.quit_testpmd(tp, net)


def offload_cycles(t, ctx, what, ifname, queues, app_extra, want):
    """RX_OFFLOAD_CYCLES stop/start cycles of a port whose state says `want`
    ((rx.offloads, rx.offloads.implied, xdp.program)): nothing grows."""
    net, dut, gen = ctx.net, ctx.dut, ctx.gen
    port, _ = net.veth(dut, ifname, gen, "g" + ifname[1:], queues=queues)
    vdev = "net_af_xdp0,iface=%s,queue_count=%d" % (port.name, queues)
    with testpmd.TestPmd(dut, [vdev], fwd="rxonly", queues=queues,
                         app_extra=["--disable-link-check"] + app_extra) as tp:
        st = state.read(tp)
        t.require(st.get("state") == "started", "%s: port started" % what)
        t.equal((st.get("rx.offloads"), st.get("rx.offloads.implied"), st.get("xdp.program")),
                want, "%s: state rx.offloads, rx.offloads.implied, xdp.program" % what)
        pool = tp.rx_pool()
        first = snapshot(tp, pool)
        env.log("%s, after the first start: %s" % (what, describe(first)))
        n = RX_OFFLOAD_CYCLES
        res = cycles.run(tp, n)
        t.check(res.all_ok(), "%s: %d stop/start cycles, none failed: %s" % (what, n, res),
                "\n".join(res.reasons[:10]))
        compare(t, "%s: after %d stop/start cycles" % (what, n), first, snapshot(tp, pool))
        t.quit_testpmd(tp, net)


def check_rx_offloads(t, ctx):
    refusal = kernel.helper_refusal(ADJUST_META)
    if refusal is not None:
        raise env.Skip("the kernel refuses the Rx-metadata program (%s: %s): no port here "
                       "runs it; vm-zc runs this check" % (ADJUST_META, refusal))
    offload_cycles(t, ctx, "rss_implied", "d1", 2, [],
                   ("rss_hash", "rss_hash", "afxdp_meta_map"))
    # Two queues: testpmd keeps RSS_HASH only with RSS.
    offload_cycles(t, ctx, "offloads_asked", "d2", 2,
                   ["--rx-offloads=0x%x" % (RX_OFFLOAD_RSS_HASH | RX_OFFLOAD_VLAN_STRIP),
                    "--enable-rx-timestamp"],
                   ("rss_hash,vlan_strip,timestamp", "none", "afxdp_meta_map"))


class Context:
    def __init__(self, net):
        self.net, self.dut, self.gen = net, net.netns("dut"), net.netns("gen")


@contextlib.contextmanager
def setup(t):
    with bpf.libxdp_bpffs(), topo.Topology() as net:
        yield Context(net)


CHECKS = [
    ("plain", check_plain),
    ("rx_offloads", check_rx_offloads),
]


if __name__ == "__main__":
    runner.run_session("port_cycles", __doc__.splitlines()[0], setup, CHECKS)
