# SPDX-License-Identifier: BSD-3-Clause
"""Network namespaces and veth pairs, named after the run id, always removed.

Ours, with ip(8), not pyroute2's: every command is logged and can be re-run
by hand, and pyroute2's NetNS forks a helper process per namespace that an
interrupted test would leave behind. Sysctls and an interface's MAC are
the exception: read (and sysctls written) from a thread that entered the
namespace (Netns.sysctl, Iface.mac), not by processes (`ip netns exec` and
sysctl(8), `ip link show`), which under the VM's emulated CPU cost most of
a second each: seconds a topology, and tests read MACs at every send.

    with Topology() as topo:
        dut = topo.netns("dut")
        gen = topo.netns("gen")
        port, peer = topo.veth(dut, "d0", gen, "g0", queues=2)

Each end of a veth gets an ifindex of its own (IFINDEX_FIRST on, never
the same twice in a run), as a container's veth has its host end numbered
among the host's devices: two fresh namespaces would number both ends 2,
and the kernel's linkwatch takes the carrier changes of an interface whose
ifindex equals its peer's (iflink) as not urgent, handled at most once a
second: every link change of the pair, and the next one after it, up to a
second late (net/core/link_watch.c, linkwatch_urgent_event()).

IPv6 is off in every namespace before any interface exists (neighbour
discovery would add stray frames to exact counts). Removing a namespace first
ends the processes still inside it, and records (then removes) any XDP
program still attached to one of its interfaces: a leak the test reports.
"""

import fcntl
import itertools
import json
import os
import re
import socket
import struct

from . import cleanup, env

SIOCGIFHWADDR = 0x8927          # <linux/sockios.h>
IFREQ = struct.Struct("16s16s")  # struct ifreq: the name, then the union (a sockaddr)


IFINDEX_FIRST = 1000             # above what a fresh namespace numbers its own devices
_IFINDEXES = itertools.count(IFINDEX_FIRST)   # the next unused one


# What teardown found left behind by the system under test (the runner reports it).
LEAKS = []


def _json(cp):
    try:
        return json.loads(cp.stdout or "[]")
    except ValueError as e:
        raise env.HarnessError("cannot parse JSON from ip: %s\n%s" % (e, cp.stdout)) from None


# rtnetlink (<linux/netlink.h>, <linux/rtnetlink.h>, <linux/if_link.h>)
NLMSG_HDR = struct.Struct("=IHHII")         # len, type, flags, seq, pid
IFINFOMSG = struct.Struct("=BxHiII")        # family, type, index, flags, change
RTATTR = struct.Struct("=HH")               # len, type
NLMSG_ERROR, RTM_NEWLINK, RTM_GETLINK, NLM_F_REQUEST = 2, 16, 18, 1
IFLA_IFNAME, IFLA_XDP = 3, 43
IFLA_XDP_ATTACHED, IFLA_XDP_PROG_ID = 2, 4
XDP_ATTACHED = {1: "drv", 2: "skb (generic)", 3: "hw (offload)", 4: "multi"}
XDP_WORD = {1: "xdp", 2: "xdpgeneric", 3: "xdpoffload", 4: "xdpmulti"}    # ip link show's


def _attrs(data):
    """{type: payload} of a run of rtattrs."""
    out, pos = {}, 0
    while pos + RTATTR.size <= len(data):
        length, kind = RTATTR.unpack_from(data, pos)
        if length < RTATTR.size:
            break
        out[kind & 0x3FFF] = data[pos + RTATTR.size:pos + length]   # without NLA_F_NESTED
        pos += (length + 3) & ~3
    return out


