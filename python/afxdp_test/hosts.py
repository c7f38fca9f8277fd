# SPDX-License-Identifier: BSD-3-Clause
"""Two hosts, each in its network namespace, joined through a forwarder
under test, and what crosses them: a TCP transfer checked by sha256.

    netns a: h0 10.99.0.1/24 == veth == p0 \
                                           netns dut: the forwarder
    netns b: h1 10.99.0.2/24 == veth == p1 /

Offloads are off on h0 and h1: through an AF_XDP forwarder nothing would
complete their checksums or segmentation (tx_csum=True keeps their checksum
offload on: for a forwarder that completes checksums, test_tx_csum).
"""

import hashlib
import os
import subprocess
import time

from . import env

ADDR_A, ADDR_B, PREFIX = "10.99.0.1", "10.99.0.2", 24
FILE_MB = 20
TCP_PORT = 5001
TCP_TIMEOUT = 180            # only against a hang
PINGS = 5
# ping -i: the echo requests' spacing. After the last request ping waits for
# the replies still due only twice the slowest round trip seen, or one
# interval if longer: the first request's reply, late behind the neighbour's
# resolution, must come within that (50 ms lost one now and then under load).
PING_INTERVAL = "0.2"
PING_WAIT = "5"              # ping -W: for a first reply, only against a hang
# A reply may come after ping's own wait: on a loaded machine the forwarder's
# polling thread, always runnable, was seen waiting up to 0.8 s for its CPU
# with every frame already in its socket's Rx ring (the veths' xdp_redirect
# counts), and it forwards them once it runs. What ping gave up on is then
# counted from the namespace's ICMP counters for up to LATE_WAIT more
# (scaled): a late reply passes, a lost one fails, and every reply has
# crossed the forwarder before the test counts frames again.
LATE_WAIT = 5


def ping_argv(count):
    """ping(8) sending `count` echo requests, each unanswered one a loss."""
    return ["ping", "-n", "-c", str(count), "-i", PING_INTERVAL, "-W", PING_WAIT]


def two_hosts(net, gro=False, tx_csum=False, mtu=None):
    """The namespaces and interfaces above: (dut, a, b, p0, h0, p1, h1).

    gro=True turns GRO back on at h0 and h1: a veth only accepts frames
    that its peer redirects from XDP (ndo_xdp_xmit) when it has NAPI, that is
    an XDP program or GRO, so a kernel XDP forwarder needs it.
    tx_csum=True turns their tx checksumming back on (segmentation stays
    off): the frames they send carry only the pseudo-header's sum in their
    TCP and UDP checksums, for the forwarder to complete.
    mtu: set on all four ends (p0, h0, p1, h1)."""
    dut, a, b = net.netns("dut"), net.netns("a"), net.netns("b")
    p0, h0 = net.veth(dut, "p0", a, "h0")
    p1, h1 = net.veth(dut, "p1", b, "h1")
    h0.add_addr("%s/%d" % (ADDR_A, PREFIX))
    h1.add_addr("%s/%d" % (ADDR_B, PREFIX))
    for h in (h0, h1):
        h.offloads_off()
        if tx_csum:
            env.run(["ethtool", "-K", h.name, "tx", "on"], ns=h.ns.name)
        if gro:
            h.set_gro(True)
    if mtu is not None:
        for ifc in (p0, h0, p1, h1):
            ifc.set_mtu(mtu)
    return dut, a, b, p0, h0, p1, h1


def routed_hosts(net, spec, host_macs=None, offloads_off=False):
    """Two hosts on subnets of their own, joined by an L3 forwarder in netns
    dut (DPDK's l3fwd, l3fwd-power): host i behind port p<i>, routed to the
    other's subnet through a gateway address whose neighbour entry is that
    port's MAC. spec: [(netns role, address/prefix, gateway, the other's
    subnet)], one per host; host_macs: a MAC each host takes first (l3fwd-power
    writes fixed ones); offloads_off: as two_hosts(), for TCP.
    Returns (dut, ports, hosts)."""
    dut = net.netns("dut")
    ports, hosts = [], []
    for i, (role, addr, gw, other) in enumerate(spec):
        port, host = net.veth(dut, "p%d" % i, net.netns(role), "h%d" % i)
        if host_macs:
            host.set_down()
            host.ip("link", "set", "dev", host.name, "address", host_macs[i])
            host.set_up()
        if offloads_off:
            host.offloads_off()
        host.add_addr(addr)
        host.ip("neigh", "replace", gw, "lladdr", port.mac, "dev", host.name, "nud",
                "permanent")
        host.ip("route", "add", other, "via", gw)
        ports.append(port)
        hosts.append(host)
    return dut, ports, hosts


