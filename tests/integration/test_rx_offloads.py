#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rx_offloads: the RSS hash and VLAN tag from the XDP metadata, a timestamp, IPv4 header checksums, and what the kernel refuses.

    netns gen: g0 (2 queues), tc egress program  == veth ==  d0 (net_af_xdp0)  netns dut: testpmd rxonly

One check a TAP line (`rx_offloads/<check>`), each on veths of its own.
The Rx-metadata offloads come from a program bound to the interface that
kernels may refuse (a fresh machine's 6.18 refuses bpf_xdp_adjust_meta to
every XDP program): what this kernel allows is asked of it first
(kernel.helper_refusal: a program of three instructions calling the
helper, loaded by the test, not the driver), and each check checks what
the driver must do there. The refusal path also runs on every kernel, made
on demand (faults.Refusal: tests/faults/refuse.c preloaded into testpmd).

The peer g0 sends UDP frames of FLOWS flows (UDP source ports 20000 + i), each
flow with a length of its own, so that testpmd's `set verbose 1` lines tell
the flows apart.  A tc egress program on g0 (bpf/tc_rx_offloads.bpf.c)
records, per source port, the skb hash the sending kernel computed
(bpf_get_hash_recalc), which veth carries to its peer's XDP metadata.

  offered     testpmd with no offload asked: where the kernel loads the
              program, the port offers RSS_HASH, VLAN_STRIP and TIMESTAMP
              (state rx.offloads.capa, probed, reason iface-kfuncs); where
              it refuses bpf_xdp_adjust_meta, none of them (reason
              kernel-refused, rx.offloads.capa.refused names the helper),
              and the refused path below holds.
  refused     bpf_xdp_adjust_meta refused on demand, on every kernel: the
              driver's probe met the refusal (the fault library's log);
              nothing of the metadata offered, the state says what was
              tried and what the verifier refused; an application asking
              RSS_HASH is refused at configure by ethdev (the port stays
              stopped, no XDP program left), never at start; with two
              queues and no offload asked the port starts on the plain
              program (nothing implied) and receives exactly what was sent.
  refused_kfunc  bpf_xdp_metadata_rx_vlan_tag refused on demand: the
              program calls it in every choice of values (a constant the
              verifier folds chooses them), so none is offered, and the
              state names the function; a port asking nothing receives as
              ever.
  rss_hash    testpmd with two queues (RSS) and --rx-offloads rss_hash: the
              port offers RSS_HASH and VLAN_STRIP; the state block says the
              Rx offloads in force and that the built-in Rx-metadata
              program runs bound to d0, alone, in native mode; every frame
              comes with an RSS hash, one per flow, different across flows,
              each the very hash the sending kernel recorded for the flow.
              Then, in the same testpmd, `port config 0 rx_offload
              rss_hash off` and a restart: RSS configured without RSS_HASH
              asked (what Open vSwitch 3.1 does): the state says the hash
              implied and in force, and every frame still has its flow's
              hash, as from a NIC's PMD.  A SKIP where the kernel refuses
              the program (nothing of this to check there).
  vlan_strip  testpmd with --rx-offloads vlan_strip, one queue, and the
              scatter offload and frames up to 2514 bytes (the burst for
              frames of several descriptors, which moves the metadata after
              the frame).  First tags in the frames' bytes (IN_BAND: a raw
              AF_PACKET socket on the peer sends them, as a NIC with its
              tag offload off delivers them): an 802.1Q tag is taken out
              (the frame 4 bytes shorter, its ethertype the IPv4 one under
              the tag) and its tci reported; an 802.1ad tag, alone or over
              an 802.1Q one, stays in the bytes and nothing is reported
              (ethdev strips an outer tag under QINQ_STRIP, not offered);
              an untagged frame as sent.  Then, where the kernel has tc's
              clsact qdisc (not the VM's), the tc program pushes VLAN tag
              TEST_TCI out of band (bpf_skb_vlan_push, as a VLAN device
              with tx-vlan-offload would):
              every frame shows the tag's tci, its length without the tag
              (the tag is not in the bytes) and no RSS hash (not asked).
              Then strip off and TIMESTAMP on (the bound program still
              runs): the state says rx.vlan reinserted, and every frame
              carries the tag in its bytes (802.1Q ethertype, 4 bytes
              longer), no stripped tci.  A SKIP where the kernel refuses.
  vlan_join   two ports on queues 0 and 1 of one interface, both with
              VLAN_STRIP; port 1 restarted without: it does not start (the
              program strips tags for port 0, port 1's frames would lose
              them), port 0 runs on.  A SKIP where the kernel refuses.
  timestamp   --enable-rx-timestamp, one queue: every frame carries the
              timestamp dynamic field, within the sender's run in CLOCK_TAI,
              never decreasing.  A SKIP where the kernel refuses.
  ipv4_cksum  --rx-offloads CHECKSUM (IPV4, UDP, TCP; what examples/l3fwd
              asks for) and, where offered, RSS_HASH, two queues: the
              peer's kernel sends pings (its IPv4 header), a raw socket
              sends frames the stack would not: an IPv4 header checksum
              broken, an 802.1Q tag in the bytes, IPv6, ARP.  Each frame's
              ol_flags (`set verbose 1`): IP_CKSUM_GOOD for right IPv4
              headers, _BAD for the broken one, _UNKNOWN for the others;
              L4_CKSUM_UNKNOWN on every frame (the kernel does not say, and
              a local sender's frames carry a partial sum); the RSS hash
              still there where asked (metadata and the check in one
              burst), none where the kernel refuses it.
  refusals    mode=skb: neither offered (device-bound programs run in native
              mode only); someone else's XDP program on the interface: the
              port asking for an Rx offload does not start and the program
              stays (the bound program runs alone, never over another).
"""

import collections
import contextlib
import json
import re
import struct
import time

from afxdp_test import (bpf, env, faults, frames, kernel, runner, state, testpmd, topo,
                        traffic)

FLOWS = 4
SIZES = [100, 200, 300, 400]        # flow i: frames of SIZES[i] bytes (frames.py: seq % n)
PER_FLOW = 10
TEST_TCI = 0x6064                   # tc_rx_offloads.bpf.c's
RX_OFFLOAD_VLAN_STRIP = 0x1
RX_OFFLOAD_RSS_HASH = 0x80000
META_CAPA = "rss_hash,vlan_strip,timestamp"      # veth's, where the kernel loads the program
ADJUST_META = "bpf_xdp_adjust_meta"
VLAN_KFUNC = "bpf_xdp_metadata_rx_vlan_tag"
LINE = r"type=0x0800 - length=(\d+) - nb_segs=\d+([^\n]*)\n"
TAGGED_LINE = r"type=0x8100 - length=(\d+) - nb_segs=\d+([^\n]*)\n"
HASH = re.compile(r" - RSS hash=(0x[0-9a-f]+)")
TCI = re.compile(r" - VLAN tci=(0x[0-9a-f]+)")
STAMP = re.compile(r" - timestamp (\d+) ")


def tc_attach(peer, section):
    """The tc program `section` on peer's egress; returns the id of its
    flow_hashes map, or None where the kernel has no clsact qdisc (the VM's
    is built without)."""
    ns = peer.ns
    cp = ns.exec(["tc", "qdisc", "replace", "dev", peer.name, "clsact"], check=False)
    if cp.returncode != 0 and "not supported" in cp.stderr:
        env.log("no tc clsact qdisc in this kernel (%s): the sending kernel's hashes and "
                "the out-of-band VLAN tag are not checked" % cp.stderr.strip())
        return None
    if cp.returncode != 0:
        raise env.HarnessError("tc qdisc add clsact on %s: %s" % (peer, cp.stderr.strip()))
    ns.exec(["tc", "filter", "replace", "dev", peer.name, "egress", "pref", "1", "handle", "1",
             "bpf", "da", "obj", bpf.obj("tc_rx_offloads"), "sec", section])
    shown = json.loads(ns.exec(["tc", "-j", "filter", "show", "dev", peer.name,
                                "egress"]).stdout)
    prog_id = next(f["options"]["prog"]["id"] for f in shown
                   if "options" in f and "prog" in f["options"])
    info = json.loads(ns.exec([bpf.bpftool(), "-j", "prog", "show", "id",
                               str(prog_id)]).stdout)
    return info["map_ids"][0]


def kernel_hashes(peer, map_id):
    """{UDP source port: the skb hash the sending kernel computed}."""
    dump = json.loads(peer.ns.exec([bpf.bpftool(), "-j", "map", "dump", "id",
                                    str(map_id)]).stdout)
    return {e["formatted"]["key"]: e["formatted"]["value"] for e in dump}


def received(t, tp, port, peer, what):
    """Send PER_FLOW frames of each flow; the verbose lines: [(length, hash or None, tci or None)]."""
    count = FLOWS * PER_FLOW
    tp.cmd("set verbose 1")
    tp.cmd("start")
    traffic.send(peer, port.mac, count, SIZES, kind="udp", flows=FLOWS, stream=what)
    seen = tp.wait_output(LINE, count)
    tp.cmd("stop")
    tp.cmd("set verbose 0")
    t.equal(len(seen), count, "%s: frames shown by `set verbose 1`" % what)
    got = []
    for n, rest in seen:
        h, v = HASH.search(rest), TCI.search(rest)
        got.append((int(n), h.group(1) if h else None, int(v.group(1), 16) if v else None))
    return got


def check_rss_hash(t, ctx):
    ctx.need("rss_hash")
    net, dut, gen = ctx.net, ctx.dut, ctx.gen
    port, peer = net.veth(dut, "d0", gen, "g0", queues=2)
    map_id = tc_attach(peer, "tc/hash")
    vdev = "net_af_xdp0,iface=%s,queue_count=2" % port.name
    with testpmd.TestPmd(dut, [vdev], fwd="rxonly", queues=2,
                         app_extra=["--rx-offloads=0x%x" % RX_OFFLOAD_RSS_HASH]) as tp:
        capa = tp.cmd("show port 0 rx_offload capabilities")
        t.check("RSS_HASH" in capa and "VLAN_STRIP" in capa,
                "rss_hash: the port offers RSS_HASH and VLAN_STRIP", capa)
        st = state.read(tp)
        t.require(st.get("state") == "started", "rss_hash: port started")
        t.equal(st.get("rx.offloads"), "rss_hash", "rss_hash: state rx.offloads")
        t.equal(st.get("rx.offloads.capa"), META_CAPA, "rss_hash: state rx.offloads.capa")
        t.equal(st.get("rx.offloads.capa.reason"), "iface-kfuncs",
                "rss_hash: state rx.offloads.capa.reason (netlink's xdp-rx-metadata-features)")
        t.equal(st.get("xdp.program"), "afxdp_meta_map", "rss_hash: state xdp.program")
        t.equal(st.get("xdp.dispatcher"), "no", "rss_hash: state xdp.dispatcher")
        t.equal(st.get("xdp.attach_mode"), "drv", "rss_hash: state xdp.attach_mode")

        lines = received(t, tp, port, peer, "rss_hash")
        by_len = collections.defaultdict(set)
        for n, h, _ in lines:
            by_len[n].add(h)
        t.equal(sorted(by_len), SIZES, "rss_hash: frame lengths, one per flow")
        t.check(all(h is not None for _, h, _ in lines),
                "rss_hash: every frame has an RSS hash (RTE_MBUF_F_RX_RSS_HASH)")
        t.check(all(len(hs) == 1 for hs in by_len.values()),
                "rss_hash: one hash per flow", dict(by_len))
        hashes = {n: int(next(iter(hs)), 16) for n, hs in by_len.items() if None not in hs}
        t.equal(len(set(hashes.values())), FLOWS, "rss_hash: distinct hashes across flows")
        if map_id is not None:
            kernel = kernel_hashes(peer, map_id)
            want = {SIZES[i]: kernel.get(frames.UDP_SRC_PORT_BASE + i) for i in range(FLOWS)}
            t.equal(hashes, want, "rss_hash: each flow's hash is the sending kernel's skb hash")
        t.check(all(v is None for _, _, v in lines), "rss_hash: no VLAN tag reported")
        check_rss_implied(t, tp, port, peer, hashes)
        t.quit_testpmd(tp, net)


def check_rss_implied(t, tp, port, peer, hashes):
    """RSS mode without RSS_HASH asked: the hash delivered all the same."""
    tp.cmd("port stop 0")
    tp.cmd("port config 0 rx_offload rss_hash off")
    tp.cmd("port start 0")
    conf = tp.cmd("show port 0 rx_offload configuration")
    t.check("RSS_HASH" not in conf, "rss_implied: RSS_HASH no longer configured", conf)
    st = state.read(tp)
    t.require(st.get("state") == "started", "rss_implied: port started again")
    t.equal((st.get("rx.offloads.implied"), st.get("rx.offloads"), st.get("xdp.program")),
            ("rss_hash", "rss_hash", "afxdp_meta_map"),
            "rss_implied: state rx.offloads.implied, rx.offloads, xdp.program")
    lines = received(t, tp, port, peer, "rss_implied")
    got = {n: h and int(h, 16) for n, h, _ in lines}
    t.check(all(h is not None for _, h, _ in lines),
            "rss_implied: every frame has an RSS hash (RTE_MBUF_F_RX_RSS_HASH)")
    t.equal(got, hashes, "rss_implied: each flow's hash as with RSS_HASH asked")


def check_vlan_strip(t, ctx):
    ctx.need("vlan_strip")
    net, dut, gen = ctx.net, ctx.dut, ctx.gen
    port, peer = net.veth(dut, "d1", gen, "g1")
    # Multi-buffer sockets: the patched veth binds them in copy mode (vm-zc).
    with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly",
                         app_extra=["--rx-offloads=0x%x" % RX_OFFLOAD_VLAN_STRIP,
                                    # frames longer than a chunk: sockets bound multi-buffer
                                    "--enable-scatter", "--max-pkt-len=2514"],
                         check_mode=False) as tp:
        st = state.read(tp)
        t.require(st.get("state") == "started", "vlan_strip: port started")
        t.equal(st.get("rx.burst"), "multi-buffer",
                "vlan_strip: the multi-buffer burst (--enable-scatter): metadata on the frames' heads")
        t.equal(st.get("rx.offloads"), "vlan_strip", "vlan_strip: state rx.offloads")
        t.equal(st.get("xdp.program"), "afxdp_meta_map", "vlan_strip: state xdp.program")
        check_vlan_in_band(t, tp, port, peer)
        if tc_attach(peer, "tc/hash_vlan") is not None:
            lines = received(t, tp, port, peer, "vlan_strip")
            t.equal(collections.Counter(v for _, _, v in lines), {TEST_TCI: FLOWS * PER_FLOW},
                    "vlan_strip: VLAN tci of the frames (stripped, RTE_MBUF_F_RX_VLAN)")
            t.equal(sorted(set(n for n, _, _ in lines)), SIZES,
                    "vlan_strip: frame lengths without the tag")
            t.check(all(h is None for _, h, _ in lines), "vlan_strip: no RSS hash (not asked)")
            check_vlan_reinserted(t, tp, port, peer)
        t.quit_testpmd(tp, net)


# Frames with their tags in their bytes, from a raw socket on the peer, by
# the length of the UDP frame under the tags: (what, the tags (TPID, TCI)
# after the MAC addresses, and what testpmd must show: the ethertype, the
# length, the stripped tag's tci or None).
IN_BAND = {
    100: ("802.1Q tag", [(0x8100, 0x2065)], ("0x0800", 100, 0x2065)),
    200: ("802.1ad tag", [(0x88A8, 0x0066)], ("0x88a8", 204, None)),
    300: ("802.1ad and 802.1Q tags", [(0x88A8, 0x0067), (0x8100, 0x0068)],
          ("0x88a8", 308, None)),
    400: ("no tag", [], ("0x0800", 400, None)),
}
IN_BAND_EACH = 5
ANY_LINE = r"type=(0x[0-9a-f]{4}) - length=(\d+) - nb_segs=\d+([^\n]*)\n"


def check_vlan_in_band(t, tp, port, peer):
    """VLAN_STRIP on tags still in the frames' bytes (a raw sender on veth
    keeps them there, as a NIC with its tag offload off delivers them): an
    outermost 802.1Q tag taken out and reported (RTE_MBUF_F_RX_VLAN_STRIPPED,
    vlan_tci); an 802.1ad one, alone or over an 802.1Q one, left in place
    with no tag reported (ethdev strips it under QINQ_STRIP, not offered)."""
    dst, src = frames.mac_bytes(port.mac), frames.mac_bytes(peer.mac)
    raw = []
    for size, (_, tags, _) in sorted(IN_BAND.items()):
        frame = bytearray(frames.build("udp", 0, size, src, dst, b"vlan"))
        frame[12:12] = b"".join(struct.pack("!HH", tpid, tci) for tpid, tci in tags)
        raw += [bytes(frame).hex()] * IN_BAND_EACH
    tp.cmd("set verbose 1")
    tp.cmd("start")
    peer.ns.exec(["python3", "-c", SEND_RAW, peer.name] + raw)
    seen = tp.wait_output(ANY_LINE, len(raw))
    tp.cmd("stop")
    tp.cmd("set verbose 0")
    got = collections.Counter()
    for etype, length, rest in seen:
        v = TCI.search(rest)
        got[(etype, int(length), int(v.group(1), 16) if v else None)] += 1
    for size, (what, _, want) in sorted(IN_BAND.items()):
        t.equal(got.get(want, 0), IN_BAND_EACH,
                "vlan_in_band: %s in the bytes: frames shown as (ethertype, length, stripped "
                "tci) %r" % (what, want))
    t.equal(dict(got), {want: IN_BAND_EACH for _, _, want in IN_BAND.values()},
            "vlan_in_band: every frame shown, as (ethertype, length, stripped tci): count")


def check_vlan_join(t, ctx):
    """Two ports on one interface (queues 0 and 1) share the bound program:
    one with VLAN_STRIP attaches it, stripping tags into the metadata; the
    other, restarted without VLAN_STRIP, would get frames with neither the
    tag in their bytes nor vlan_tci, and does not start."""
    ctx.need("vlan_strip")
    port, _ = ctx.net.veth(ctx.dut, ctx.iface(), ctx.gen, ctx.iface("g"), queues=2)
    vdevs = ["net_af_xdp%d,iface=%s,start_queue=%d,queue_count=1" % (q, port.name, q)
             for q in (0, 1)]
    with testpmd.TestPmd(ctx.dut, vdevs, fwd="rxonly",
                         app_extra=["--rx-offloads=0x%x" % RX_OFFLOAD_VLAN_STRIP]) as tp:
        t.require((state.read(tp, 0).get("state"), state.read(tp, 1).get("state")) ==
                  ("started", "started"), "vlan_join: both ports started with VLAN_STRIP")
        tp.cmd("port stop 1")
        tp.cmd("port config 1 rx_offload vlan_strip off")
        tp.cmd("port start 1")
        t.equal((state.read(tp, 0).get("state"), state.read(tp, 1).get("state"),
                 state.read(tp, 0).get("rx.offloads")), ("started", "stopped", "vlan_strip"),
                "vlan_join: port 1 without VLAN_STRIP does not join the program that strips "
                "for port 0: state of ports 0 and 1, port 0's rx.offloads")
        t.quit_testpmd(tp, ctx.net)


def check_vlan_reinserted(t, tp, port, peer):
    """VLAN_STRIP off, the bound program running for TIMESTAMP: the tag the
    sending side kept out of band is back in each frame's bytes."""
    tp.cmd("port stop 0")
    tp.cmd("port config 0 rx_offload vlan_strip off")
    tp.cmd("port config 0 rx_offload timestamp on")
    tp.cmd("port start 0")
    st = state.read(tp)
    t.require(st.get("state") == "started", "vlan_reinserted: port started again")
    t.equal((st.get("rx.offloads"), st.get("rx.vlan"), st.get("xdp.program")),
            ("timestamp", "reinserted", "afxdp_meta_map"),
            "vlan_reinserted: state rx.offloads, rx.vlan, xdp.program")
    count = FLOWS * PER_FLOW
    tp.cmd("set verbose 1")
    tp.cmd("start")
    traffic.send(peer, port.mac, count, SIZES, kind="udp", flows=FLOWS, stream="vlan_reinserted")
    seen = tp.wait_output(TAGGED_LINE, count)
    tp.cmd("stop")
    tp.cmd("set verbose 0")
    t.equal(collections.Counter(int(n) for n, _ in seen),
            {n + 4: PER_FLOW for n in SIZES},
            "vlan_reinserted: every frame with the 802.1Q ethertype in its bytes, 4 bytes longer")
    t.check(not any(TCI.search(rest) for _, rest in seen),
            "vlan_reinserted: no stripped tag reported (RTE_MBUF_F_RX_VLAN clear)")
    t.check(all(STAMP.search(rest) for _, rest in seen),
            "vlan_reinserted: every frame stamped (the metadata moved with the frame's head)")


def check_timestamp(t, ctx):
    """--enable-rx-timestamp: every frame stamped in CLOCK_TAI (the program's
    bpf_ktime_get_tai_ns()), within the sending, in the order received."""
    ctx.need("timestamp")
    net, dut, gen = ctx.net, ctx.dut, ctx.gen
    port, peer = net.veth(dut, "d3", gen, "g3")
    with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly",
                         app_extra=["--enable-rx-timestamp"]) as tp:
        st = state.read(tp)
        t.require(st.get("state") == "started", "timestamp: port started")
        t.equal(st.get("rx.offloads"), "timestamp", "timestamp: state rx.offloads")
        tp.cmd("set verbose 1")
        tp.cmd("start")
        before = time.clock_gettime_ns(time.CLOCK_TAI)
        traffic.send(peer, port.mac, FLOWS * PER_FLOW, SIZES, kind="udp", flows=FLOWS,
                     stream="timestamp")
        after = time.clock_gettime_ns(time.CLOCK_TAI)
        seen = tp.wait_output(LINE, FLOWS * PER_FLOW)
        tp.cmd("stop")
        tp.cmd("set verbose 0")
        stamps = [int(m.group(1)) if m else None for m in (STAMP.search(r) for _, r in seen)]
        t.equal(len(stamps), FLOWS * PER_FLOW, "timestamp: frames shown by `set verbose 1`")
        t.check(all(s is not None and before <= s <= after for s in stamps),
                "timestamp: every frame stamped within the sending, in CLOCK_TAI",
                "%d..%d: %s" % (before, after, stamps[:5]))
        t.check(all(a <= b for a, b in zip(stamps, stamps[1:]) if a and b),
                "timestamp: stamps do not decrease")
        t.quit_testpmd(tp, net)