def _link_xdp(name):
    """(IFLA_XDP_ATTACHED, IFLA_XDP_PROG_ID) of interface `name` in this
    thread's namespace: RTM_GETLINK by name. OSError as the kernel says."""
    ifname = name.encode() + b"\0"
    attr = RTATTR.pack(RTATTR.size + len(ifname), IFLA_IFNAME) + ifname
    attr += b"\0" * (-len(attr) % 4)
    body = IFINFOMSG.pack(socket.AF_UNSPEC, 0, 0, 0, 0) + attr
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE) as s:
        s.send(NLMSG_HDR.pack(NLMSG_HDR.size + len(body), RTM_GETLINK, NLM_F_REQUEST, 1, 0)
               + body)
        reply = s.recv(65536)
    _, kind, _, _, _ = NLMSG_HDR.unpack_from(reply)
    if kind == NLMSG_ERROR:
        err = -struct.unpack_from("=i", reply, NLMSG_HDR.size)[0]
        raise OSError(err, "RTM_GETLINK %s: %s" % (name, os.strerror(err)))
    if kind != RTM_NEWLINK:
        raise OSError(0, "RTM_GETLINK %s: reply of type %d" % (name, kind))
    length = NLMSG_HDR.unpack_from(reply)[0]
    xdp = _attrs(_attrs(reply[NLMSG_HDR.size + IFINFOMSG.size:length]).get(IFLA_XDP, b""))
    mode = xdp.get(IFLA_XDP_ATTACHED, b"\0")[0]
    prog = xdp.get(IFLA_XDP_PROG_ID)
    return mode, struct.unpack("=I", prog[:4])[0] if prog else None


class Iface:
    def __init__(self, ns, name, queues):
        self.ns, self.name, self.queues = ns, name, queues
        self.peer = None

    def __repr__(self):
        return "%s(netns %s)" % (self.name, self.ns.name)

    def ip(self, *args, check=True):
        return env.run(["ip", "-n", self.ns.name] + list(args), check=check)

    def link(self):
        cp = self.ip("-j", "-d", "-s", "link", "show", "dev", self.name)
        return _json(cp)[0]

    @property
    def mac(self):
        """The interface's MAC, as `ip link show` gives it (SIOCGIFHWADDR on
        a socket of its namespace)."""
        def read():
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                return fcntl.ioctl(s.fileno(), SIOCGIFHWADDR,
                                   IFREQ.pack(self.name.encode(), b""))
        try:
            ifr = env.in_netns(self.ns.name, read)
        except OSError as e:
            raise env.HarnessError("MAC of %s: %s" % (self, e)) from None
        # the union's sockaddr: sa_family (2 bytes), then the address
        return ":".join("%02x" % b for b in IFREQ.unpack(ifr)[1][2:8])

    def mtu(self):
        return int(self.link()["mtu"])

    def set_mtu(self, mtu):
        self.ip("link", "set", "dev", self.name, "mtu", str(mtu))

    def is_up(self):
        return "UP" in self.link().get("flags", [])

    def set_up(self):
        self.ip("link", "set", "dev", self.name, "up")

    def set_down(self):
        self.ip("link", "set", "dev", self.name, "down")

    def add_addr(self, cidr):
        self.ip("addr", "add", cidr, "dev", self.name)

    def offloads_off(self):
        """TCP through an AF_XDP forwarder: the checksum and segmentation
        offloads would never be completed, so turn them off on the endpoints."""
        env.run(["ethtool", "-K", self.name, "tx", "off", "tso", "off", "gso", "off"],
                ns=self.ns.name)

    def set_gro(self, on):
        """GRO on or off; on a veth, GRO on keeps its NAPI running while up."""
        env.run(["ethtool", "-K", self.name, "gro", "on" if on else "off"], ns=self.ns.name)

    def xdp(self):
        """A description of the XDP program attached ('drv, program id 12'),
        or None: the link's IFLA_XDP as `ip link show` reads it, asked by
        rtnetlink from a thread in the namespace (no process to start)."""
        try:
            xdp = env.in_netns(self.ns.name, lambda: _link_xdp(self.name))
        except OSError as e:
            raise env.HarnessError("XDP attachment of %s: %s" % (self, e)) from None
        mode, prog_id = xdp
        if not mode:
            return None
        return "%s, program id %s" % (XDP_ATTACHED.get(mode, "mode %d" % mode), prog_id)

    def xdp_word(self):
        """What `ip link show` prints for the XDP attachment: 'xdp' (native),
        'xdpgeneric', 'xdpoffload', 'xdpmulti', or None: the word ip prints
        for the link's IFLA_XDP_ATTACHED (rtnetlink, as xdp())."""
        try:
            mode, _ = env.in_netns(self.ns.name, lambda: _link_xdp(self.name))
        except OSError as e:
            raise env.HarnessError("XDP attachment of %s: %s" % (self, e)) from None
        return XDP_WORD.get(mode)

    def set_napi_deferral(self, defer_hard_irqs, gro_flush_timeout_ns):
        """The interface's NAPI deferral (sysfs napi_defer_hard_irqs and
        gro_flush_timeout), written inside the namespace and read back."""
        for attr, value in (("napi_defer_hard_irqs", defer_hard_irqs),
                            ("gro_flush_timeout", gro_flush_timeout_ns)):
            path = "/sys/class/net/%s/%s" % (self.name, attr)
            self.ns.exec(["sh", "-c", "echo %d > %s" % (value, path)])
            got = self.ns.exec(["cat", path]).stdout.strip()
            if got != str(value):
                raise env.HarnessError("%s reads %s after writing %d" % (path, got, value))

    def sysfs_stat(self, name):
        """/sys/class/net/<iface>/statistics/<name>, read inside the namespace."""
        cp = self.ns.exec(["cat", "/sys/class/net/%s/statistics/%s" % (self.name, name)])
        return int(cp.stdout.strip())

    def rx_packets(self):
        return int(self.link()["stats64"]["rx"]["packets"])

    def tx_packets(self):
        return int(self.link()["stats64"]["tx"]["packets"])

    def ethtool_stats(self):
        cp = env.run(["ethtool", "-S", self.name], ns=self.ns.name)
        out = {}
        for line in cp.stdout.splitlines():
            m = re.match(r"\s*(\S+):\s+(\d+)\s*$", line)
            if m:
                out[m.group(1)] = int(m.group(2))
        return out

    def kernel_rx_queue_packets(self):
        """veth's per-queue receive counters (XDP path), from ethtool -S."""
        st = self.ethtool_stats()
        return [st.get("rx_queue_%d_xdp_packets" % q, 0) for q in range(self.queues)]


