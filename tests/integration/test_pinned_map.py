#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""use_pinned_map=1: the sockets join someone else's program through its pinned XSKMAP, which stays.

Someone else (the test, with bpftool) loads bpf/xdp_ethertype.bpf.o with its
maps pinned in a bpffs of the run (`ip netns exec` mounts a fresh /sys, so
/sys/fs/bpf would not be seen from testpmd: see lib/bpf.py) and attaches it to
the veth with `ip link ... xdp pinned`. Then:
  1. testpmd with `use_pinned_map=1,dp_path=<pinned xsks_map>`: N raw frames
     arrive (RX-packets, RX-bytes exact); the port's state block names the
     path and the program attached, found through its map; after `port stop 0` the program is
     still attached, and after `port start 0` N more arrive; at quit (exit
     code 0) the same program is still attached: the driver never detaches a
     program it did not attach. The test then removes it.
  2. testpmd with `use_pinned_map=1,dp_path=/nonexistent`: port 0 does not
     start (or probe), a message names the path, and no XDP program is left.
"""

from afxdp_test import bpf, cleanup, dpdk_output, env, runner, state, testpmd, topo, traffic

OBJ = "xdp_ethertype"
MAP_NAME = "xsks_map"
MISSING = "/nonexistent"
SIZES = [60, 512, 1500]
FRAMES = 300


def receive(t, tp, port, peer, what, before=0):
    traffic.send(peer, port.mac, FRAMES, SIZES, stream=what)
    st = tp.wait_rx(0, before + FRAMES)
    t.equal(st["RX-packets"] - before, FRAMES, "%s: RX-packets" % what)
    return st["RX-packets"]


def with_pinned_map(t, net, dut, port, peer, prog, undo):
    map_path = prog.map_path(MAP_NAME)
    vdev = "net_af_xdp0,iface=%s,use_pinned_map=1,dp_path=%s" % (port.name, map_path)
    with testpmd.TestPmd(dut, [vdev], fwd="rxonly") as tp:
        log = tp.startup_output
        t.check("Fail to start port" not in log, "port 0 starts with %s" % vdev,
                "\n".join(dpdk_output.problem_lines(log)))
        st = state.read(tp, 0)
        t.equal((st.get("xdp.origin"), st.get("xdp.dp_path"), st.get("xdp.redirect")),
                ("use_pinned_map", map_path, "none"), "state xdp.origin, xdp.dp_path, xdp.redirect")
        t.equal((st.get("xdp.program_id"), st.get("xdp.owner")), (str(prog.id), "none"),
                "state: the program steering to the pinned map is the one attached, not ours")
        tp.cmd("start")
        n = receive(t, tp, port, peer, "with the pinned map")
        st = tp.port_stats(0)
        t.equal(st["RX-bytes"], traffic.expected_bytes(FRAMES, SIZES), "RX-bytes")
        t.equal(st["RX-missed"], 0, "RX-missed")
        tp.cmd("stop")
        tp.cmd("port stop 0")
        t.equal(bpf.attached_prog_id(port), prog.id,
                "XDP program attached after `port stop 0` (the external one)")
        tp.cmd("port start 0")
        tp.cmd("start")
        receive(t, tp, port, peer, "after port stop/start", before=n)
        tp.cmd("stop")
        rc, _ = tp.quit()
        t.equal(rc, 0, "%s exit code after quit" % tp.label)
    t.equal(bpf.attached_prog_id(port), prog.id,
            "XDP program attached after testpmd quit (the external one, id %d)" % prog.id)
    cleanup.release(undo)
    t.equal(bpf.attached_prog_id(port), None, "XDP program attached once the test removed it")


def missing_map(t, net, dut, port):
    vdev = "net_af_xdp0,iface=%s,use_pinned_map=1,dp_path=%s" % (port.name, MISSING)
    tp = testpmd.TestPmd(dut, [vdev], fwd="rxonly", label="testpmd[dp_path=%s]" % MISSING)
    try:
        tp.start(expect_prompt=False)
    except testpmd.TestPmdError:
        pass
    with tp:
        log = tp.startup_output.replace(vdev, "<devargs>")
        named = [ln.strip() for ln in log.splitlines() if MISSING in ln]
        for ln in named:
            env.log("    | %s" % ln)
        t.check(bool(named), "a message names %s" % MISSING,
                "\n".join(dpdk_output.problem_lines(log)))
        if tp.alive():
            failed = "Fail to start port 0" in log or tp.port_count() == 0
            t.check(failed, "port 0 neither started nor probed with %s" % vdev)
            left = net.check_no_xdp()
            t.check(not left, "no XDP program attached after the failure", "\n".join(left))
            t.quit_testpmd(tp, net)
        else:
            t.check(False, "testpmd reaches its prompt (exit code %s)" % tp.returncode)


def main(t):
    obj = bpf.obj(OBJ)
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        with bpf.Bpffs() as fs:
            prog = fs.load(obj, "redirect")
            undo = prog.attach(port)
            with_pinned_map(t, net, dut, port, peer, prog, undo)
        missing_map(t, net, dut, port)


if __name__ == "__main__":
    runner.run(main, "pinned_map", __doc__.splitlines()[0])
