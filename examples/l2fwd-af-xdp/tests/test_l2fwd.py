#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""l2fwd between two namespaces: MACs rewritten, ping and TCP through, clean exit.

    netns a: h0 10.99.0.1/24 == veth == p0 (port 0) \
                                                     netns dut: the forwarder
    netns b: h1 10.99.0.2/24 == veth == p1 (port 1) /

Usage: test_l2fwd.py dpdk|dpdk-stock|xdp
  dpdk        l2fwd-af-xdp over the driver of the harness (AFXDP_PLUGIN: meson
              sets our plugin; unset, Debian's stock driver)
  dpdk-stock  l2fwd-af-xdp over Debian's stock net_af_xdp (AFXDP_PLUGIN ignored)
  xdp         l2fwd-xdp, the kernel twin (native XDP)

The same topology for all three: offloads off on h0 and h1 (nothing would
complete them through an AF_XDP forwarder), GRO on (in native XDP a veth
takes redirected frames only while its peer runs NAPI).
The peer MACs are the endpoints' (--peer-mac 0,<h0> --peer-mac 1,<h1>), so
that the rewrite is exercised and IP traffic still flows.

Checks, with MAC updating (statistics every second, text):
  - raw frames a->b and b->a arrive byte for byte as sent except for the
    addresses: source = the output port's MAC, destination = the peer MAC;
  - ping a->b loses nothing; a 20 MB random file over TCP (nc) arrives with
    the same sha256;
  - SIGINT: exit 0, periodic and final statistics printed, and in the final
    ones port 1 tx + dropped = port 0 rx and the other way round (exact);
  - no XDP program left on any interface.
Then with --no-mac-updating --json: raw frames a->b arrive unchanged; after
SIGINT exit 0, the last JSON line is final and has the same identity; no XDP
program left.
Then at MTU 9000 (dpdk with our driver, and xdp; not Debian's stock driver,
which has no AF_XDP multi-buffer): every interface at MTU 9000, l2fwd-af-xdp
with --mtu 9000 (its ports then receive and send 2176-byte mbufs as chains);
raw frames of up to 9014 bytes a->b rewritten byte for byte, ping -M do -s
8972, a TCP transfer with its sha256.

With AFXDP_SOCKET_MODE=zero-copy (vm-zc-l2fwd-dpdk, on the patched kernel's
veth) every socket of the first run must be zero-copy; the second run is not
made (on the patched kernel a veth's zero-copy Tx sends nothing once an
earlier zero-copy socket on it was closed: an open kernel finding); at MTU
9000 the kernel binds the multi-buffer sockets in copy mode (veth's
zero-copy takes one buffer per frame), which is checked instead.
"""

import os
import signal
import sys

from afxdp_test import env, hosts, l2fwd, runner, topo, traffic

MODES = ("dpdk", "dpdk-stock", "xdp")
SIZES = traffic.SIZES
JUMBO_MTU = 9000
JUMBO_SIZES = [60, 1514, 1921, 5760, 9014]
FRAMES_PER_SIZE = 100        # below one ring's worth, as in test_io_fwd


def forwarder(mode, dut, ports, args, check_mode=True):
    if mode == "xdp":
        return l2fwd.Forwarder.xdp(dut, ports, args)
    # One lcore polls both ports (-q 2): the other core is left to the endpoints.
    return l2fwd.Forwarder.dpdk(dut, ports, ["-q", "2"] + args, lcores="1",
                                check_mode=check_mode)


def raw_frames(t, src, dst, count, label, want_src, want_dst, send_dst, sizes=SIZES):
    """Frames sent from `src` (its MAC as source, `send_dst` as destination)
    must arrive at `dst` with want_src/want_dst, the rest byte for byte."""
    with traffic.Capture(dst, src=want_src, dst=want_dst, count=count, sizes=sizes,
                         stream=label) as cap:
        traffic.send(src, send_dst, count, sizes, stream=label)
    res = cap.result
    t.check(traffic.all_intact(res), "%s: %s (expected src %s dst %s)"
            % (label, traffic.summary(res), want_src, want_dst))
    return res


def check_attached(t, ports, what):
    for p in ports:
        t.check(p.xdp() is not None, "%s: an XDP program on %s while forwarding" % (what, p))


def check_stopped(t, fwd, rc, net, what):
    t.equal(rc, 0, "%s: exit code after SIGINT" % what)
    left = net.check_no_xdp()
    t.check(not left, "%s: no XDP program left on any interface" % what, "\n".join(left))
    out = fwd.output()
    if rc != 0 or left:
        env.log(fwd.tail())
    return out


def main(t, mode):
    count = FRAMES_PER_SIZE * len(SIZES)
    with topo.Topology() as net:
        dut, a, b, p0, h0, p1, h1 = hosts.two_hosts(net, gro=True)
        peers = ["--peer-mac", "0,%s" % h0.mac, "--peer-mac", "1,%s" % h1.mac]

        # MAC updating, text statistics every second.
        what = "%s, MAC updating" % mode
        with forwarder(mode, dut, [p0, p1], ["-T", "1"] + peers) as fwd:
            check_attached(t, (p0, p1), what)
            raw_frames(t, h0, h1, count, "a->b raw frames, rewritten",
                       want_src=p1.mac, want_dst=h1.mac, send_dst=p0.mac)
            raw_frames(t, h1, h0, count, "b->a raw frames, rewritten",
                       want_src=p0.mac, want_dst=h0.mac, send_dst=p1.mac)
            hosts.ping(t, a)
            hosts.tcp_transfer(t, a, b)
            rc = fwd.stop(signal.SIGINT)
            out = check_stopped(t, fwd, rc, net, what)
            t.check("statistics at" in out, "%s: periodic statistics printed" % what)
            rows = l2fwd.parse_final_table(out)
            l2fwd.check_final(t, rows, 2, what)
            if rows:
                env.log("final: " + "; ".join("port %s rx %d tx %d dropped %d" % (
                    k, v["rx"], v["tx"], v["dropped"]) for k, v in rows.items()))
                t.check(rows[0]["rx"] >= count and rows[1]["rx"] >= count,
                        "%s: each port received at least the %d raw frames sent to it"
                        % (what, count))

        # No MAC updating, JSON statistics at the end only.
        what = "%s, no MAC updating" % mode
        no_mac_updating(t, net, mode, dut, p0, p1, h0, h1, count, peers, what)
        jumbo(t, net, mode, dut, p0, h0, p1, h1, a, b, peers)


def no_mac_updating(t, net, mode, dut, p0, p1, h0, h1, count, peers, what):
    with forwarder(mode, dut, [p0, p1], ["-T", "0", "--json", "--no-mac-updating"]
                   + peers) as fwd:
        check_attached(t, (p0, p1), what)
        raw_frames(t, h0, h1, count, "a->b raw frames, unchanged",
                   want_src=h0.mac, want_dst=p0.mac, send_dst=p0.mac)
        rc = fwd.stop(signal.SIGINT)
        out = check_stopped(t, fwd, rc, net, what)
        stats = l2fwd.json_lines(out)
        final = stats[-1] if stats else None
        t.check(final is not None and final.get("final") is True and len(stats) == 1,
                "%s: one JSON statistics line, the final one (-T 0)" % what,
                "\n".join(str(s) for s in stats))
        if final:
            rows = {p["port"]: p for p in final["ports"]}
            l2fwd.check_final(t, rows, 2, what)
            t.check(rows.get(0, {}).get("rx", 0) >= count,
                    "%s: port 0 received at least the %d frames sent" % (what, count))


def jumbo(t, net, mode, dut, p0, h0, p1, h1, a, b, peers):
    if mode == "dpdk-stock":
        env.log("MTU 9000 not tried: Debian's stock driver has no AF_XDP multi-buffer")
        return
    what = "%s, MTU %d" % (mode, JUMBO_MTU)
    for ifc in (p0, h0, p1, h1):
        ifc.set_mtu(JUMBO_MTU)
    extra = [] if mode == "xdp" else ["--mtu", str(JUMBO_MTU)]
    # Zero-copy asked (the vm suite's vm-zc-l2fwd-dpdk): the patched
    # kernel's veth takes one buffer per frame in zero-copy mode, so the
    # kernel binds these multi-buffer sockets in copy mode.
    zero_copy = mode == "dpdk" and env.socket_mode() == "zero-copy"
    with forwarder(mode, dut, [p0, p1], ["-T", "0"] + extra + peers,
                   check_mode=not zero_copy) as fwd:
        if zero_copy:
            modes = fwd.socket_modes()
            t.check(all(modes.get(p.name) == {"copy"} for p in (p0, p1)),
                    "%s, zero-copy asked: multi-buffer sockets bound in copy mode: %s"
                    % (what, modes))
        n = 20 * len(JUMBO_SIZES)
        raw_frames(t, h0, h1, n, "%s: a->b raw frames up to 9014 bytes, rewritten" % what,
                   want_src=p1.mac, want_dst=h1.mac, send_dst=p0.mac, sizes=JUMBO_SIZES)
        hosts.ping(t, a, size=JUMBO_MTU - 28)
        hosts.tcp_transfer(t, a, b)
        rc = fwd.stop(signal.SIGINT)
        check_stopped(t, fwd, rc, net, what)


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in MODES:
        sys.stderr.write("usage: %s %s\n" % (sys.argv[0], "|".join(MODES)))
        sys.exit(99)
    MODE = sys.argv[1]
    if MODE == "dpdk-stock":
        os.environ.pop("AFXDP_PLUGIN", None)
    runner.run(lambda t: main(t, MODE), "l2fwd-" + MODE, __doc__.splitlines()[0])
