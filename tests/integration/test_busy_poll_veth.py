#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""busy polling on veth: what the driver says about it is what the kernel does.

SO_PREFER_BUSY_POLL/SO_BUSY_POLL_BUDGET succeed on every socket, but the
kernel busy polls only a socket it tied to a NAPI context, which it does with
the first frame (SO_INCOMING_NAPI_ID, from the rxq the frame came through).
What veth gives, measured: 6.18 (this host): no NAPI id, GRO on or off;
6.12 (the vm suite's patched kernel) in copy mode: one (veth registers the
XDP path's rxq when the program is attached, its NAPI added by then); 6.12
in zero-copy mode: one, that of the queue's NAPI of the moment (patch 12
keeps the pool's rxq naming it, though the driver binds before it attaches
its program, when veth has no NAPI yet; before that fix: none unless GRO
was on). The driver looks at the socket's NAPI id after the first frames
and says which.

For each row of RUNS, on a veth set up for preferred busy polling (its
napi_defer_hard_irqs and gro_flush_timeout: the NAPI, once busy polled,
waits for the next busy poll rather than run from the sender's kick),
testpmd starts with the row's devargs and log level and N frames are sent;
the kernel's own count of frames its busy polling processed,
BusyPollRxPackets of the namespace (/proc/net/netstat), says whether busy
polling really ran. Checks:
  - the port receives exactly the frames sent (N, or N per burst in the
    last row: see MUST_POLL_ROUNDS);
  - where the driver says NOTICE_TEXT ("busy polling has no effect", naming
    port and queue: no NAPI id), busy polling did not run; the line is a
    warning with busy_budget=32 and only a note for the default budget (at
    level warning no such line); at level info the driver says either that
    or the NAPI id, once;
  - with busy_budget=32 at level warning, where busy polling ran the driver
    gave no warning;
  - the port's state block (queue.0.napi_id, queue.0.busy_poll) agrees:
    busy polling off for want of a NAPI id means it did not run; in
    zero-copy mode (the patched kernel) the socket has a NAPI id whether or
    not veth's NAPI ran at the bind, and busy polling is on;
  - the last row turns GRO on at the port's veth (its NAPI then runs from
    the moment it is up): on a kernel that gives a NAPI id then (6.12 and
    before), busy polling must run, in copy and in zero-copy mode
    (vm-copy/busy_poll_veth, vm-zc/busy_poll_veth). Elsewhere whether a busy
    poll finds frames before the kernel's own NAPI run does is timing: a
    NAPI id alone is not required to show in the count (seen: 0 or 32 of
    200 frames in copy mode on 6.12).
The level separates a warning from an info line: DPDK prints no level.

