#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""XDP attach modes and copy mode: each of MODES receives exactly N frames.

For each row of MODES, testpmd (rxonly, the driver's info lines on) starts
with `net_af_xdp0,iface=<veth>,<devargs>`; then:
  - `ip link` shows the program attached the way the row asks (xdpgeneric
    for generic/skb XDP, xdp for native/driver XDP), and the port's state
    block says the same (xdp.attach_mode);
  - the state block's queue.0.mode, and `show rxq info`, say copy where the
    row asks for it: force_copy=1, and mode=skb (generic XDP copies every
    frame: the driver binds in copy mode, and its log says why, rather than
    claim a zero-copy that does not happen on the patched kernel's veth,
    vm-zc/modes);
  - N frames of several sizes arrive: RX-packets == N, RX-bytes == their sum,
    nothing missed;
  - testpmd quits with 0 and no XDP program is left.
"""

import re

from afxdp_test import env, runner, state, testpmd, topo, traffic

# (devargs after iface=, `ip link` word, the state's xdp.attach_mode, the
#  state's queue.0.mode, or None where the run decides: AFXDP_SOCKET_MODE)
MODES = [
    ("mode=skb", "xdpgeneric", "skb", "copy"),
    ("mode=drv", "xdp", "drv", None),
    ("force_copy=1", "xdp", "drv", "copy"),
]
COPY_MODE = r"(?<!zero-)copy mode"      # `show rxq info`: not "zero-copy mode"
SKB_COPY_TEXT = "generic (skb) XDP copies every frame; zero-copy needs native XDP"
SIZES = [60, 512, 1500]
FRAMES = 300             # fewer than one ring holds: see test_rxonly


def one_mode(t, net, dut, port, peer, devargs, word, attach_mode, socket_mode):
    vdev = "net_af_xdp0,iface=%s,%s" % (port.name, devargs)
    env.log("--- %s" % devargs)
    tp = testpmd.TestPmd(dut, [vdev], fwd="rxonly", eal_extra=[testpmd.LOG_INFO],
                         label="testpmd[%s]" % devargs)
    with tp:
        log = tp.startup_output
        st = state.read(tp, 0)
        t.equal(st.get("xdp.attach_mode"), attach_mode, "%s: state xdp.attach_mode" % devargs)
        if socket_mode:
            t.equal(state.socket_modes(st), [socket_mode], "%s: state queue.0.mode" % devargs)
            # (a copy-mode run adds force_copy=1: then nothing needs saying)
            if "mode=skb" in devargs and not testpmd.with_socket_mode(vdev).endswith(
                    ",force_copy=1"):
                t.check(SKB_COPY_TEXT in log, "%s: the log says why: %r" % (devargs,
                                                                           SKB_COPY_TEXT))
            mode = tp.cmd("show rxq info 0 0")
            t.check(re.search(COPY_MODE, mode) is not None,
                    "%s: `show rxq info 0 0` says /%s/" % (devargs, COPY_MODE), mode)
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
        for devargs, word, attach_mode, socket_mode in MODES:
            one_mode(t, net, dut, port, peer, devargs, word, attach_mode, socket_mode)


if __name__ == "__main__":
    runner.run(main, "modes", __doc__.splitlines()[0])
