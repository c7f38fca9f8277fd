#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tx_budget: one sendto() drains a burst where the kernel lets the driver raise its Tx budget.

In copy mode the kernel sends in the sendto() that kicks it, at most the
socket's Tx budget of descriptors per call: 32, unless raised with
XDP_MAX_TX_SKB_BUDGET (Linux 6.17+, which getsockopt cannot read back). The
driver raises it to the Tx ring's size where the kernel has it.

testpmd txonly, bursts of BURST frames (twice the kernel's default budget),
TXD descriptors, on a veth in copy mode, for WINDOW seconds. Checks:
  - the state block's queue.0.tx_skb_budget: the Tx ring's size
    (queue.0.ring.tx) on a kernel of 6.17 or later, `default` before;
    `none` in zero-copy, where sendto() sends nothing itself;
  - the kernel's own behaviour, from the driver's count of sendto() calls
    (xstat tx_q0_wakeups) over the frames sent (tx_q0_packets): with the
    raised budget, fewer than 1 per KERNEL_BUDGET frames by a margin (at
    most MAX_CALLS_PER_FRAME), which a kernel sending 32 per call cannot
    reach; with the kernel's default, at least 1 per KERNEL_BUDGET frames
    (that bound is the kernel's, so this half checks the measurement);
  - frames were sent (tx_q0_packets > 0), and the peer got them.
Then once more with devarg tx_budget=kernel (the comparison's): the state
says `default` and the calls are the kernel's, at least 1 per 32 frames.

Last, a slow peer (an XDP program that passes every frame, so that veth
queues them for its NAPI, which is deferred to a timer of SLOW_PEER_NS: a
full queue holds the frames in flight, and the socket's send buffer fills): a kick the kernel refuses without taking a frame is not repeated
burst after burst until one of those frames completes. The bursts that
waited instead are counted (tx_q0_kick_waits > 0) and the refused kicks
(tx_q0_kick_busy) stay under 1 per MAX_REFUSED_PER_FRAME**-1 frames sent
(a refused sendto() per burst, as before, is several per frame); frames
still reach the peer (nothing stalls). Copy mode only: zero-copy has no
send buffer.
"""

import os
import time

from afxdp_test import bpf, cleanup, env, kernel, runner, state, testpmd, topo

BURST = 64               # testpmd's Tx burst: 2 calls at the kernel's default budget
TXD = 1024               # Tx ring: the raised budget
KERNEL_BUDGET = 32       # the kernel's default, and the least XDP_MAX_TX_SKB_BUDGET takes
# 0.75 / 32: a kernel sending at most 32 per call needs 1/32 calls per frame
MAX_CALLS_PER_FRAME = 0.75 / KERNEL_BUDGET
WINDOW = 1.0             # seconds of traffic (not a rate measurement)
FRAME_SIZE = 64
# The slow peer: hard interrupts deferred for ever, its NAPI polled by the
# timer every SLOW_PEER_NS (the benchmark's io-slow row, bench/benchlib/icount.py)
SLOW_PEER_DEFER, SLOW_PEER_NS = 2 ** 31 - 1, 1000000
# Measured on the host (6.18): 0.01-0.025 refused kicks per frame sent;
# 0.6 to 5 when every burst kicked (a 1 or 4 ms timer)
MAX_REFUSED_PER_FRAME = 1.0 / 8


def send_window(tp, peer):
    """txonly for WINDOW seconds: ({xstat: its change}, frames the peer received)."""
    peer_start = peer.sysfs_stat("rx_packets")
    before = tp.xstats(0)
    tp.cmd("start")
    time.sleep(WINDOW)
    tp.cmd("stop")
    after = tp.xstats(0)
    return ({k: after[k] - before.get(k, 0) for k in after},
            peer.sysfs_stat("rx_packets") - peer_start)


def run(t, net, port, peer, budget_arg):
    """txonly on port with devarg tx_budget=budget_arg (None: not given)."""
    dut = port.ns
    vdev = "net_af_xdp0,iface=%s" % port.name
    if budget_arg is not None:
        vdev += ",tx_budget=%s" % budget_arg
    app = ["--txpkts=%d" % FRAME_SIZE, "--eth-peer=0,%s" % peer.mac,
           "--burst=%d" % BURST, "--txd=%d" % TXD]
    with testpmd.TestPmd(dut, [vdev], fwd="txonly", app_extra=app) as tp:
        block = state.read(tp)
        q = state.queue_keys(block, 0)
        env.log("tx_budget=%s, kernel %s; queue 0: mode %s, ring.tx %s, tx_skb_budget %s"
                % (budget_arg, os.uname().release, q.get("mode"), q.get("ring.tx"),
                   q.get("tx_skb_budget")))
        t.equal(block.get("tx_budget"), budget_arg or "auto", "the state's devarg tx_budget")
        zero_copy = q.get("mode") == "zero-copy"
        raised = (kernel.tx_budget_refusal() is None and not zero_copy
                  and budget_arg != "kernel")
        if zero_copy:
            t.equal(q.get("tx_skb_budget"), "none", "queue.0.tx_skb_budget in zero-copy")
        elif raised:
            t.equal(q.get("tx_skb_budget"), q.get("ring.tx"),
                    "queue.0.tx_skb_budget on Linux 6.17+: the Tx ring's size")
        else:
            t.equal(q.get("tx_skb_budget"), "default",
                    "queue.0.tx_skb_budget before Linux 6.17 or with tx_budget=kernel")

        got, received = send_window(tp, peer)
        calls, frames = got["tx_q0_wakeups"], got["tx_q0_packets"]
        env.log("%d frames sent in %d sendto() calls (%.4f per frame, 1/%.1f); "
                "the peer received %d" % (frames, calls, calls / max(frames, 1),
                                          frames / max(calls, 1), received))
        t.check(frames > 0, "frames sent: %d" % frames)
        t.check(received > 0, "frames the peer received: %d" % received)
        if zero_copy:
            pass        # the driver's NAPI sends: no budget to measure
        elif raised:
            t.check(calls <= frames * MAX_CALLS_PER_FRAME,
                    "sendto() calls per frame with the raised budget: %d / %d = %.4f, "
                    "at most %.4f (a budget of 32 per call cannot go below 1/32 = %.4f)"
                    % (calls, frames, calls / max(frames, 1), MAX_CALLS_PER_FRAME,
                       1.0 / KERNEL_BUDGET))
        else:
            t.check(calls * KERNEL_BUDGET >= frames,
                    "sendto() calls per frame with the kernel's budget: %d / %d, at least "
                    "1/%d" % (calls, frames, KERNEL_BUDGET))
        t.quit_testpmd(tp, net)


def slow_peer_run(t, net, port, peer):
    """txonly into a peer whose queue stays full: refused kicks wait for a completion."""
    # GRO alone would not do: veth hands UDP frames to its NAPI only for XDP
    _, undo = bpf.attach_object(peer, bpf.obj("xdp_no_xsks_map"))
    peer.set_napi_deferral(SLOW_PEER_DEFER, SLOW_PEER_NS)
    app = ["--txpkts=%d" % FRAME_SIZE, "--eth-peer=0,%s" % peer.mac, "--burst=%d" % BURST]
    with testpmd.TestPmd(port.ns, ["net_af_xdp0,iface=%s" % port.name], fwd="txonly",
                         app_extra=app) as tp:
        if state.queue_keys(state.read(tp), 0).get("mode") == "zero-copy":
            env.log("slow peer: not checked in zero-copy (no send buffer to fill)")
        else:
            got, received = send_window(tp, peer)
            frames = got["tx_q0_packets"]
            env.log("slow peer: %s; the peer received %d" % (
                {k: got[k] for k in ("tx_q0_packets", "tx_q0_wakeups", "tx_q0_kick_busy",
                                     "tx_q0_kick_waits")}, received))
            t.check(received > 0, "slow peer: frames the peer received: %d" % received)
            t.check(got["tx_q0_kick_waits"] > 0,
                    "slow peer: bursts that waited for a completion instead of kicking: %d"
                    % got["tx_q0_kick_waits"])
            t.check(got["tx_q0_kick_busy"] <= frames * MAX_REFUSED_PER_FRAME,
                    "slow peer: refused kicks per frame sent: %d / %d, at most %.3f"
                    % (got["tx_q0_kick_busy"], frames, MAX_REFUSED_PER_FRAME))
        rc, _ = tp.quit()
        t.equal(rc, 0, "%s exit code after quit" % tp.label)
    # the peer's program detached first: quit_testpmd()'s check covers every interface
    peer.set_napi_deferral(0, 0)
    cleanup.release(undo)
    left = net.check_no_xdp()
    t.check(not left, "no XDP program left attached after testpmd quit", "\n".join(left))


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        run(t, net, port, peer, None)
        run(t, net, port, peer, "kernel")
        slow_peer_run(t, net, port, peer)


if __name__ == "__main__":
    runner.run(main, "tx_budget", __doc__.splitlines()[0])