Each row has a veth pair of its own, so that every socket binds to a veth
that never had a program (before layer c's patch 2 a zero-copy socket on a
reused veth busy polled the NAPI deleted with the earlier program, and its
transmit stalled: vm-zc/crash_restart and kernel/tests' xsk_tx cover that).
"""

import os

from afxdp_test import dpdk_output, env, runner, state, testpmd, topo, traffic

NOTICE_TEXT = "busy polling has no effect"
NAPI_TEXT = "busy polling NAPI id"
# (devargs after iface=, log level of pmd.net.af_xdp, NOTICE_TEXT shown
#  at that level where busy polling does not run, GRO on the port's veth)
RUNS = [
    ("busy_budget=32", "warning", True, False),
    ("", "warning", False, False),
    ("", "info", True, False),
    ("busy_budget=32", "info", True, True),
]
SIZES = [64, 1500]
FRAMES = 200
# Preferred busy polling (the kernel's napi documentation): the NAPI, once
# busy polled, waits this long for the next busy poll before running on its
# own, DEFER_HARD_IRQS times.
GRO_FLUSH_TIMEOUT_NS = 200000
DEFER_HARD_IRQS = 2
# Where busy polling must run (GRO on, 6.12), whether one burst's frames
# meet a busy poll before the NAPI's own timer run is still timing (a loaded
# host's slow vCPUs: 0 of 200 seen once in vm-zc): the burst is repeated up
# to this many times until the kernel's count shows a busy poll.
MUST_POLL_ROUNDS = 5


def gro_gives_napi_id():
    """Whether a veth with GRO on gives AF_XDP sockets a NAPI id: measured
    on 6.12 (yes) and 6.18 (no)."""
    major, minor = (int(x) for x in os.uname().release.split(".")[:2])
    return (major, minor) <= (6, 12)


def prefer_busy_poll(port, on):
    """The veth's NAPI deferral (sysfs), on for preferred busy polling."""
    if on:
        port.set_napi_deferral(DEFER_HARD_IRQS, GRO_FLUSH_TIMEOUT_NS)
    else:
        port.set_napi_deferral(0, 0)


def busy_poll_rx_packets(ns):
    """BusyPollRxPackets of namespace `ns`: frames NAPI polls run by busy
    polling processed (the kernel's LINUX_MIB_BUSYPOLLRXPACKETS)."""
    lines = env.run(["cat", "/proc/net/netstat"], ns=ns.name).stdout.splitlines()
    for names, values in zip(lines[::2], lines[1::2]):
        if names.startswith("TcpExt:"):
            row = dict(zip(names.split()[1:], values.split()[1:]))
            if "BusyPollRxPackets" in row:
                return int(row["BusyPollRxPackets"])
    raise env.HarnessError("no TcpExt BusyPollRxPackets in %s's /proc/net/netstat" % ns)


def one_run(t, net, dut, port, peer, devargs, level, shown, gro):
    vdev = "net_af_xdp0,iface=%s" % port.name + ("," + devargs if devargs else "")
    what = "%s, log level %s%s" % (devargs or "no busy_budget", level, ", GRO on" if gro else "")
    env.log("--- %s" % what)
    port.set_gro(gro)
    prefer_busy_poll(port, True)
    tp = testpmd.TestPmd(dut, [vdev], fwd="rxonly",
                         eal_extra=["--log-level=pmd.net.af_xdp:%s" % level],
                         label="testpmd[%s]" % what)
    must_poll = gro and gro_gives_napi_id()
    with tp:
        tp.cmd("start")
        before = busy_poll_rx_packets(dut)
        sent = 0
        for _ in range(MUST_POLL_ROUNDS if must_poll else 1):
            traffic.send(peer, port.mac, FRAMES, SIZES)
            sent += FRAMES
            st = tp.wait_rx(0, sent)
            polled = busy_poll_rx_packets(dut) - before
            if polled:
                break
        tp.cmd("stop")
        t.equal(st["RX-packets"], sent, "%s: RX-packets" % what)
        said = [ln.strip() for ln in tp.transcript.splitlines() if NOTICE_TEXT in ln]
        named = [ln.strip() for ln in tp.transcript.splitlines() if NAPI_TEXT in ln]
        for ln in said + named:
            env.log("    | %s" % ln)
        env.log("%s: the kernel's busy polling processed %d frames (BusyPollRxPackets)"
                % (what, polled))
        q = state.queue_keys(state.read(tp, 0), 0)
        env.log("%s: state napi_id %s, busy_poll %s (%s)" % (
            what, q.get("napi_id"), q.get("busy_poll"), q.get("busy_poll.reason", "-")))
        if env.socket_mode() == "zero-copy":
            t.check(q.get("napi_id") not in (None, "0") and q.get("busy_poll") == "on",
                    "%s: zero-copy: the pool names veth's NAPI (state napi_id %s), busy "
                    "polling on (%s)" % (what, q.get("napi_id"), q.get("busy_poll")))
        if q.get("busy_poll.reason") == "no-napi-id":
            t.check(polled == 0, "%s: busy polling off for want of a NAPI id (state), and it "
                    "did not run (BusyPollRxPackets +%d)" % (what, polled))
        if must_poll:
            t.check(polled > 0, "%s: veth's NAPI runs before the bind: busy polling ran "
                    "(BusyPollRxPackets +%d after %d frames)" % (what, polled, sent))
        if said:
            # No NAPI id: the kernel cannot busy poll this socket.
            t.check(polled == 0, "%s: the driver says %r, and busy polling did not run "
                    "(BusyPollRxPackets +%d)" % (what, NOTICE_TEXT, polled))
            t.check(all("port 0 Rx queue 0" in ln for ln in said),
                    "%s: the line names port 0 Rx queue 0" % what)
        if not shown:
            t.check(not said, "%s: no line says %r (not a warning)" % (what, NOTICE_TEXT))
        elif level == "info":
            t.check(len(said) + len(named) == 1, "%s: the driver says either %r or %r, once"
                    % (what, NOTICE_TEXT, NAPI_TEXT),
                    "\n".join(dpdk_output.problem_lines(tp.transcript)))
        elif polled:
            t.check(not said, "%s: busy polling ran (%d frames), and the driver does not "
                    "say %r" % (what, polled, NOTICE_TEXT))
        t.quit_testpmd(tp, net)
        return polled


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        # A veth pair per row: each socket binds to a veth that had no XDP
        # program before (see the end of the docstring).
        for i, (devargs, level, shown, gro) in enumerate(RUNS):
            port, peer = net.veth(dut, "d%d" % i, gen, "g%d" % i)
            one_run(t, net, dut, port, peer, devargs, level, shown, gro)


if __name__ == "__main__":
    runner.run(main, "busy_poll_veth", __doc__.splitlines()[0])