RX_OFFLOAD_CHECKSUM = 0xe              # IPV4_CKSUM | UDP_CKSUM | TCP_CKSUM
CKSUM_LINE = re.compile(r"type=(0x[0-9a-f]{4}) - length=(\d+) - nb_segs=\d+([^\n]*)\n"
                        r"\s*ol_flags: ([^\n]*)\n")
PING_PAYLOAD = 72                   # ICMP data bytes: frames of 14 + 20 + 8 + 72 = 114
# The raw socket's frames, by length: (what, the ethertype testpmd shows, IP_CKSUM flag)
RAW_FRAMES = {
    100: ("IPv4", "0x0800", "GOOD"),
    110: ("IPv4, header checksum broken", "0x0800", "BAD"),
    124: ("802.1Q tag in the frame, IPv4", "0x8100", "GOOD"),
    140: ("IPv6", "0x86dd", "UNKNOWN"),
    150: ("ARP", "0x0806", "UNKNOWN"),
}
SEND_RAW = ("import socket, sys\n"
            "s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)\n"
            "s.bind((sys.argv[1], 0))\n"
            "for h in sys.argv[2:]:\n"
            "    s.send(bytes.fromhex(h))\n")


def raw_frames(dst, src):
    """The frames of RAW_FRAMES, built from frames.py's UDP frame."""
    def udp(size):
        return bytearray(frames.build("udp", 0, size, src, dst, b"cksm"))
    broken = udp(110)
    broken[24] ^= 0xFF                  # the IPv4 header checksum's first byte
    tagged = udp(120)
    tagged[12:12] = bytes([0x81, 0x00, 0x00, 0x64])     # VLAN 100, priority 0
    ipv6 = dst + src + bytes([0x86, 0xDD, 0x60]) + bytes(140 - 15)
    arp = dst + src + bytes([0x08, 0x06]) + bytes(150 - 14)
    return {100: udp(100), 110: broken, 124: tagged, 140: ipv6, 150: arp}


