#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tx checksum offloads: testpmd's csum engine leaves IPv4, TCP and UDP checksums to the ports, which complete them.

    netns a: h0 10.99.0.1, fd99::1 == veth == p0 (net_af_xdp0)  netns dut: testpmd csum
    netns b: h1 10.99.0.2, fd99::2 == veth == p1 (net_af_xdp1)

h0 and h1 keep their tx checksumming on (segmentation off; but in the last
run): every TCP and UDP frame they send carries only the pseudo-header's
sum, so nothing crosses unless the forwarder completes it.  testpmd sets `csum set ip|tcp|udp hw`
on both ports (`csum show` must say hw: the ports offer the offloads) and
calls rte_eth_tx_prepare(), which seeds the pseudo-header's sum again.
Four runs, each a fresh testpmd:

  kernel          tx_csum=auto; the DUT's veths keep tx checksumming: the
                  kernel hands the frames on CHECKSUM_PARTIAL, the receiving
                  host trusts them (in copy mode, and in zero-copy where the
                  interface reports the tx-checksum xsk-feature, as the
                  patched kernel's veth does; elsewhere the driver computes,
                  as below)
  kernel, dut tx off  the same with `ethtool -K p0|p1 tx off`: the kernel
                  computes each checksum at the offsets the driver gave, and
                  the receiving host verifies it
  sw              tx_csum=sw: the driver computes; the receiving host verifies
  kernel, dut tx off, hosts tx off  the second run with the hosts' tx
                  checksumming off: the frames come in with complete
                  checksums, so only the pseudo-header's sum that
                  rte_eth_tx_prepare() seeds makes the kernel's sum right

Each run: a 20 MB TCP transfer over IPv4 and 10 MB over IPv6 arrive with
their sha256 (in the VM, AFXDP_SOCKET_MODE set, 4 and 2 MB: thousands of
segments all the same, under an emulated CPU); 120 UDP datagrams of several sizes each way, over IPv4 and
IPv6, all arrive intact, and tcpdump on h1 finds the first 20 of a->b IPv4
with their checksums still partial where the kernel left them so (first
run, by the kernel), complete otherwise; the hosts' TCP/UDP InCsumErrors do
not move; the Tx burst mode names who completes the checksums; the
ports' xstats count the frames whose L4 checksum the kernel completed
(tx_q0_csum_kernel) and those the driver computed (tx_q0_csum_sw) as the
run's mode says.  Who completes them follows from the driver's state block:
the kernel with tx_csum=auto on a copy-mode socket (queue.0.mode), or on a
zero-copy one where the interface's xsk-features (iface.xsk_features, from
netlink) include tx-checksum.  Zero-copy on veth is the patched kernel's,
whose veth honours Tx metadata: there the state must say tx-checksum.
"""

import hashlib
import os
import random
import shutil
import subprocess

from afxdp_test import env, hosts, runner, state, testpmd, topo

ADDR6_A, ADDR6_B = "fd99::1", "fd99::2"
UDP_PORT = 5002
UDP_SIZES = (1, 17, 18, 100, 512, 1000, 1400)    # payload bytes; 18: a 60-byte frame
UDP_ROUNDS = 18                                     # 126 datagrams each way
TCP_MB_V6 = 10
VM_TCP_MB, VM_TCP_MB_V6 = 4, 2
PROTOS = ("ip", "tcp", "udp")

UDP_RECEIVER = r"""
import hashlib, socket, sys
addr, port, count, gap = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET, socket.SOCK_DGRAM)
s.bind((addr, port))
s.settimeout(6 * gap)      # the sender's start
print("ready", flush=True)
h, n = hashlib.sha256(), 0
try:
    while n < count:
        h.update(s.recv(65535))
        n += 1
        s.settimeout(gap)
except socket.timeout:
    pass