def echo_replies(ns):
    """The echo replies namespace `ns` has received (/proc/net/snmp's
    Icmp InEchoReps: every socket's, as the kernel counts them)."""
    rows = [ln.split() for ln in ns.exec(["cat", "/proc/net/snmp"]).stdout.splitlines()
            if ln.startswith("Icmp:")]
    return int(dict(zip(rows[0], rows[1]))["InEchoReps"])


def ping_answered(ns, count, args):
    """`count` echo requests from namespace ns (ping_argv(count) + args),
    and the replies to them, those after ping's own wait included (LATE_WAIT):
    (replies, how many of them came late, ping's CompletedProcess)."""
    before = echo_replies(ns)
    cp = ns.exec(ping_argv(count) + args, check=False)
    got = echo_replies(ns) - before
    in_time = got
    deadline = env.deadline(LATE_WAIT)
    while got < count and cp.returncode in (0, 1) and time.monotonic() < deadline:
        time.sleep(0.05)
        got = echo_replies(ns) - before
    return got, got - in_time, cp


def ping(t, a, size=None, where_lost=None, count=PINGS, what=None):
    """`count` pings from host a to host b, every one answered (late ones
    too, LATE_WAIT); with size, of that many bytes of payload and not
    fragmented (-M do). where_lost: a function whose text (e.g. the
    forwarder's xstats) joins the report of a loss; what: the check's prefix."""
    opts = ["-s", str(size), "-M", "do"] if size else []
    got, late, cp = ping_answered(a, count, ["-q"] + opts + [ADDR_B])
    ok = cp.returncode in (0, 1) and got == count
    t.check(ok, "%sping %s%s -> %s: %d of %d answered%s" % (
                what + ": " if what else "", ADDR_A, " -s %d -M do" % size if size else "",
                ADDR_B, got, count, " (%d after ping's own wait)" % late if late else ""),
            cp.stdout + cp.stderr + ("" if ok or where_lost is None else where_lost()))


TCP_LISTEN = "0A"            # include/net/tcp_states.h TCP_LISTEN, as /proc/net/tcp writes it


def listening(port):
    """A TCP socket listens on `port` in this thread's network namespace
    (/proc/thread-self/net/tcp and tcp6: a thread that entered it)."""
    for name in ("tcp", "tcp6"):
        try:
            with open("/proc/thread-self/net/" + name) as f:
                rows = f.read().splitlines()[1:]
        except FileNotFoundError:
            continue        # no IPv6
        for row in rows:
            local, st = row.split()[1], row.split()[3]
            if st == TCP_LISTEN and int(local.rsplit(":", 1)[1], 16) == port:
                return True
    return False


def wait_listening(ns, port, timeout=15):
    """Until a socket listens on `port` in namespace ns: read from a thread
    in it, no `ss` to start (most of a second each under the VM's CPU)."""
    deadline = env.deadline(timeout)
    while time.monotonic() < deadline:
        if env.in_netns(ns.name, lambda: listening(port)):
            return True
        time.sleep(0.05)
    return False


def tcp_transfer(t, a, b, mb=FILE_MB, addr=ADDR_B):
    """mb MB of random bytes from host a to host b's address addr (IPv4 or
    IPv6) with nc; the sha256 of what arrives checked."""
    family = "-6" if ":" in addr else "-4"
    src = os.path.join(env.run_dir(), "tcp-src.bin")
    dst = os.path.join(env.run_dir(), "tcp-dst.bin")
    try:
        with open(src, "wb") as f:
            f.write(os.urandom(mb << 20))
        with open(src, "rb") as f:
            want = hashlib.sha256(f.read()).hexdigest()
        with open(dst, "wb") as out:
            server = env.popen(["nc", family, "-n", "-d", "-l", addr, str(TCP_PORT)],
                               ns=b.name, stdout=out)
        try:
            t.require(wait_listening(b, TCP_PORT), "nc listening on %s:%d" % (addr, TCP_PORT))
            with open(src, "rb") as inp:
                client = env.popen(["nc", family, "-n", "-N", "-w", "30", addr, str(TCP_PORT)],
                                   ns=a.name, stdin=inp)
            try:
                crc = client.wait(env.scaled(TCP_TIMEOUT))
                src_rc = server.wait(30)
            finally:
                env.end_process(client)
        finally:
            env.end_process(server)
        got_size = os.path.getsize(dst)
        with open(dst, "rb") as f:
            got = hashlib.sha256(f.read()).hexdigest()
        t.equal((crc, src_rc), (0, 0), "nc client and server exit codes")
        t.equal(got_size, mb << 20, "TCP bytes received")
        t.equal(got, want, "sha256 of the %d MB file received over TCP" % mb)
    except subprocess.TimeoutExpired:
        t.check(False, "TCP transfer of %d MB completed within %ds" % (mb, TCP_TIMEOUT))
    finally:
        for p in (src, dst):
            if os.path.exists(p):
                os.unlink(p)