def check_ipv4_cksum(t, ctx):
    net, dut, gen = ctx.net, ctx.dut, ctx.gen
    port, peer = net.veth(dut, "d4", gen, "g4", queues=2)
    peer.ip("addr", "add", "198.18.4.1/24", "dev", peer.name)
    peer.ip("neigh", "replace", "198.18.4.2", "lladdr", port.mac, "dev", peer.name)
    # The hash where the kernel lets the program fetch it: the check alone otherwise.
    hashed = ctx.offers("rss_hash")
    offloads = RX_OFFLOAD_CHECKSUM | (RX_OFFLOAD_RSS_HASH if hashed else 0)
    # Two queues: testpmd keeps RSS_HASH only with RSS.
    with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s,queue_count=2" % port.name],
                         fwd="rxonly", queues=2,
                         app_extra=["--rx-offloads=0x%x" % offloads]) as tp:
        capa = tp.cmd("show port 0 rx_offload capabilities")
        t.check(all(c in capa for c in ("IPV4_CKSUM", "UDP_CKSUM", "TCP_CKSUM")),
                "ipv4_cksum: the port offers IPV4_CKSUM, UDP_CKSUM and TCP_CKSUM", capa)
        st = state.read(tp)
        t.require(st.get("state") == "started", "ipv4_cksum: port started")
        t.equal((st.get("rx.cksum"), st.get("rx.offloads")),
                ("ipv4", "rss_hash" if hashed else "none"),
                "ipv4_cksum: state rx.cksum and rx.offloads")
        t.check("IPv4 header checksums" in tp.cmd("show rxq info 0 0"),
                "ipv4_cksum: the burst mode (show rxq info) names the check")
        tp.cmd("set verbose 1")
        tp.cmd("start")
        raw = raw_frames(frames.mac_bytes(port.mac), frames.mac_bytes(peer.mac))
        peer.ns.exec(["python3", "-c", SEND_RAW, peer.name]
                     + [bytes(raw[n]).hex() for n in sorted(raw)])
        peer.ns.exec(["ping", "-c", "3", "-i", "0.2", "-W", "0.2", "-s", str(PING_PAYLOAD),
                      "198.18.4.2"], check=False)   # no answer: rxonly
        seen = tp.wait_output(CKSUM_LINE.pattern, len(raw) + 3)
        tp.cmd("stop")
        tp.cmd("set verbose 0")
        got = {}
        for etype, length, rest, flags in seen:
            ip = re.search(r"RTE_MBUF_F_RX_IP_CKSUM_(\w+)", flags)
            got.setdefault(int(length), []).append(
                (etype, ip.group(1) if ip else None, "RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN" in flags,
                 " - RSS hash=" in rest))
        for n, (what, etype, flag) in sorted(RAW_FRAMES.items()):
            t.equal(got.get(n), [(etype, flag, True, hashed)],
                    "ipv4_cksum: %s: (ethertype, IP_CKSUM_*, L4_CKSUM_UNKNOWN, RSS hash)" % what)
        ping_len = 14 + 20 + 8 + PING_PAYLOAD
        t.equal(got.get(ping_len), [("0x0800", "GOOD", True, hashed)] * 3,
                "ipv4_cksum: the kernel's pings: (ethertype, IP_CKSUM_*, L4_CKSUM_UNKNOWN, RSS hash)")
        t.quit_testpmd(tp, net)