class Netns:
    def __init__(self, topo, role):
        self.topo = topo
        self.role = role
        self.name = "%s%s-%s" % (env.NETNS_PREFIX, env.run_id(), role)
        self.ifaces = []

    def __repr__(self):
        return self.name

    def exec(self, args, **kw):
        return env.run(args, ns=self.name, **kw)

    def _create(self):
        cp = env.run(["ip", "netns", "add", self.name], check=False)
        if cp.returncode != 0:
            raise env.Skip("cannot create a network namespace (ip netns add): %s"
                           % cp.stderr.strip())
        self._undo = cleanup.push("netns %s" % self.name, self._destroy)
        # Off before any interface exists; every new interface inherits it.
        self.sysctl("net.ipv6.conf.all.disable_ipv6", 1)
        self.sysctl("net.ipv6.conf.default.disable_ipv6", 1)
        env.run(["ip", "-n", self.name, "link", "set", "dev", "lo", "up"])

    def sysctl(self, name, value=None):
        """Read (value None) or write the namespace's sysctl `name`, as
        `ip netns exec NS sysctl -n name` or `sysctl -w name=value` would,
        without starting two processes (each most of a second under the VM's
        emulated CPU): /proc/sys/net is the namespace of the thread opening it."""
        path = "/proc/sys/" + name.replace(".", "/")

        def body():
            if value is None:
                with open(path) as f:
                    return f.read().strip()
            with open(path, "w") as f:
                f.write(str(value))
            return None

        try:
            return env.in_netns(self.name, body)
        except OSError as e:
            raise env.HarnessError("sysctl %s%s in netns %s: %s" % (
                name, "" if value is None else "=%s" % value, self.name, e)) from None

    def pids(self):
        return env.netns_pids(self.name)

    def _kill_processes(self):
        pids = self.pids()
        if not pids:
            return
        env.log("netns %s: ending leftover processes %s" % (self.name, pids))
        LEAKS.append("processes left in netns %s: %s" % (self.name, pids))
        env.end_pids(pids)

    def _check_xdp(self):
        for ifc in self.ifaces:
            try:
                prog = ifc.xdp()
            except env.HarnessError:
                continue
            if prog:
                LEAKS.append("XDP program left attached to %s: %s" % (ifc, prog))
                ifc.ip("link", "set", "dev", ifc.name, "xdp", "off", check=False)

    def _destroy(self):
        if env.keep():
            env.log("AFXDP_KEEP: leaving netns %s" % self.name)
            return
        self._kill_processes()
        self._check_xdp()
        env.run(["ip", "netns", "del", self.name])


