#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tx checksum offloads: testpmd's csum engine leaves IPv4, TCP and UDP checksums to the ports, which complete them.

    netns a: h0 10.99.0.1, fd99::1 == veth == p0 (net_af_xdp0)  netns dut: testpmd csum
    netns b: h1 10.99.0.2, fd99::2 == veth == p1 (net_af_xdp1)

h0 and h1 keep their tx checksumming on (segmentation off; but in the third
run): every TCP and UDP frame they send carries only the pseudo-header's
sum, so nothing crosses unless the forwarder completes it.  testpmd sets `csum set ip|tcp|udp hw`
on both ports (`csum show` must say hw: the ports offer the offloads) and
calls rte_eth_tx_prepare(), which seeds the pseudo-header's sum again.
Four runs, the first three through one testpmd (ethtool's settings change
between them while it forwards: the kernel reads them per frame), the
fourth through one of its own:

  kernel          tx_csum=auto; the DUT's veths keep tx checksumming: the
                  kernel hands the frames on CHECKSUM_PARTIAL, the receiving
                  host trusts them (in copy mode, and in zero-copy where the
                  interface reports the tx-checksum xsk-feature, as the
                  patched kernel's veth does; elsewhere the driver computes,
                  as below)
  kernel, dut tx off  the same with `ethtool -K p0|p1 tx off`: the kernel
                  computes each checksum at the offsets the driver gave, and
                  the receiving host verifies it
  kernel, dut tx off, hosts tx off  the second run with the hosts' tx
                  checksumming off: the frames come in with complete
                  checksums, so only the pseudo-header's sum that
                  rte_eth_tx_prepare() seeds makes the kernel's sum right
  sw              tx_csum=sw: the driver computes; the receiving host verifies

Each testpmd: a ping.  Each run: a 20 MB TCP transfer over IPv4 and 10 MB over IPv6 arrive with
their sha256 (in the VM, AFXDP_SOCKET_MODE set, 4 and 2 MB: thousands of
segments all the same, under an emulated CPU); 126 UDP datagrams of several sizes each way, over IPv4 and
IPv6, all arrive intact, and tcpdump on h1 finds the first 20 of a->b IPv4
with their checksums still partial where the kernel left them so (first
run, by the kernel), complete otherwise; the hosts' TCP/UDP InCsumErrors do
not move; the Tx burst mode names who completes the checksums; the
ports' xstats count the frames whose L4 checksum the kernel completed
(tx_q0_csum_kernel) and those the driver computed (tx_q0_csum_sw) during
the run as its mode says.  Who completes them follows from the driver's state block:
the kernel with tx_csum=auto on a copy-mode socket (queue.0.mode), or on a
zero-copy one where the interface's xsk-features (iface.xsk_features, from
netlink) include tx-checksum.  Zero-copy on veth is the patched kernel's,
whose veth honours Tx metadata: there the state must say tx-checksum.
"""

import hashlib
import random
import select
import shutil
import socket
import subprocess
import time

from afxdp_test import env, hosts, runner, state, testpmd, topo

ADDR6_A, ADDR6_B = "fd99::1", "fd99::2"
UDP_PORT = 5002
UDP_SIZES = (1, 17, 18, 100, 512, 1000, 1400)    # payload bytes; 18: a 60-byte frame
UDP_ROUNDS = 18                                     # 126 datagrams each way
TCP_MB_V6 = 10
VM_TCP_MB, VM_TCP_MB_V6 = 4, 2
PROTOS = ("ip", "tcp", "udp")

UDP_GAP = 0.002        # seconds between two datagrams of one exchange
SO_RCVBUFFORCE = 33    # <asm-generic/socket.h>; python's socket module lacks it


CSUM_ERRORS = ("TcpInCsumErrors", "UdpInCsumErrors", "Udp6InCsumErrors")


def read_csum_errors():
    """CSUM_ERRORS as nstat names them, of this thread's network namespace:
    /proc/thread-self/net/snmp (a line of names, then one of values, per
    protocol) and snmp6 (a name and its value a line)."""
    got = {}
    with open("/proc/thread-self/net/snmp") as f:
        lines = [ln.split() for ln in f]
    for names, values in zip(lines[::2], lines[1::2]):
        proto = names[0].rstrip(":")
        for name, value in zip(names[1:], values[1:]):
            got[proto + name] = int(value)
    with open("/proc/thread-self/net/snmp6") as f:
        for ln in f:
            name, value = ln.split()
            got[name] = int(value)
    return {name: got.get(name) for name in CSUM_ERRORS}


def csum_errors(ns):
    """{counter: value} of the namespace's checksum errors on receive, read
    from a thread in it (env.in_netns): no nstat to start, most of a second
    under the VM's CPU, four a run."""
    return env.in_netns(ns.name, read_csum_errors)


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


def udp_socket(ns, addr, port=None):
    """A UDP socket made in namespace ns (env.in_netns): bound to addr:port
    when port is given (a receiver's, with room for a whole exchange)."""
    family = socket.AF_INET6 if ":" in addr else socket.AF_INET

    def make():
        s = socket.socket(family, socket.SOCK_DGRAM)
        if port is not None:
            s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 4 << 20)
            s.bind((addr, port))
        return s
    return env.in_netns(ns.name, make)


def receive_all(runs, gap):
    """Read the runs' receivers until each has all its datagrams or none
    came for gap seconds: {label: [datagrams, in order]}."""
    got = {label: [] for label, _, _ in runs}
    waiting = {rx: (label, len(payloads)) for label, payloads, rx in runs}
    while waiting:
        ready = select.select(list(waiting), [], [], gap)[0]
        if not ready:
            break
        for rx in ready:
            label, count = waiting[rx]
            got[label].append(rx.recv(65535))
            if len(got[label]) == count:
                del waiting[rx]
    return got


