#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The driver's state block (dump_priv) against the world: sysfs, ip, bpftool, ss, the devargs.

testpmd runs on a veth end (hugepages: a secondary process attaches too),
with --rxd=512 --txd=1024, busy_budget=32. Its port's block, read through
the telemetry socket (afxdp_test.state), must say:
- iface.ifindex: the interface's ifindex in sysfs;
- xdp.attached_id: the program `ip -j link` shows on the interface, in the
  mode it shows; xdp.program_id that one when xdp.dispatcher is no, and
  `bpftool prog show` knows it by the name xdp.program; the built-in
  program's owner mark names testpmd's pid;
- queue.0.*: the ring sizes asked (--rxd, --txd); the socket mode the run
  asks (AFXDP_SOCKET_MODE); busy polling on where the socket has a NAPI id,
  off for want of one elsewhere; and, where the kernel has XDP_SOCKETS_DIAG
  (the VM's), what sock_diag shows of the socket (`ss --xdp`): its queue,
  ifindex, ring sizes, UMEM chunk size, zero-copy or not;
- stopped (port stop), the block says state = stopped and has no queue and
  no program; started again, it has them again; CYCLES stop/start cycles
  while another thread reads the block without pause leave testpmd running
  and every block read whole (telemetry dumps from a thread of its own).
The block names what the plugin was built with, as meson built it: the
release of DPDK's driver-SDK headers (dpdk.sdk_headers: another point release
of the installed line in a Debian 13 or testing root), libxdp's
(libxdp.built_for), and libxdp.leak_guard on exactly for a libxdp before
1.4.1, which leaks descriptors the driver then closes itself.
The two configuration flags that used to be xstats (rx_xdp_redirect_direct,
rx_xdp_kernel_batched_map) are state keys now, not xstats; after traffic and
`clear port xstats` every xstat reads 0. The block printed by a secondary
process (dpdk-proc-info --show-port-private) and by DPDK's
dpdk-telemetry.py equals the one read directly.
"""

import json
import os
import re
import shutil
import threading

from afxdp_test import env, hugepages, runner, state, testpmd, topo, traffic

RXD, TXD = 512, 1024
BUSY_BUDGET = 32
FRAMES = 200
HUGEPAGES = 192
MEM_MB = 256
CYCLES = 10
OLD_FLAGS = ("rx_xdp_redirect_direct", "rx_xdp_kernel_batched_map")
# ip's IFLA_XDP_ATTACHED values, in the driver's words.
IP_XDP_MODES = {1: "drv", 2: "skb", 3: "hw"}


def ip_xdp(port):
    """(program id, mode) that `ip -j -d link` shows attached to `port`."""
    x = port.link().get("xdp") or {}
    if "prog" in x:
        return x["prog"].get("id"), IP_XDP_MODES.get(x.get("mode"))
    for a in x.get("attached", []):     # several modes at once: the first
        return a.get("prog", {}).get("id"), IP_XDP_MODES.get(a.get("mode"))
    return None, None


def bpftool_prog(prog_id):
    cp = env.run(["bpftool", "-j", "prog", "show", "id", str(prog_id)], check=False)
    try:
        return json.loads(cp.stdout) if cp.returncode == 0 else {}
    except ValueError:
        return {}


def ss_xdp(ns):
    """The AF_XDP sockets in `ns` as sock_diag shows them (`ss --xdp -e -m`):
    {'rx': entries, 'tx', 'fr', 'cr', 'chunk', 'qid', 'ifindex', 'zc'} of the
    first socket, or None where the kernel has no XDP_SOCKETS_DIAG."""
    out = env.run(["ss", "--xdp", "-a", "-e", "-m"], ns=ns.name).stdout
    env.log("ss --xdp -a -e -m:\n" + out)
    facts = {ring: int(n) for ring, n in re.findall(r"\b(rx|tx|fr|cr)\(entries:(\d+)\)", out)}
    for name, pattern in (("chunk", r"\bchunk(?:_size)?:(\d+)"), ("qid", r"\bqid:(\d+)"),
                          ("ifindex", r"\bifindex:(\d+)"), ("zc", r"\bzc:(\d+)")):
        m = re.search(pattern, out)
        if m:
            facts[name] = int(m.group(1))
    return facts or None


def check_world(t, st, port, tp):
    ifindex = int(port.ns.exec(["cat", "/sys/class/net/%s/ifindex" % port.name]).stdout)
    t.equal(st.get("iface"), port.name, "iface")
    t.equal(int(st.get("iface.ifindex", -1)), ifindex, "iface.ifindex == sysfs's ifindex")
    t.equal(st.get("state"), "started", "state")
    t.equal((st.get("queues.start"), st.get("queues.count")), ("0", "1"), "queues.start/count")

    ip_id, ip_mode = ip_xdp(port)
    t.equal(int(st.get("xdp.attached_id", 0)), ip_id, "xdp.attached_id == ip link's XDP program")
    t.equal(st.get("xdp.attach_mode"), ip_mode, "xdp.attach_mode == ip link's XDP mode")
    if st.get("xdp.dispatcher") == "no":
        t.equal(st.get("xdp.program_id"), st.get("xdp.attached_id"),
                "alone: xdp.program_id is the interface's program")
    prog = bpftool_prog(st.get("xdp.program_id", 0))
    t.equal(prog.get("name"), st.get("xdp.program"), "bpftool prog show's name == xdp.program")
    t.equal(st.get("xdp.origin"), "built-in", "xdp.origin")
    t.equal(int(st.get("xdp.owner.pid", 0)), tp.proc.pid, "xdp.owner.pid == testpmd's pid")


def check_busy_poll(t, q):
    """After frames: on where the socket has a NAPI id, off for want of one elsewhere."""
    t.equal(q.get("busy_poll.usecs", "0") != "0", True, "the socket's busy-poll time is set")
    if q.get("napi_id") not in (None, "0"):
        t.equal(q.get("busy_poll"), "on", "busy polling with NAPI id %s" % q.get("napi_id"))
    else:
        t.equal((q.get("busy_poll"), q.get("busy_poll.reason")), ("off", "no-napi-id"),
                "busy polling without a NAPI id")


def check_socket(t, st, port):
    q = state.queue_keys(st, 0)
    t.equal((q.get("ring.rx"), q.get("ring.tx")), (str(RXD), str(TXD)),
            "queue 0's rx/tx rings: --rxd/--txd")
    want = "zero-copy" if env.socket_mode() == "zero-copy" else "copy"
    t.equal(q.get("mode"), want, "queue.0.mode (AFXDP_SOCKET_MODE=%s)" % env.socket_mode())
    check_busy_poll(t, q)
    t.equal(q.get("umem.gap_bytes"), "0", "queue.0.umem.gap_bytes (testpmd's pool: one area)")
    ss = ss_xdp(port.ns)
    if ss is None:
        env.log("ss --xdp shows no socket (a kernel without XDP_SOCKETS_DIAG): "
                "the socket's rings and UMEM not checked against sock_diag")
        return
    keys = {"rx": "ring.rx", "tx": "ring.tx", "fr": "ring.fill", "cr": "ring.completion",
            "chunk": "umem.chunk_size", "qid": "netdev_queue"}
    for name, key in keys.items():
        t.equal(ss.get(name), int(q.get(key, -1)), "queue.0.%s == ss --xdp's %s" % (key, name))
    t.equal(ss.get("ifindex"), int(st.get("iface.ifindex", -1)), "ss --xdp's ifindex")
    t.equal(ss.get("zc") == 1, q.get("mode") == "zero-copy", "ss --xdp's zc agrees with queue.0.mode")


def check_xstats(t, tp, peer, port):
    xs = tp.xstats(0)
    t.check(xs and not [n for n in OLD_FLAGS if n in xs],
            "the configuration flags are not xstats any more: %s" % ", ".join(OLD_FLAGS))
    traffic.send(peer, port.mac, FRAMES, [60], stream="counted")
    tp.wait_rx(0, FRAMES)
    t.check(any(tp.xstats(0).values()), "some xstat moved with %d frames" % FRAMES)
    tp.cmd("stop")          # no poll counts a wakeup (busy polling) after the clear
    tp.cmd("clear port xstats 0")
    nonzero = {n: v for n, v in tp.xstats(0).items() if v}
    t.equal(nonzero, {}, "every xstat after clear port xstats")


def check_other_readers(t, tp, dut, st):
    argv = ([env.proc_info_path()] + testpmd.secondary_eal_args(tp.file_prefix)
            + ["--", "--show-port-private"])
    rc, out = testpmd.run_secondary(dut, argv)
    t.equal(rc, 0, "dpdk-proc-info --show-port-private exit code")
    t.equal(state.parse(out), st, "the block from a secondary == the primary's")
    tool = shutil.which("dpdk-telemetry.py")
    if not tool:
        env.log("dpdk-telemetry.py not installed: that reader not checked")
        return
    cp = env.run([tool, "-f", tp.file_prefix], input="/ethdev/dump_priv,0\n", check=False)
    text = cp.stdout[cp.stdout.find("{"):]
    try:
        block = json.JSONDecoder().raw_decode(text)[0].get(state.COMMAND, "")
    except ValueError:
        block = ""
    t.equal(state.parse(block), st, "the block from dpdk-telemetry.py == the direct read")


def check_stopped(t, tp):
    tp.cmd("stop")
    tp.cmd("port stop 0")
    st = state.read(tp, 0)
    t.equal(st.get("state"), "stopped", "state after port stop")
    left = [k for k in st if k.startswith("queue.") or k.startswith("xdp.program")]
    t.equal(left, [], "a stopped port's block has no queue or program keys")
    tp.cmd("port start 0")
    st = state.read(tp, 0)
    t.equal(st.get("state"), "started", "state after port start")
    t.check("queue.0.mode" in st and "xdp.program_id" in st,
            "started again: queue and program keys back")


def cycles_while_read(t, tp):
    """Stop/start cycles while another thread reads the block without pause."""
    done, reads, cut = threading.Event(), [0], []

    def reader():
        while not done.is_set():
            try:
                block = state.parse(state.telemetry_block(tp.file_prefix, 0))
            except state.StateError:
                continue        # a read may fail while the port changes; it must not crash
            reads[0] += 1
            if block.get("end") != "yes":
                cut.append(block)

    th = threading.Thread(target=reader, daemon=True)
    th.start()
    try:
        for _ in range(CYCLES):
            tp.cmd("port stop 0")
            tp.cmd("port start 0")
    finally:
        done.set()
        th.join(env.scaled(10))
    t.check(tp.alive() and reads[0] > 0, "%d stop/start cycles while another thread read the "
            "block %d times: testpmd runs" % (CYCLES, reads[0]))
    t.equal(cut, [], "blocks read whole during the cycles")
    t.equal(state.read(tp, 0).get("state"), "started", "state after the cycles")


def check_build(t, st):
    """What the block says the plugin was built with: meson's record of it."""
    libxdp = os.environ.get("AFXDP_BUILT_LIBXDP")
    sdk = os.environ.get("AFXDP_BUILT_SDK_HEADERS")
    if libxdp:
        t.equal(st.get("libxdp.built_for"), libxdp, "libxdp.built_for (meson's libxdp)")
        leaks = tuple(int(x) for x in re.findall(r"\d+", libxdp)[:3]) < (1, 4, 1)
        t.equal(st.get("libxdp.leak_guard"), "on" if leaks else "off",
                "libxdp.leak_guard: on for a libxdp before 1.4.1 (this is %s)" % libxdp)
    if sdk:
        t.equal(st.get("dpdk.sdk_headers"), sdk, "dpdk.sdk_headers (meson's driver-SDK headers)")


def main(t):
    env.proc_info_path()
    with topo.Topology() as net, hugepages.HugePages(HUGEPAGES) as hp:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        vdev = "net_af_xdp0,iface=%s,busy_budget=%d" % (port.name, BUSY_BUDGET)
        with testpmd.TestPmd(dut, [vdev], fwd="rxonly", huge_dir=hp.mount, mem_mb=MEM_MB,
                             app_extra=["--rxd=%d" % RXD, "--txd=%d" % TXD]) as tp:
            tp.cmd("start")
            check_stopped(t, tp)
            cycles_while_read(t, tp)
            tp.cmd("start")
            check_xstats(t, tp, peer, port)
            st = state.read(tp, 0)
            env.log("state block:\n" + "\n".join("%s = %s" % kv for kv in st.items()))
            t.equal(st.get("driver"), "af_xdp_direct", "driver")
            check_build(t, st)
            check_world(t, st, port, tp)
            check_socket(t, st, port)
            check_other_readers(t, tp, dut, st)
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "state", __doc__.splitlines()[0])