print(n, h.hexdigest(), flush=True)
"""

UDP_SENDER = r"""
import socket, sys, time
addr, port, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET, socket.SOCK_DGRAM)
data = open(path, "rb").read()
off = 0
while off < len(data):
    n = int.from_bytes(data[off:off + 2], "big")
    s.sendto(data[off + 2:off + 2 + n], (addr, port))
    off += 2 + n
    time.sleep(0.002)
"""


def csum_errors(ns):
    """{counter: value} of the namespace's checksum errors on receive."""
    names = ["TcpInCsumErrors", "UdpInCsumErrors", "Udp6InCsumErrors"]
    cp = ns.exec(["nstat", "-asz"] + names, check=False)
    got = {}
    for ln in cp.stdout.splitlines():
        f = ln.split()
        if len(f) >= 2 and f[0] in names:
            got[f[0]] = int(f[1])
    return got


class UdpSums:
    """tcpdump on iface: its verdict on the UDP checksum of the first CAPTURED
    datagrams to UDP_PORT, as they arrive ("ok", "bad"); None without tcpdump."""

    CAPTURED = 20

    def __init__(self, iface):
        self.iface, self.proc, self.verdicts = iface, None, None

    def __enter__(self):
        if shutil.which("tcpdump"):
            self.proc = env.popen(["tcpdump", "-i", self.iface.name, "-nn", "-vv", "-l",
                                   "-c", str(self.CAPTURED), "udp dst port %d" % UDP_PORT],
                                  ns=self.iface.ns.name, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
            self.proc.stderr.readline()        # "listening on ...": capturing
        return self

    def __exit__(self, *exc):
        if self.proc is None:
            return False
        try:
            out, _ = self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            out = ""
        finally:
            env.end_process(self.proc)
        # -vv: a line for the IP header, then the UDP one with the verdict
        self.verdicts = ["ok" if "udp sum ok" in ln else "bad"
                         for ln in out.splitlines() if "udp sum ok" in ln or "bad udp cksum" in ln]
        return False


def udp_payloads(label):
    """The datagrams of one exchange: UDP_ROUNDS of each of UDP_SIZES, random bytes."""
    rnd = random.Random(label)
    return [bytes(rnd.getrandbits(8) for _ in range(size))
            for _ in range(UDP_ROUNDS) for size in UDP_SIZES]


def udp_exchanges(t, exchanges):
    """UDP datagrams from src_ns to addr in dst_ns, for each (src_ns, dst_ns,
    addr, label) of exchanges, all at once (the i-th to UDP_PORT + i): every
    one arrives, in order, intact.  At once, since each sender and receiver
    is a python that takes most of a second to start under the VM's TCG."""
    runs = []          # [label, payloads, path, receiver]
    try:
        for i, (src_ns, dst_ns, addr, label) in enumerate(exchanges):
            payloads = udp_payloads(label)
            path = os.path.join(env.run_dir(), "udp-%s.bin" % label.replace(" ", "_"))
            with open(path, "wb") as f:
                for p in payloads:
                    f.write(len(p).to_bytes(2, "big") + p)
            runs.append([label, payloads, path, None])
            runs[-1][3] = env.popen(["python3", "-c", UDP_RECEIVER, addr, str(UDP_PORT + i),
                                     str(len(payloads)), str(env.scaled(5))],
                                    ns=dst_ns.name, stdout=subprocess.PIPE, text=True)
        for label, _, _, rx in runs:
            t.require(rx.stdout.readline().strip() == "ready", "%s: UDP receiver ready" % label)
        senders = [env.popen(["python3", "-c", UDP_SENDER, addr, str(UDP_PORT + i), run[2]],
                             ns=src_ns.name)
                   for i, ((src_ns, _, addr, _), run) in enumerate(zip(exchanges, runs))]
        for sender in senders:
            sender.wait(env.scaled(60))
        for label, payloads, _, rx in runs:
            out = rx.stdout.readline().split()
            rx.wait(env.scaled(30))
            got = (int(out[0]), out[1]) if len(out) == 2 else (None, None)
            want = hashlib.sha256(b"".join(payloads)).hexdigest()
            t.equal(got, (len(payloads), want),
                    "%s: UDP datagrams received and their sha256" % label)
    finally:
        for _, _, path, rx in runs:
            if rx is not None:
                env.end_process(rx)
            os.unlink(path)


def set_csum_hw(t, tp):
    """`csum set ip|tcp|udp hw` on both ports, which testpmd applies at port start."""
    tp.cmd("port stop all")
    for port in (0, 1):
        for proto in PROTOS:
            tp.cmd("csum set %s hw %d" % (proto, port))
        # testpmd keeps sw for what the port does not offer; shown only while stopped
        out = tp.cmd("csum show %d" % port)
        for proto in PROTOS:
            name = "IP" if proto == "ip" else proto.upper()
            t.check("%s checksum offload is hw" % name in out,
                    "port %d: csum show says %s checksums in hw" % (port, name), out)
    tp.cmd("port start all")


def tx_csum_counters(tp, port):
    xs = tp.xstats(port)
    return xs.get("tx_q0_csum_kernel"), xs.get("tx_q0_csum_sw")


def kernel_completes(t, tp, sw, label):
    """Whether the ports leave L4 checksums to the kernel, from their state
    blocks (the facts the driver found, not its decision), and whether in
    zero-copy mode: (by_kernel, zero_copy)."""
    blocks = [state.read(tp, port) for port in (0, 1)]
    modes = [b.get("queue.0.mode") for b in blocks]
    features = [b.get("iface.xsk_features") for b in blocks]
    env.log("%s: queue.0.mode %s, iface.xsk_features %s" % (label, modes, features))
    t.require(modes[0] == modes[1] and modes[0] in ("copy", "zero-copy"),
              "%s: both ports' sockets in one mode (%s)" % (label, modes))
    zero_copy = modes[0] == "zero-copy"
    zc_csum = all(f is not None and "tx-checksum" in f.split(",") for f in features)
    if zero_copy:
        # Only the patched kernel's veth has zero-copy, and it takes checksum
        # requests (c-veth-zc 5/5): netlink says so.
        t.check(zc_csum, "%s: zero-copy veth reports the tx-checksum xsk-feature (%s)"
                % (label, features))
    return not sw and (not zero_copy or zc_csum), zero_copy


def run(t, net, hs, sw, dut_tx_off, hosts_tx=True):
    dut, a, b, p0, h0, p1, h1 = hs
    label = "tx_csum=%s%s%s" % ("sw" if sw else "auto", ", dut tx off" if dut_tx_off else "",
                                "" if hosts_tx else ", hosts tx off")
    env.log("--- %s" % label)
    for h in (h0, h1):
        env.run(["ethtool", "-K", h.name, "tx", "on" if hosts_tx else "off"], ns=h.ns.name)
    for p in (p0, p1):
        env.run(["ethtool", "-K", p.name, "tx", "off" if dut_tx_off else "on"], ns=dut.name)
    extra = ",tx_csum=sw" if sw else ""
    vdevs = ["net_af_xdp0,iface=%s%s" % (p0.name, extra), "net_af_xdp1,iface=%s%s" % (p1.name, extra)]
    with testpmd.TestPmd(dut, vdevs, fwd="csum") as tp:
        set_csum_hw(t, tp)
        # The csum engine writes the peer's MAC as destination, as the mac engine does.
        tp.cmd("set eth-peer 0 %s" % h0.mac)
        tp.cmd("set eth-peer 1 %s" % h1.mac)
        errors_before = [csum_errors(ns) for ns in (a, b)]
        tp.cmd("start")

        hosts.ping(t, a)
        vm = env.socket_mode() is not None
        hosts.tcp_transfer(t, a, b, mb=VM_TCP_MB if vm else hosts.FILE_MB)
        hosts.tcp_transfer(t, a, b, mb=VM_TCP_MB_V6 if vm else TCP_MB_V6, addr=ADDR6_B)
        # tcpdump on h1 judges the first exchange's datagrams (to UDP_PORT).
        with UdpSums(h1) as sums:
            udp_exchanges(t, [(a, b, hosts.ADDR_B, "%s a->b IPv4" % label),
                              (b, a, hosts.ADDR_A, "%s b->a IPv4" % label),
                              (a, b, ADDR6_B, "%s a->b IPv6" % label),
                              (b, a, ADDR6_A, "%s b->a IPv6" % label)])

        t.equal([csum_errors(ns) for ns in (a, b)], errors_before,
                "%s: the hosts' checksum errors on receive unchanged" % label)
        txq_info = {port: tp.cmd("show txq info %d 0" % port) for port in (0, 1)}
        by_kernel, zero_copy = kernel_completes(t, tp, sw, label)
        # What h1 receives: left partial by the kernel to the DUT's veth (its
        # tx on), so the bytes hold only the pseudo-header's sum, or complete.
        partial = by_kernel and not dut_tx_off
        if sums.verdicts is None:
            env.log("note: no tcpdump: the UDP checksums as h1 receives them not looked at")
        else:
            t.equal(sums.verdicts, ["bad" if partial else "ok"] * UdpSums.CAPTURED,
                    "%s: tcpdump on h1: the UDP checksums %s" % (
                        label, "still partial (bytes hold the pseudo-header's sum)" if partial
                        else "complete"))
        for port in (0, 1):
            out = txq_info[port]
            burst = [ln for ln in out.splitlines() if "Burst mode" in ln]
            t.check("completed by the kernel" in out if by_kernel else "computed by the driver" in out,
                    "%s: port %d: the Tx burst mode names who completes the checksums: %s"
                    % (label, port, burst[0].strip() if burst else "no burst mode"), out)
            kernel, soft = tx_csum_counters(tp, port)
            env.log("%s: port %d tx_q0_csum_kernel %s, tx_q0_csum_sw %s" % (label, port, kernel, soft))
            # Each port sends at least the UDP datagrams of two exchanges (port 1
            # the TCP data too, port 0 the ACKs, as many as the receiver sends).
            least = 2 * UDP_ROUNDS * len(UDP_SIZES)
            if by_kernel:
                t.check(kernel is not None and kernel >= least and soft is not None and soft < 100,
                        "%s: port %d: L4 checksums completed by the kernel (%s), few by the driver "
                        "(%s: ICMP's IPv4 headers)%s" % (label, port, kernel, soft,
                                                        ": zero-copy" if zero_copy else ""))
            else:
                t.check(kernel == 0 and soft is not None and soft >= least,
                        "%s: port %d: checksums computed by the driver (%s), none left to the "
                        "kernel (%s)%s" % (label, port, soft, kernel,
                                            ": zero-copy" if zero_copy else ""))
        tp.cmd("stop")
        t.quit_testpmd(tp, net)


def main(t):
    with topo.Topology() as net:
        hs = hosts.two_hosts(net, tx_csum=True)
        h0, h1 = hs[4], hs[6]
        # The topology turns IPv6 off everywhere; on for the hosts' ends.
        for h, addr in ((h0, ADDR6_A), (h1, ADDR6_B)):
            h.ns.exec(["sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=0" % h.name])
            h.ip("-6", "addr", "add", "%s/64" % addr, "dev", h.name, "nodad")
        run(t, net, hs, sw=False, dut_tx_off=False)
        run(t, net, hs, sw=False, dut_tx_off=True)
        run(t, net, hs, sw=True, dut_tx_off=False)
        # Complete checksums in: only rte_eth_tx_prepare()'s seed makes the
        # kernel's sum right (the hosts' seed would do it in the runs above).
        run(t, net, hs, sw=False, dut_tx_off=True, hosts_tx=False)


if __name__ == "__main__":
    runner.run(main, "tx_csum", __doc__.splitlines()[0])