def check_refusals(t, ctx):
    """Generic mode: nothing offered.  Someone else's program on the
    interface: the bound program is not attached over it, the port does not
    start, and that program stays."""
    net, dut, gen = ctx.net, ctx.dut, ctx.gen
    port, _ = net.veth(dut, "d2", gen, "g2")
    with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s,mode=skb" % port.name],
                         fwd="rxonly") as tp:
        capa = tp.cmd("show port 0 rx_offload capabilities")
        t.check("RSS_HASH" not in capa and "VLAN_STRIP" not in capa and "TIMESTAMP" not in capa,
                "mode=skb: neither RSS_HASH, VLAN_STRIP nor TIMESTAMP offered", capa)
        st = state.read(tp)
        t.equal((st.get("rx.offloads.capa"), st.get("rx.offloads.capa.reason")),
                ("none", "not-native-mode"), "mode=skb: state rx.offloads.capa and reason")
        t.check("IPV4_CKSUM" in capa and "TCP_CKSUM" in capa,
                "mode=skb: the checksum offloads offered (the driver checks the headers)", capa)
        t.quit_testpmd(tp, net)
    prog_id, _ = bpf.attach_object(port, bpf.obj("xdp_no_xsks_map"))
    with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly",
                         app_extra=["--rx-offloads=0x%x" % RX_OFFLOAD_VLAN_STRIP]) as tp:
        t.equal(state.read(tp).get("state"), "stopped",
                "foreign program: the port with Rx offloads does not start")
        t.equal(bpf.attached_prog_id(port), prog_id, "foreign program: still attached, same id")
        t.equal(tp.quit()[0], 0, "foreign program: testpmd exit code after quit")
    port.ip("link", "set", "dev", port.name, "xdp", "off")


