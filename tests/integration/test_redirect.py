#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""redirect: the built-in program's redirect follows the running kernel.

What to expect is read from the running kernel itself, independently of the
driver's own probing: does `bpftool btf dump file /sys/kernel/btf/vmlinux`
list BPF_FUNC_redirect_xsk in enum bpf_func_id (our patched kernel) or not
(a stock kernel)?  Then, on a veth pair, with N frames from afxdp-gen:

- redirect=auto: the driver logs and shows (xstat rx_xdp_redirect_direct)
  direct on the patched kernel, map elsewhere; all N frames arrive.  On the
  patched kernel, the veth's own counter rx_queue_0_xdp_redirect_xsk
  (ethtool -S) grows by N: the kernel itself says the frames took the direct
  path; and the program's fallback counters stay 0.
- redirect=map: map on any kernel, N frames, that veth counter unchanged.
- redirect=direct: on a stock kernel the probe fails at once, naming
  redirect and what the kernel lacks; on the patched kernel, as auto.
"""

import os
import re

from afxdp_test import env, runner, testpmd, topo

FRAMES = 1000


def kernel_has_direct():
    """Ask the running kernel's BTF, with bpftool, not with the driver."""
    cp = env.run(["bpftool", "btf", "dump", "file", "/sys/kernel/btf/vmlinux"],
                 check=False, timeout=120)
    if cp.returncode != 0:
        raise env.Skip("cannot read the kernel's BTF with bpftool: %s" % cp.stderr.strip())
    return re.search(r"'BPF_FUNC_redirect_xsk' val=\d+", cp.stdout) is not None


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


def run_port(t, net, dut, port, peer, gen, redirect, expect_direct, kernel_direct):
    vdev = "net_af_xdp0,iface=%s,redirect=%s" % (port.name, redirect)
    before = direct_frames(port)
    t.require((before is not None) == kernel_direct,
              "veth has the counter rx_queue_0_xdp_redirect_xsk exactly on the patched kernel")
    with testpmd.TestPmd(dut, [vdev], fwd="rxonly",
                         eal_extra=["--log-level=pmd.net.af_xdp:info"]) as tp:
        log = tp.startup_output
        want_log = "redirect: direct (bpf_redirect_xsk)" if expect_direct else \
            "redirect: map (bpf_redirect_map)"
        t.check(want_log in log, "redirect=%s: the log says %r" % (redirect, want_log))
        tp.cmd("start")
        send(gen, peer, FRAMES)
        st = tp.wait_rx(0, FRAMES)
        tp.cmd("stop")
        t.equal(st["RX-packets"], FRAMES, "redirect=%s: RX-packets" % redirect)
        xs = tp.xstats(0)
        t.equal(xs.get("rx_xdp_redirect_direct"), 1 if expect_direct else 0,
                "redirect=%s: xstat rx_xdp_redirect_direct" % redirect)
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
    direct = kernel_has_direct()
    env.log("the running kernel %s bpf_redirect_xsk" % ("has" if direct else "lacks"))
    with topo.Topology() as net:
        dut, gen_ns = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen_ns, "g0")
        run_port(t, net, dut, port, peer, gen, "auto", direct, direct)
        run_port(t, net, dut, port, peer, gen, "map", False, direct)
        if direct:
            run_port(t, net, dut, port, peer, gen, "direct", True, direct)
        else:
            direct_refused(t, net, dut, port)


if __name__ == "__main__":
    runner.run(main, "redirect", __doc__.splitlines()[0])
