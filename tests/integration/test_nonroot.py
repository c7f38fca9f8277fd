#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""non-root: testpmd as an unprivileged user: the start fails naming the missing capability (or RLIMIT_MEMLOCK) and what to do.

testpmd runs as nobody (setpriv: uid and gid 65534, no groups, only the
capabilities of the row, as ambient ones), under `prlimit --memlock` of
MEMLOCK_KIB, so the UMEM (the 16384-mbuf pool, 64 MiB) is far over the
limit; EAL's runtime files go to a directory of the run that nobody owns,
and the plugin is loaded from a copy in the run's directory (the build may
be where nobody cannot read). For each row of CASES: testpmd reaches its
prompt; port 0 does not start; a line of the driver's contains each of the
row's substrings (the capability, the limit, the command); quit exits 0;
no XDP program is left. The failures, in the order a start meets them:

  no capability                 the AF_XDP socket: CAP_NET_RAW, and the list of
                                  what is needed
  CAP_NET_RAW, CAP_NET_ADMIN,   the UMEM: RLIMIT_MEMLOCK = <limit>, CAP_IPC_LOCK,
  CAP_BPF, no CAP_IPC_LOCK        "ulimit -l <KiB the UMEM needs>"
  CAP_NET_RAW, CAP_IPC_LOCK     the XDP program: CAP_NET_ADMIN and CAP_BPF

And with CAP_NET_RAW, CAP_NET_ADMIN, CAP_BPF, CAP_IPC_LOCK (which lifts
the limit) and CAP_SYS_ADMIN (libxdp 1.3.1 finds the program to detach by
its id, which needs it): the port starts, FRAMES frames arrive exactly, and
nothing is left after quit.
"""

import os
import re
import shutil

from afxdp_test import dpdk_output, env, runner, testpmd, topo, traffic

NOBODY = 65534
MEMLOCK_KIB = 1024
POOL_MBUFS = 16384
FRAMES = 100
SIZES = [60, 1500]
# The UMEM's size, and the limit to ask for: the same number of KiB.
UMEM_AND_ULIMIT = re.compile(r"mempool \S+ \((\d+) KiB\) as a UMEM: .*ulimit -l \1\b")

CASES = [
    ("no capability", [], ["cannot create an AF_XDP socket", "it needs CAP_NET_RAW",
                           "CAP_NET_RAW, CAP_NET_ADMIN, CAP_BPF, CAP_IPC_LOCK, and CAP_SYS_ADMIN"]),
    ("no CAP_IPC_LOCK", ["net_raw", "net_admin", "bpf"],
     ["RLIMIT_MEMLOCK = %d KiB" % MEMLOCK_KIB, "CAP_IPC_LOCK", UMEM_AND_ULIMIT]),
    ("no CAP_NET_ADMIN, no CAP_BPF", ["net_raw", "ipc_lock"], ["CAP_NET_ADMIN", "CAP_BPF"]),
]
ALL_CAPS = ["net_raw", "net_admin", "bpf", "ipc_lock", "sys_admin"]


def nobody_setup():
    """A runtime directory nobody owns and a copy of the plugin nobody can read."""
    d = os.path.join(env.run_dir(), "nonroot")
    os.mkdir(d, 0o755)
    xdg = os.path.join(d, "xdg")
    os.mkdir(xdg, 0o700)
    os.chown(xdg, NOBODY, NOBODY)
    plugin = None
    if env.plugin():
        plugin = os.path.join(d, os.path.basename(env.plugin()))
        shutil.copy2(env.plugin(), plugin)
        os.chmod(plugin, 0o755)
    return xdg, plugin


def wrapper(xdg, caps):
    inh = ",".join(["-all"] + ["+" + c for c in caps])
    cmd = ["env", "XDG_RUNTIME_DIR=%s" % xdg,
           "prlimit", "--memlock=%d:%d" % (MEMLOCK_KIB * 1024, MEMLOCK_KIB * 1024),
           "setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups",
           "--inh-caps=%s" % inh]
    if caps:
        cmd.append("--ambient-caps=%s" % ",".join("+" + c for c in caps))
    return cmd + ["--"]


def driver_lines(log):
    return [ln.strip() for ln in log.splitlines() if ln.strip().startswith("net_af_xdp0:")]


def refused(t, net, dut, port, setup, name, caps, wants):
    xdg, plugin = setup
    env.log("--- %s (capabilities: %s)" % (name, ", ".join(caps) or "none"))
    tp = testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], total_mbufs=POOL_MBUFS,
                         wrapper=wrapper(xdg, caps), plugin=plugin,
                         label="testpmd[nobody, %s]" % name)
    with tp:
        log = tp.startup_output
        t.check("Fail to start port 0" in log, "%s: port 0 does not start" % name,
                "\n".join(dpdk_output.problem_lines(log)))
        lines = driver_lines(log)
        for ln in lines:
            env.log("    | %s" % ln)
        for want in wants:
            found = [ln for ln in lines if (want.search(ln) if isinstance(want, re.Pattern)
                                            else want in ln)]
            t.check(bool(found), "%s: the driver's message says %r"
                    % (name, getattr(want, "pattern", want)),
                    "\n".join(dpdk_output.problem_lines(log)))
        t.quit_testpmd(tp, net)


def allowed(t, net, dut, port, peer, setup):
    xdg, plugin = setup
    env.log("--- capabilities %s" % ", ".join(ALL_CAPS))
    tp = testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], total_mbufs=POOL_MBUFS,
                         wrapper=wrapper(xdg, ALL_CAPS), plugin=plugin,
                         label="testpmd[nobody, all capabilities]")
    with tp:
        log = tp.startup_output
        t.require("Fail to start port" not in log, "with %s: port 0 starts" % ", ".join(ALL_CAPS),
                  "\n".join(dpdk_output.problem_lines(log)))
        tp.cmd("start")
        traffic.send(peer, port.mac, FRAMES, SIZES, stream="nobody")
        st = tp.wait_rx(0, FRAMES)
        t.equal(st["RX-packets"], FRAMES, "RX-packets as nobody with the capabilities")
        tp.cmd("stop")
        t.quit_testpmd(tp, net)


def main(t):
    for prog in ("setpriv", "prlimit"):
        if not shutil.which(prog):
            raise env.Skip("%s not found (Debian package util-linux)" % prog)
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        setup = nobody_setup()
        cp = env.run(wrapper(setup[0], ALL_CAPS) + ["true"], check=False)
        if cp.returncode != 0:
            raise env.Skip("cannot run a command as uid %d with ambient capabilities %s here "
                           "(a container's bounding set?): %s" % (
                               NOBODY, ", ".join(ALL_CAPS), cp.stderr.strip()))
        for name, caps, wants in CASES:
            refused(t, net, dut, port, setup, name, caps, wants)
        allowed(t, net, dut, port, peer, setup)


if __name__ == "__main__":
    runner.run(main, "nonroot", __doc__.splitlines()[0])