def offer_state(t, ctx, what, wrapper=()):
    """A port asking for nothing, on a veth of its own: (its state block,
    `show port 0 rx_offload capabilities`)."""
    port, _ = ctx.net.veth(ctx.dut, ctx.iface(), ctx.gen, ctx.iface("g"))
    with testpmd.TestPmd(ctx.dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly",
                         wrapper=wrapper) as tp:
        st = state.read(tp)
        capa = tp.cmd("show port 0 rx_offload capabilities")
        t.require(st.get("state") == "started", "%s: the port without offloads started" % what)
        t.quit_testpmd(tp, ctx.net)
    return st, capa


def check_offered(t, ctx):
    """What the port offers is what the kernel loads."""
    st, capa = offer_state(t, ctx, "offered")
    meta = ("RSS_HASH", "VLAN_STRIP", "TIMESTAMP")
    t.equal(st.get("rx.offloads.capa.probed"), META_CAPA,
            "offered: state rx.offloads.capa.probed (what veth's netlink lists, and the stamp)")
    if ctx.meta_refusal is None:
        t.equal((st.get("rx.offloads.capa"), st.get("rx.offloads.capa.reason"),
                 st.get("rx.offloads.capa.refused")), (META_CAPA, "iface-kfuncs", None),
                "offered: the kernel loads the program: state rx.offloads.capa, reason, refused")
        t.check(all(c in capa for c in meta), "offered: RSS_HASH, VLAN_STRIP, TIMESTAMP", capa)
        return
    env.log("this kernel refuses %s: %s" % (ADJUST_META, ctx.meta_refusal))
    t.equal((st.get("rx.offloads.capa"), st.get("rx.offloads.capa.reason"),
             st.get("rx.offloads.capa.refused")), ("none", "kernel-refused", ADJUST_META),
            "offered: the kernel refuses %s: state rx.offloads.capa, reason, refused"
            % ADJUST_META)
    t.check(not any(c in capa for c in meta), "offered: none of RSS_HASH, VLAN_STRIP, "
            "TIMESTAMP offered where the kernel refuses the program", capa)


