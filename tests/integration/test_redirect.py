#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""redirect: the built-in program's redirect follows the running kernel.

What to expect is read from the running kernel itself, independently of the
driver's own probing: does `bpftool btf dump file /sys/kernel/btf/vmlinux`
list BPF_FUNC_redirect_xsk in enum bpf_func_id (the direct redirect of our
patched kernel), and the function xdp_do_redirect_xsk_batch (its batched
receive of bpf_redirect_map() into an XSKMAP)?  Then, on a veth pair, with N
frames from afxdp-gen:

- redirect=auto: the driver logs and shows (xstats rx_xdp_redirect_direct,
  rx_xdp_kernel_batched_map) map where the kernel batches the map's
  redirects (as fast, the map's semantics), direct where it only has the
  direct redirect, map elsewhere; all N frames arrive; and the program's
  fallback counters stay 0.
- redirect=map: map on any kernel, N frames.
- redirect=direct: on a stock kernel the probe fails at once, naming
  redirect and what the kernel lacks; on the patched kernel, direct.
On the patched kernel, the veth's own counter rx_queue_0_xdp_redirect_xsk
(ethtool -S) grows by N exactly when the driver says direct: the kernel
itself says which path the frames took.
"""

import os

from afxdp_test import bpf, env, runner, testpmd, topo

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


def expected_log(redirect, expect_direct, batched):
    if expect_direct:
        return "redirect: direct (bpf_redirect_xsk)"
    if redirect == "auto" and batched:
        return ("redirect: map (bpf_redirect_map), redirect=auto and the kernel receives "
                "bpf_redirect_map() into an XSKMAP in batches")
    return "redirect: map (bpf_redirect_map)"


def run_port(t, net, dut, port, peer, gen, redirect, expect_direct, kernel):
    kernel_direct, batched = kernel.direct, kernel.batched
    vdev = "net_af_xdp0,iface=%s,redirect=%s" % (port.name, redirect)
    before = direct_frames(port)
    t.require((before is not None) == kernel_direct,
              "veth has the counter rx_queue_0_xdp_redirect_xsk exactly on the patched kernel")
    with testpmd.TestPmd(dut, [vdev], fwd="rxonly",
                         eal_extra=["--log-level=pmd.net.af_xdp:info"]) as tp:
        log = tp.startup_output
        want_log = expected_log(redirect, expect_direct, batched)
        t.check(want_log in log, "redirect=%s: the log says %r" % (redirect, want_log))
        tp.cmd("start")
        send(gen, peer, FRAMES)
        st = tp.wait_rx(0, FRAMES)
        tp.cmd("stop")
        t.equal(st["RX-packets"], FRAMES, "redirect=%s: RX-packets" % redirect)
        xs = tp.xstats(0)
        t.equal(xs.get("rx_xdp_redirect_direct"), 1 if expect_direct else 0,
                "redirect=%s: xstat rx_xdp_redirect_direct" % redirect)
        t.equal(xs.get("rx_xdp_kernel_batched_map"), 1 if batched else 0,
                "redirect=%s: xstat rx_xdp_kernel_batched_map" % redirect)
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