class Topology:
    """A set of namespaces and veth pairs, torn down when the block ends."""

    def __init__(self):
        cleanup.install()
        self.namespaces = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def netns(self, role):
        ns = Netns(self, role)
        ns._create()
        self.namespaces.append(ns)
        return ns

    def veth(self, ns_a, role_a, ns_b, role_b, queues=1, up=True):
        """A veth pair with ends in two namespaces (or both in one), each end
        with `queues` receive and transmit queues. Returns (end_a, end_b)."""
        rid = env.run_id()
        name_a = "%s%s%s" % (env.IFACE_PREFIX, rid, role_a)
        name_b = "%s%s%s" % (env.IFACE_PREFIX, rid, role_b)
        for n in (name_a, name_b):
            if len(n) > 15:
                raise env.HarnessError("interface name %s longer than 15 characters" % n)
        q = str(queues)
        index_a, index_b = next(_IFINDEXES), next(_IFINDEXES)
        cp = env.run(["ip", "link", "add", name_a, "netns", ns_a.name, "index", str(index_a),
                      "numrxqueues", q, "numtxqueues", q, "type", "veth",
                      "peer", "name", name_b, "netns", ns_b.name, "index", str(index_b),
                      "numrxqueues", q, "numtxqueues", q], check=False)
        if cp.returncode != 0:
            err = cp.stderr.strip()
            if "Unknown device type" in err or "not supported" in err.lower():
                raise env.Skip("veth is not available: %s" % err)
            raise env.HarnessError("cannot create veth %s/%s: %s" % (name_a, name_b, err))
        a, b = Iface(ns_a, name_a, queues), Iface(ns_b, name_b, queues)
        a.peer, b.peer = b, a
        ns_a.ifaces.append(a)
        ns_b.ifaces.append(b)
        for ifc in (a, b):
            name = "net.ipv6.conf.%s.disable_ipv6" % ifc.name
            if ifc.ns.sysctl(name) != "1":
                ifc.ns.sysctl(name, 1)
            if up:
                ifc.set_up()
        return a, b

    def delete_veth(self, end):
        """Delete the veth pair of `end` (both ends go), as an operator or a
        container runtime would under a running application."""
        end.ip("link", "del", "dev", end.name)
        for ifc in (end, end.peer):
            if ifc is not None and ifc in ifc.ns.ifaces:
                ifc.ns.ifaces.remove(ifc)
        env.log("deleted veth %s/%s" % (end.name, end.peer.name if end.peer else "?"))

    def close(self):
        while self.namespaces:
            ns = self.namespaces.pop()
            cleanup.release(ns._undo)

    def check_no_xdp(self):
        """XDP programs still attached anywhere in the topology (list of str)."""
        found = []
        for ns in self.namespaces:
            for ifc in ns.ifaces:
                prog = ifc.xdp()
                if prog:
                    found.append("%s: %s" % (ifc, prog))
        return found
