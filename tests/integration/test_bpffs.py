#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bpffs: the driver with no bpffs where libxdp looks for one, and with one.

    netns gen: g0  == veth ==  d0 (net_af_xdp0)  netns dut: testpmd rxonly

libxdp pins its dispatcher in a bpffs (/sys/fs/bpf, or LIBXDP_BPFFS); where
there is none it attaches a single program instead. systemd mounts
/sys/fs/bpf on every Debian system, and scripts/setup.sh does where it is
missing; but a machine without it exists (a fresh one of CI's kind), and a
process under `ip netns exec` never sees the host's (its /sys is a sysfs of
its own). Each check a TAP line:

  none   testpmd's own mount namespace has no bpf filesystem anywhere (its
         /proc/<pid>/mounts) and LIBXDP_BPFFS is unset: the port starts,
         its program attached alone (state xdp.program afxdp_map,
         xdp.dispatcher no), COUNT frames received exactly, and quit leaves
         no program behind.
  given  LIBXDP_BPFFS names a bpffs of the run: the port starts; where the
         kernel lets libxdp load its dispatcher (state xdp.dispatcher yes),
         the dispatcher's pins are in that bpffs while the port runs, and
         gone after quit; where it does not, the program runs alone, as in
         `none`. COUNT frames received exactly either way.
"""

import contextlib
import os

from afxdp_test import bpf, runner, state, testpmd, topo, traffic

COUNT = 500
SIZES = traffic.SIZES


def bpf_mounts(pid):
    """The bpf filesystems mounted in process pid's mount namespace."""
    with open("/proc/%d/mounts" % pid) as f:
        return [line.split()[1] for line in f if len(line.split()) > 2 and
                line.split()[2] == "bpf"]


def receive(t, tp, port, peer, what):
    tp.cmd("start")
    traffic.send(peer, port.mac, COUNT, SIZES, stream=what)
    st = tp.wait_rx(0, COUNT)
    tp.cmd("stop")
    t.equal((st["RX-packets"], st["RX-missed"]), (COUNT, 0), "%s: RX-packets, RX-missed" % what)


def pins(fs):
    """Every file under the bpffs `fs` (libxdp's: xdp/dispatch-<ifindex>-<id>/...;
    the kernel's own maps.debug and progs.debug in a fresh one)."""
    return sorted(os.path.relpath(os.path.join(d, f), fs.mount)
                  for d, _, files in os.walk(fs.mount) for f in files)


def check_none(t, net):
    dut, gen = net.netns("dut"), net.netns("gen")
    port, peer = net.veth(dut, "d0", gen, "g0")
    os.environ.pop("LIBXDP_BPFFS", None)
    with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly") as tp:
        t.equal(bpf_mounts(tp.proc.pid), [], "none: bpf filesystems in testpmd's mount namespace")
        st = state.read(tp)
        t.require(st.get("state") == "started", "none: the port started")
        t.equal((st.get("xdp.program"), st.get("xdp.dispatcher")), ("afxdp_map", "no"),
                "none: state xdp.program, xdp.dispatcher (attached alone)")
        receive(t, tp, port, peer, "none")
        t.quit_testpmd(tp, net)


def check_given(t, net):
    dut, gen = net.netns("dut1"), net.netns("gen1")
    port, peer = net.veth(dut, "d1", gen, "g1")
    with bpf.libxdp_bpffs() as fs:
        fresh = pins(fs)
        with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly") as tp:
            st = state.read(tp)
            t.require(st.get("state") == "started", "given: the port started")
            dispatcher = st.get("xdp.dispatcher") == "yes"
            t.equal(st.get("xdp.program"), "afxdp_map", "given: state xdp.program (%s)" % (
                "under libxdp's dispatcher" if dispatcher else
                "alone: the kernel does not let libxdp load its dispatcher"))
            held = pins(fs)
            if dispatcher:
                t.check(any(p.startswith("xdp/dispatch-") for p in held),
                        "given: the dispatcher's pins in the run's bpffs", str(held))
            receive(t, tp, port, peer, "given")
            t.quit_testpmd(tp, net)
        t.equal(pins(fs), fresh, "given: nothing left pinned in the bpffs after quit")


def in_topology(check):
    def run(t, _):
        with topo.Topology() as net:
            check(t, net)
    return run


@contextlib.contextmanager
def setup(t):
    yield None


CHECKS = [
    ("none", in_topology(check_none)),
    ("given", in_topology(check_given)),
]


if __name__ == "__main__":
    runner.run_session("bpffs", __doc__.splitlines()[0], setup, CHECKS)
