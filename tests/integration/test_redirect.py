#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""redirect: the built-in program's redirect follows the running kernel.

What to expect is read from the running kernel itself, independently of the
driver's own probing: does the kernel's BTF (/sys/kernel/btf/vmlinux, read
by bpf.btf_names) list BPF_FUNC_redirect_xsk in enum bpf_func_id (the direct redirect of our
patched kernel), and the function xdp_do_redirect_xsk_batch (its batched
receive of bpf_redirect_map() into an XSKMAP)?  Then, on a veth pair, with N
frames from afxdp-gen:

- redirect=auto: the port's state block (dump_priv: xdp.redirect and its
  reason, kernel.batched_map, kernel.direct_redirect) says map where the
  kernel batches the map's redirects (as fast, the map's semantics), direct
  where it only has the direct redirect, map elsewhere; all N frames
  arrive; and the program's fallback counters stay 0.
- redirect=map: map on any kernel, N frames.
- redirect=direct: on a stock kernel the probe fails at once, naming
  redirect and what the kernel lacks; on the patched kernel, direct.
On the patched kernel, the veth's own counter rx_queue_0_xdp_redirect_xsk
(ethtool -S) grows by N exactly when the driver says direct: the kernel
itself says which path the frames took.
"""

import os

from afxdp_test import bpf, env, runner, state, testpmd, topo

FRAMES = 1000


def generator():
    gen = os.environ.get("AFXDP_GEN")
    if not gen or not os.access(gen, os.X_OK):
        raise env.Skip("afxdp-gen not built (AFXDP_GEN=%s)" % gen)
    return gen


def send(gen, peer, count):
    cp = env.run([gen, "--dev", peer.name, "--count", str(count), "--quiet"],
                 ns=peer.ns.name, timeout=120)
    return cp.stdout


def direct_frames(port):
    """veth's own count of frames it delivered with XDP_REDIRECT_XSK (patched
    kernel only: None elsewhere)."""
    return port.ethtool_stats().get("rx_queue_0_xdp_redirect_xsk")


def expected_reason(redirect, expect_direct, batched):
    """xdp.redirect.reason in the state block."""
    if redirect != "auto":
        return "asked"
    if expect_direct:
        return "kernel-has-direct"
    return "kernel-batches-map" if batched else "kernel-has-no-direct"


def yes_no(b):
    return "yes" if b else "no"


def run_port(t, net, dut, port, peer, gen, redirect, expect_direct, kernel):
    kernel_direct, batched = kernel.direct, kernel.batched
    vdev = "net_af_xdp0,iface=%s,redirect=%s" % (port.name, redirect)
    before = direct_frames(port)
    t.require((before is not None) == kernel_direct,
              "veth has the counter rx_queue_0_xdp_redirect_xsk exactly on the patched kernel")
    with testpmd.TestPmd(dut, [vdev], fwd="rxonly") as tp:
        st = state.read(tp, 0)
        t.equal(st.get("xdp.redirect"), "direct" if expect_direct else "map",
                "redirect=%s: state xdp.redirect" % redirect)
        t.equal(st.get("xdp.redirect.reason"), expected_reason(redirect, expect_direct, batched),
                "redirect=%s: state xdp.redirect.reason" % redirect)
        t.equal(st.get("kernel.batched_map"), yes_no(batched),
                "redirect=%s: state kernel.batched_map" % redirect)
        t.equal(st.get("kernel.direct_redirect"), yes_no(kernel_direct),
                "redirect=%s: state kernel.direct_redirect" % redirect)
        t.equal(st.get("xdp.program"), "afxdp_direct" if expect_direct else "afxdp_map",
                "redirect=%s: state xdp.program" % redirect)
        tp.cmd("start")
        send(gen, peer, FRAMES)
        st = tp.wait_rx(0, FRAMES)
        tp.cmd("stop")
        t.equal(st["RX-packets"], FRAMES, "redirect=%s: RX-packets" % redirect)
        xs = tp.xstats(0)
        t.equal(xs.get("rx_xdp_direct_fallback_via_map"), 0,
                "redirect=%s: frames through the map instead" % redirect)
        t.equal(xs.get("rx_xdp_direct_fallback_passed"), 0,
                "redirect=%s: frames to the stack instead" % redirect)
        info = tp.cmd("show rxq info 0 0")
        steer = "bpf_redirect_xsk" if expect_direct else "bpf_redirect_map"
        t.check(("steered by " + steer) in info, "redirect=%s: burst mode names %s"
                % (redirect, steer))
        t.quit_testpmd(tp, net)
    if kernel_direct:
        t.equal(direct_frames(port) - before, FRAMES if expect_direct else 0,
                "redirect=%s: frames the kernel delivered with XDP_REDIRECT_XSK (veth's counter)"
                % redirect)


def direct_refused(t, net, dut, port):
    vdev = "net_af_xdp0,iface=%s,redirect=direct" % port.name
    tp = testpmd.TestPmd(dut, [vdev], fwd="rxonly", label="testpmd[redirect=direct]")
    tp.start(expect_prompt=False, timeout=30)
    with tp:
        text = tp.startup_output
        t.check("redirect=direct, but the kernel has no bpf_redirect_xsk" in text,
                "redirect=direct on a stock kernel: the probe names redirect and the reason")
        t.equal(tp.port_count(), 0, "redirect=direct on a stock kernel: no port")
        t.quit_testpmd(tp, net)


def main(t):
    if env.is_stock():
        raise env.Skip("redirect= is a devarg of our driver (AFXDP_PLUGIN unset: stock driver)")
    gen = generator()
    kernel = bpf.KernelXdp()
    env.log(str(kernel))
    with topo.Topology() as net:
        dut, gen_ns = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen_ns, "g0")
        run_port(t, net, dut, port, peer, gen, "auto", kernel.direct and not kernel.batched,
                 kernel)
        run_port(t, net, dut, port, peer, gen, "map", False, kernel)
        if kernel.direct:
            run_port(t, net, dut, port, peer, gen, "direct", True, kernel)
        else:
            direct_refused(t, net, dut, port)


if __name__ == "__main__":
    runner.run(main, "redirect", __doc__.splitlines()[0])
