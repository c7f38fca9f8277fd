#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""xdp_prog=: the user's XDP object steers the frames; one without xsks_map is refused at start.

1. xdp_prog=bpf/xdp_ethertype.bpf.o (an XSKMAP named xsks_map; frames of the
   test ethertype 0x88B5 to the socket, every other frame to the kernel):
   its program is what `ip link` shows attached; N raw frames (0x88B5) and M
   UDP frames are sent: testpmd counts exactly the N (RX-packets, RX-bytes),
   and a raw socket on the port's interface (the kernel stack) sees the M UDP
   frames intact and none of the N; after quit no program is left.
2. xdp_prog=bpf/xdp_no_xsks_map.bpf.o (its XSKMAP has another name): the port
   fails to start, with a message naming xsks_map; no program is left
   attached, neither after the failure nor after quit.
3. xdp_prog=bpf/xdp_ethertype.bpf.o, not multi-buffer aware, with the veth
   pair at MTU 9000: the port fails to start, with a message naming
   xdp.frags (the kernel alone would refuse with ERANGE); no program is left
   attached. The same program built multi-buffer aware
   (xdp_ethertype_frags.bpf.o) starts there and receives 9000-byte frames.
4. Files that are no XDP object: a text file, an x86 ELF (/bin/true) and
   bpf/tc_not_xdp.bpf.o (a tc program, which libxdp alone would load as XDP):
   the port fails to start, and the message says why in words (libbpf's
   "BPF object format invalid", or the program's type), never a bare
   "Unknown error 4001" (libbpf's codes through strerror); no program is left.
"""

import os

from afxdp_test import bpf, dpdk_output, env, runner, state, testpmd, topo, traffic

GOOD_OBJ = "xdp_ethertype"
FRAGS_OBJ = "xdp_ethertype_frags"
GOOD_PROG_NAME = "test_ethertype"    # its function name: the program's name
BAD_OBJ = "xdp_no_xsks_map"
TC_OBJ = "tc_not_xdp"
# (file, words the refusal must contain)
NOT_XDP = [
    ("text", "BPF object format invalid"),
    ("/bin/true", "BPF object format invalid"),
    (TC_OBJ, "is not an XDP object: its program tc_not_xdp (section \"tc\") is a sched_cls "
             "program"),
]
MAP_NAME = "xsks_map"
SIZES = [60, 512, 1500]
RAW_FRAMES = 300
UDP_SIZES = [128, 1000]
UDP_FRAMES = 200


def with_user_program(t, net, dut, port, peer, obj):
    vdev = "net_af_xdp0,iface=%s,xdp_prog=%s" % (port.name, obj)
    with testpmd.TestPmd(dut, [vdev], fwd="rxonly", eal_extra=[testpmd.LOG_INFO],
                         label="testpmd[%s]" % GOOD_OBJ) as tp:
        t.check("Fail to start port" not in tp.startup_output, "port 0 starts with %s" % vdev,
                "\n".join(dpdk_output.problem_lines(tp.startup_output)))
        x = port.link().get("xdp", {})
        name = x.get("prog", {}).get("name")
        t.equal(name, GOOD_PROG_NAME, "name of the program attached to %s" % port.name)
        st = state.read(tp, 0)
        t.equal((st.get("xdp.origin"), st.get("xdp.prog_path"), st.get("xdp.program")),
                ("xdp_prog", obj, GOOD_PROG_NAME), "state xdp.origin, xdp.prog_path, xdp.program")
        t.equal(st.get("xdp.attached_id"), str(bpf.attached_prog_id(port)),
                "state xdp.attached_id: the program attached to %s" % port.name)
        tp.cmd("start")
        with traffic.Capture(port, src=peer.mac, dst=port.mac, count=UDP_FRAMES, sizes=UDP_SIZES,
                             kind="udp", stream="udp") as cap:
            traffic.send(peer, port.mac, RAW_FRAMES, SIZES, stream="raw")
            traffic.send(peer, port.mac, UDP_FRAMES, UDP_SIZES, kind="udp", stream="udp")
        st = tp.wait_rx(0, RAW_FRAMES)
        tp.cmd("stop")
        res = cap.result
        t.check(traffic.all_intact(res), "the kernel stack got the UDP frames: %s"
                % traffic.summary(res))
        t.equal(res["foreign"], 0, "other frames the kernel stack saw on %s (the 0x88B5 ones "
                "must all have gone to the socket)" % port.name)
        t.equal(st["RX-packets"], RAW_FRAMES, "RX-packets (only the 0x88B5 frames)")
        t.equal(st["RX-bytes"], traffic.expected_bytes(RAW_FRAMES, SIZES), "RX-bytes")
        t.equal(st["RX-missed"], 0, "RX-missed")
        t.quit_testpmd(tp, net)


def without_xsks_map(t, net, dut, port, obj):
    vdev = "net_af_xdp0,iface=%s,xdp_prog=%s" % (port.name, obj)
    with testpmd.TestPmd(dut, [vdev], fwd="rxonly", label="testpmd[%s]" % BAD_OBJ) as tp:
        log = tp.startup_output
        t.check("Fail to start port 0" in log, "port 0 does not start with %s" % vdev,
                "\n".join(dpdk_output.problem_lines(log)))
        # (the object's own path contains "xsks_map": it does not count)
        named = [ln.strip() for ln in log.splitlines() if MAP_NAME in ln.replace(obj, "")]
        for ln in named:
            env.log("    | %s" % ln)
        t.check(bool(named), "a message names %s" % MAP_NAME,
                "\n".join(dpdk_output.problem_lines(log)))
        left = net.check_no_xdp()
        t.check(not left, "no XDP program attached after the failed start", "\n".join(left))
        t.quit_testpmd(tp, net)


def not_frags_at_jumbo_mtu(t, net, dut, port, peer, obj):
    for ifc in (port, peer):
        ifc.set_mtu(9000)
    vdev = "net_af_xdp0,iface=%s,xdp_prog=%s" % (port.name, obj)
    with testpmd.TestPmd(dut, [vdev], fwd="rxonly", label="testpmd[%s, MTU 9000]" % GOOD_OBJ) as tp:
        log = tp.startup_output
        t.check("Fail to start port 0" in log, "port 0 does not start with %s at MTU 9000" % vdev,
                "\n".join(dpdk_output.problem_lines(log)))
        t.check("xdp.frags" in log, "a message names xdp.frags",
                "\n".join(dpdk_output.problem_lines(log)))
        left = net.check_no_xdp()
        t.check(not left, "no XDP program attached after the failed start", "\n".join(left))
        t.quit_testpmd(tp, net)
    vdev = "net_af_xdp0,iface=%s,xdp_prog=%s" % (port.name, bpf.obj(FRAGS_OBJ))
    # Multi-buffer: copy mode also where zero-copy is asked (test_jumbo).
    with testpmd.TestPmd(dut, [vdev], fwd="rxonly", app_extra=["--enable-scatter"],
                         label="testpmd[%s, MTU 9000]" % FRAGS_OBJ, check_mode=False) as tp:
        t.check("Fail to start port" not in tp.startup_output,
                "port 0 starts with %s at MTU 9000" % vdev,
                "\n".join(dpdk_output.problem_lines(tp.startup_output)))
        tp.cmd("start")
        traffic.send(peer, port.mac, 20, [9014], stream="jumbo")
        st = tp.wait_rx(0, 20)
        t.equal((st["RX-packets"], st["RX-bytes"]), (20, 20 * 9014),
                "9014-byte frames received with the multi-buffer aware program")
        tp.cmd("stop")
        t.quit_testpmd(tp, net)
    for ifc in (port, peer):
        ifc.set_mtu(1500)


def not_xdp(t, net, dut, port, path, words):
    vdev = "net_af_xdp0,iface=%s,xdp_prog=%s" % (port.name, path)
    with testpmd.TestPmd(dut, [vdev], fwd="rxonly", label="testpmd[%s]"
                         % os.path.basename(path)) as tp:
        log = dpdk_output.clean(tp.startup_output)
        t.check("Fail to start port 0" in log, "port 0 does not start with %s" % vdev,
                "\n".join(dpdk_output.problem_lines(log)))
        said = [ln.strip() for ln in log.splitlines() if "xdp_prog=%s" % path in ln]
        for ln in said:
            env.log("    | %s" % ln)
        t.check(any(words in ln for ln in said), "%s: the refusal says %r" % (path, words),
                "\n".join(dpdk_output.problem_lines(log)))
        t.check("Unknown error" not in log, "%s: no \"Unknown error\" in the log" % path)
        t.quit_testpmd(tp, net)


def main(t):
    good, bad = bpf.obj(GOOD_OBJ), bpf.obj(BAD_OBJ)
    text = os.path.join(env.run_dir(), "not-an-object.o")
    with open(text, "w") as f:
        f.write("not a BPF object\n")
    files = {"text": text, TC_OBJ: bpf.obj(TC_OBJ)}
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        with_user_program(t, net, dut, port, peer, good)
        without_xsks_map(t, net, dut, port, bad)
        not_frags_at_jumbo_mtu(t, net, dut, port, peer, good)
        for name, words in NOT_XDP:
            not_xdp(t, net, dut, port, files.get(name, name), words)


if __name__ == "__main__":
    runner.run(main, "xdp_prog", __doc__.splitlines()[0])