def check_refused(t, ctx):
    """bpf_xdp_adjust_meta refused on demand: nothing offered, the refusal
    said, an application asking for it refused at configure, and a port
    asking nothing receives as ever."""
    with faults.Refusal("helper:" + ADJUST_META) as r:
        st, capa = offer_state(t, ctx, "refused", wrapper=r.wrapper())
        t.check(r.seen("helper", ADJUST_META), "refused: the driver's probe met the refusal "
                "(the fault library's log)", str(r.refused()))
        t.equal((st.get("rx.offloads.capa"), st.get("rx.offloads.capa.reason"),
                 st.get("rx.offloads.capa.probed"), st.get("rx.offloads.capa.refused")),
                ("none", "kernel-refused", META_CAPA, ADJUST_META),
                "refused: state rx.offloads.capa, reason, probed, refused")
        t.check(not any(c in capa for c in ("RSS_HASH", "VLAN_STRIP", "TIMESTAMP")),
                "refused: none of RSS_HASH, VLAN_STRIP, TIMESTAMP offered", capa)
        t.check("IPV4_CKSUM" in capa, "refused: the checksum offloads still offered", capa)

        port, peer = ctx.net.veth(ctx.dut, ctx.iface(), ctx.gen, ctx.iface("g"), queues=2)
        with testpmd.TestPmd(ctx.dut, ["net_af_xdp0,iface=%s,queue_count=2" % port.name],
                             fwd="rxonly", queues=2, wrapper=r.wrapper(),
                             app_extra=["--rx-offloads=0x%x" % RX_OFFLOAD_RSS_HASH]) as tp:
            t.equal(state.read(tp).get("state"), "stopped",
                    "refused: a port asking RSS_HASH is refused at configure (stays stopped)")
            t.equal(bpf.attached_prog_id(port), None, "refused: no XDP program on the interface")
            t.quit_testpmd(tp, ctx.net)
        with testpmd.TestPmd(ctx.dut, ["net_af_xdp0,iface=%s,queue_count=2" % port.name],
                             fwd="rxonly", queues=2, wrapper=r.wrapper()) as tp:
            st = state.read(tp)
            t.require(st.get("state") == "started", "refused: two queues, no offload: started")
            t.equal((st.get("rx.offloads.implied"), st.get("rx.offloads"),
                     st.get("xdp.program")), ("none", "none", "afxdp_map"),
                    "refused: state rx.offloads.implied, rx.offloads, xdp.program")
            count = FLOWS * PER_FLOW
            tp.cmd("start")
            traffic.send(peer, port.mac, count, SIZES, kind="udp", flows=FLOWS,
                         stream="refused")
            stats = tp.wait_rx(0, count)
            tp.cmd("stop")
            t.equal((stats["RX-packets"], stats["RX-missed"]), (count, 0),
                    "refused: RX-packets, RX-missed")
            t.quit_testpmd(tp, ctx.net)


