#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""use_cni=1: the XSKMAP comes from an AF_XDP device plugin over its Unix socket.

A program with an XSKMAP (bpf/xdp_ethertype.bpf.o) is loaded and attached by
someone else (the test, as in test_pinned_map.py); a fake device plugin
(afxdp_test.cni, a SOCK_SEQPACKET server in the test) holds the map's fd
(bpf(BPF_OBJ_GET) on its pin) and hands it over as the real one does. Then:
  1. testpmd with `use_cni=1,dp_path=<socket>`: the plugin sees /connect,
     /version, /xsk_map_fd,<iface> and /fin, in that order, and passes one fd;
     N raw frames arrive exactly; at quit (exit code 0) the program is still
     attached (the plugin owns it); the test then removes it.
  2. A plugin answering /host_nak to /connect: port 0 does not start, and a
     message says what the plugin answered (names /host_nak); the plugin saw
     only /connect; no XDP program is left.
"""

import os

from afxdp_test import bpf, cleanup, cni, dpdk_output, env, runner, state, testpmd, topo, traffic

OBJ = "xdp_ethertype"
MAP_NAME = "xsks_map"
SIZES = [60, 512, 1500]
FRAMES = 300
NAK = "/host_nak"


def socket_path(name):
    return os.path.join(env.run_dir(), name)


def with_plugin(t, net, dut, port, peer, prog, undo, map_fd):
    path = socket_path("afxdp-dp.sock")
    with cni.FakeDevicePlugin(path, map_fd) as dp:
        vdev = "net_af_xdp0,iface=%s,use_cni=1,dp_path=%s" % (port.name, path)
        with testpmd.TestPmd(dut, [vdev], fwd="rxonly", eal_extra=[testpmd.LOG_INFO]) as tp:
            log = tp.startup_output
            t.check("Fail to start port" not in log, "port 0 starts with %s" % vdev,
                    "\n".join(dpdk_output.problem_lines(log)))
            kinds = [r.split(",")[0] for r in dp.requests]
            t.equal(kinds, ["/connect", "/version", "/xsk_map_fd", "/fin"],
                    "requests the device plugin received")
            t.check("/xsk_map_fd,%s" % port.name in dp.requests,
                    "the map was asked for interface %s" % port.name, "%s" % dp.requests)
            t.equal(dp.fds_sent, 1, "map fds the device plugin passed")
            t.equal(dp.errors, [], "protocol errors seen by the device plugin")
            st = state.read(tp, 0)
            t.equal((st.get("xdp.origin"), st.get("xdp.dp_path")), ("use_cni", path),
                    "state xdp.origin, xdp.dp_path")
            t.equal((st.get("xdp.program_id"), st.get("xdp.owner")), (str(prog.id), "none"),
                    "state: the program steering to the plugin's map is the plugin's")
            tp.cmd("start")
            traffic.send(peer, port.mac, FRAMES, SIZES)
            st = tp.wait_rx(0, FRAMES)
            tp.cmd("stop")
            t.equal(st["RX-packets"], FRAMES, "RX-packets")
            t.equal(st["RX-bytes"], traffic.expected_bytes(FRAMES, SIZES), "RX-bytes")
            t.equal(st["RX-missed"], 0, "RX-missed")
            rc, _ = tp.quit()
            t.equal(rc, 0, "%s exit code after quit" % tp.label)
        t.equal(bpf.attached_prog_id(port), prog.id,
                "XDP program attached after testpmd quit (the plugin's, id %d)" % prog.id)
    cleanup.release(undo)
    t.equal(bpf.attached_prog_id(port), None, "XDP program attached once the test removed it")


def with_nak(t, net, dut, port, map_fd):
    path = socket_path("afxdp-dp-nak.sock")
    with cni.FakeDevicePlugin(path, map_fd, host_answer=NAK) as dp:
        vdev = "net_af_xdp0,iface=%s,use_cni=1,dp_path=%s" % (port.name, path)
        with testpmd.TestPmd(dut, [vdev], fwd="rxonly", label="testpmd[%s]" % NAK) as tp:
            log = tp.startup_output
            t.check("Fail to start port 0" in log, "port 0 does not start when the plugin "
                    "answers %s" % NAK, "\n".join(dpdk_output.problem_lines(log)))
            named = [ln.strip() for ln in log.splitlines() if NAK in ln]
            for ln in named:
                env.log("    | %s" % ln)
            t.check(bool(named), "a message says the device plugin answered %s" % NAK,
                    "\n".join(dpdk_output.problem_lines(log)))
            t.equal([r.split(",")[0] for r in dp.requests], ["/connect"],
                    "requests the refusing device plugin received")
            t.equal(dp.fds_sent, 0, "map fds the refusing device plugin passed")
            t.quit_testpmd(tp, net)


def main(t):
    obj = bpf.obj(OBJ)
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        with bpf.Bpffs() as fs:
            prog = fs.load(obj, "redirect")
            map_fd = bpf.obj_get(prog.map_path(MAP_NAME))
            fd_undo = cleanup.push("map fd %d" % map_fd, lambda: os.close(map_fd))
            undo = prog.attach(port)
            with_plugin(t, net, dut, port, peer, prog, undo, map_fd)
            with_nak(t, net, dut, port, map_fd)
            cleanup.release(fd_undo)


if __name__ == "__main__":
    runner.run(main, "cni", __doc__.splitlines()[0])
