#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""XDP attach modes and copy mode: each of MODES receives exactly N frames.

For each row of MODES, testpmd (rxonly, the driver's info lines on) starts
with `net_af_xdp0,iface=<veth>,<devargs>`; then:
  - `ip link` shows the program attached the way the row asks (xdpgeneric
    for generic/skb XDP, xdp for native/driver XDP);
  - the driver's start-up log names the mode: "attached to <iface> in <mode>
    mode", and each queue's line says "copy mode" where the row asks for it:
    force_copy=1, and mode=skb (generic XDP copies every frame: the driver
    binds in copy mode, and says why, rather than claim a zero-copy that
    does not happen on the patched kernel's veth, vm-zc-modes);
  - N frames of several sizes arrive: RX-packets == N, RX-bytes == their sum,
    nothing missed;
  - testpmd quits with 0 and no XDP program is left.
"""

import re

from afxdp_test import env, runner, testpmd, topo, traffic

# (devargs after iface=, `ip link` word, text the attach log line must hold,
#  pattern each queue's log line and `show rxq info` must match, or None)
COPY_MODE = r"(?<!zero-)copy mode"      # not "zero-copy mode"
MODES = [
    ("mode=skb", "xdpgeneric", "in generic (skb) mode", COPY_MODE),
    ("mode=drv", "xdp", "in native (drv) mode", None),
    ("force_copy=1", "xdp", "in native (drv) mode", COPY_MODE),
]
SKB_COPY_TEXT = "generic (skb) XDP copies every frame; zero-copy needs native XDP"
SIZES = [60, 512, 1500]
FRAMES = 300             # fewer than one ring holds: see test_rxonly


def one_mode(t, net, dut, port, peer, devargs, word, attach_text, queue_text):
    vdev = "net_af_xdp0,iface=%s,%s" % (port.name, devargs)
    env.log("--- %s" % devargs)
    tp = testpmd.TestPmd(dut, [vdev], fwd="rxonly", eal_extra=[testpmd.LOG_INFO],
                         label="testpmd[%s]" % devargs)
    with tp:
        log = tp.startup_output
        attach = [ln.strip() for ln in log.splitlines() if "attached to %s" % port.name in ln]
        t.check(any(attach_text in ln for ln in attach),
                "%s: the log says the program is attached %s" % (devargs, attach_text),
                "attach lines: %s" % (attach or "none"))
        if queue_text:
            queues = [ln.strip() for ln in log.splitlines()
                      if "queue 0: socket on %s" % port.name in ln]
            t.check(bool(queues) and all(re.search(queue_text, ln) for ln in queues),
                    "%s: the queue's log line says /%s/" % (devargs, queue_text),
                    "queue lines: %s" % (queues or "none"))
            # (a copy-mode run adds force_copy=1: then nothing needs saying)
            if "mode=skb" in devargs and not testpmd.with_socket_mode(vdev).endswith(
                    ",force_copy=1"):
                t.check(SKB_COPY_TEXT in log, "%s: the log says why: %r" % (devargs,
                                                                           SKB_COPY_TEXT))
            mode = tp.cmd("show rxq info 0 0")
            t.check(re.search(queue_text, mode) is not None,
                    "%s: `show rxq info 0 0` says /%s/" % (devargs, queue_text), mode)
        t.equal(port.xdp_word(), word, "%s: `ip link` shows" % devargs)

        tp.cmd("start")
        traffic.send(peer, port.mac, FRAMES, SIZES, stream=devargs)
        st = tp.wait_rx(0, FRAMES)
        tp.cmd("stop")
        t.equal(st["RX-packets"], FRAMES, "%s: RX-packets" % devargs)
        t.equal(st["RX-bytes"], traffic.expected_bytes(FRAMES, SIZES), "%s: RX-bytes" % devargs)
        t.equal(st["RX-missed"], 0, "%s: RX-missed" % devargs)
        t.quit_testpmd(tp, net)


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        for devargs, word, attach_text, queue_text in MODES:
            one_mode(t, net, dut, port, peer, devargs, word, attach_text, queue_text)


if __name__ == "__main__":
    runner.run(main, "modes", __doc__.splitlines()[0])