def udp_exchanges(t, exchanges):
    """UDP datagrams from src_ns to addr in dst_ns, for each (src_ns, dst_ns,
    addr, label) of exchanges, all at once (the i-th to UDP_PORT + i), one
    datagram of each every UDP_GAP: every one arrives, in order, intact.
    The sockets are this process's, made in the namespaces (no python to
    start per sender and receiver: most of a second each under TCG)."""
    socks = []
    try:
        runs = []          # (label, payloads, receiver)
        senders = []       # (sender, (addr, port), payloads)
        for i, (src_ns, dst_ns, addr, label) in enumerate(exchanges):
            payloads = udp_payloads(label)
            rx = udp_socket(dst_ns, addr, UDP_PORT + i)
            socks.append(rx)
            tx = udp_socket(src_ns, addr)
            socks.append(tx)
            runs.append((label, payloads, rx))
            senders.append((tx, (addr, UDP_PORT + i), payloads))
        for n in range(max(len(payloads) for _, _, payloads in senders)):
            for tx, dest, payloads in senders:
                if n < len(payloads):
                    tx.sendto(payloads[n], dest)
            time.sleep(UDP_GAP)
        got = receive_all(runs, env.scaled(5))
        for label, payloads, _ in runs:
            want = hashlib.sha256(b"".join(payloads)).hexdigest()
            t.equal((len(got[label]), hashlib.sha256(b"".join(got[label])).hexdigest()),
                    (len(payloads), want), "%s: UDP datagrams received and their sha256" % label)
    finally:
        for s in socks:
            s.close()


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


def set_offloads(hs, dut_tx_off, hosts_tx, was=None):
    """ethtool tx on the hosts' ends and the DUT's: the kernel reads them per
    frame, so they change a running forwarder's frames from the next one.
    `was`: the (dut_tx_off, hosts_tx) in force, whose ends are left alone
    (an ethtool is most of a second under the VM's CPU); None: set all."""
    dut, _, _, p0, h0, p1, h1 = hs
    if was is None or was[1] != hosts_tx:
        for h in (h0, h1):
            env.run(["ethtool", "-K", h.name, "tx", "on" if hosts_tx else "off"], ns=h.ns.name)
    if was is None or was[0] != dut_tx_off:
        for p in (p0, p1):
            env.run(["ethtool", "-K", p.name, "tx", "off" if dut_tx_off else "on"], ns=dut.name)
    return dut_tx_off, hosts_tx


def check_phase(t, tp, hs, sw, dut_tx_off, label):
    """One run's traffic through the forwarding testpmd tp, and what the
    ports and the receiving host say of its checksums."""
    _, a, b, _, _, _, h1 = hs
    errors_before = [csum_errors(ns) for ns in (a, b)]
    counters_before = {port: tx_csum_counters(tp, port) for port in (0, 1)}
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
        now, before = tx_csum_counters(tp, port), counters_before[port]
        kernel, soft = (None if n is None or b is None else n - b for n, b in zip(now, before))
        env.log("%s: port %d tx_q0_csum_kernel +%s, tx_q0_csum_sw +%s" % (label, port, kernel, soft))
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


def run(t, net, hs, sw, runs):
    """One testpmd forwarding with csum (tx_csum=sw, or auto), through each
    (dut_tx_off, hosts_tx) of runs in turn."""
    dut, a, _, p0, h0, p1, h1 = hs
    extra = ",tx_csum=sw" if sw else ""
    vdevs = ["net_af_xdp0,iface=%s%s" % (p0.name, extra), "net_af_xdp1,iface=%s%s" % (p1.name, extra)]
    applied = set_offloads(hs, *runs[0])
    with testpmd.TestPmd(dut, vdevs, fwd="csum") as tp:
        set_csum_hw(t, tp)
        # The csum engine writes the peer's MAC as destination, as the mac engine does.
        tp.cmd("set eth-peer 0 %s" % h0.mac)
        tp.cmd("set eth-peer 1 %s" % h1.mac)
        tp.cmd("start")
        hosts.ping(t, a, where_lost=tp.where_lost)
        for dut_tx_off, hosts_tx in runs:
            label = "tx_csum=%s%s%s" % ("sw" if sw else "auto", ", dut tx off" if dut_tx_off else "",
                                        "" if hosts_tx else ", hosts tx off")
            env.log("--- %s" % label)
            applied = set_offloads(hs, dut_tx_off, hosts_tx, was=applied)
            check_phase(t, tp, hs, sw, dut_tx_off, label)
        tp.cmd("stop")
        t.quit_testpmd(tp, net)


def main(t):
    with topo.Topology() as net:
        hs = hosts.two_hosts(net, tx_csum=True)
        h0, h1 = hs[4], hs[6]
        # The topology turns IPv6 off everywhere; on for the hosts' ends.
        for h, addr in ((h0, ADDR6_A), (h1, ADDR6_B)):
            h.ns.sysctl("net.ipv6.conf.%s.disable_ipv6" % h.name, 0)
            h.ip("-6", "addr", "add", "%s/64" % addr, "dev", h.name, "nodad")
        # The last: complete checksums in, so only rte_eth_tx_prepare()'s
        # seed makes the kernel's sum right (the hosts' seed would do it in
        # the runs before).
        run(t, net, hs, sw=False, runs=[(False, True), (True, True), (True, False)])
        run(t, net, hs, sw=True, runs=[(False, True)])


if __name__ == "__main__":
    runner.run(main, "tx_csum", __doc__.splitlines()[0])