def check_refused_kfunc(t, ctx):
    """The VLAN tag's function refused on demand: the program is refused
    whatever it is asked to fetch, and said so."""
    with faults.Refusal("kfunc:" + VLAN_KFUNC) as r:
        st, capa = offer_state(t, ctx, "refused_kfunc", wrapper=r.wrapper())
        t.check(r.seen("kfunc", VLAN_KFUNC), "refused_kfunc: the driver's probe met the "
                "refusal (the fault library's log)", str(r.refused()))
        t.equal((st.get("rx.offloads.capa"), st.get("rx.offloads.capa.reason"),
                 st.get("rx.offloads.capa.refused")), ("none", "kernel-refused", VLAN_KFUNC),
                "refused_kfunc: state rx.offloads.capa, reason, refused")
        t.check(not any(c in capa for c in ("RSS_HASH", "VLAN_STRIP", "TIMESTAMP")),
                "refused_kfunc: none of RSS_HASH, VLAN_STRIP, TIMESTAMP offered", capa)


class Context:
    """The checks' topology, and what the kernel allows the Rx-metadata
    program, asked of it (not of the driver)."""

    def __init__(self, net):
        self.net, self.dut, self.gen = net, net.netns("dut"), net.netns("gen")
        self.meta_refusal = kernel.helper_refusal(ADJUST_META)
        self._n = 5                     # d0..d4 are the checks' own

    def iface(self, side="d"):
        """A fresh veth end's name: d5, d6, ... (g5, g6, ... for the peer)."""
        if side == "d":
            self._n += 1
        return "%s%d" % (side, self._n)

    def offers(self, what):
        """Whether a port here can have `what` (rss_hash, vlan_strip, timestamp)."""
        return self.meta_refusal is None

    def need(self, what):
        """Skip the check where the kernel refuses what it checks."""
        if not self.offers(what):
            raise env.Skip("the kernel refuses the Rx-metadata program (%s: %s): no %s "
                           "to check here; rx_offloads/offered and /refused check the "
                           "refusal" % (ADJUST_META, self.meta_refusal, what))


@contextlib.contextmanager
def setup(t):
    with topo.Topology() as net:
        yield Context(net)


CHECKS = [
    ("offered", check_offered),
    ("refused", check_refused),
    ("refused_kfunc", check_refused_kfunc),
    ("rss_hash", check_rss_hash),
    ("vlan_strip", check_vlan_strip),
    ("vlan_join", check_vlan_join),
    ("timestamp", check_timestamp),
    ("ipv4_cksum", check_ipv4_cksum),
    ("refusals", check_refusals),
]


if __name__ == "__main__":
    runner.run_session("rx_offloads", __doc__.splitlines()[0], setup, CHECKS)
