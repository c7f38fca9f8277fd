#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Test frames: build, verify, send and capture them on a raw AF_PACKET socket.

Ours, not scapy's: scapy 2.5 takes ~420 us to build a frame and ~110 us to
parse one (this: 1.5 us), and these run per frame at line rate.

Every frame carries a header (magic, a per-run tag, its sequence number, its
size and its flow) and a payload pattern derived from the sequence number, so a
receiver can regenerate the exact frame and compare it byte for byte.

Two kinds:
  raw  Ethernet with the IEEE 802 local experimental ethertype 0x88B5: the
       kernel ignores it, so nothing answers or adds frames; minimum 60 bytes.
  udp  Ethernet + IPv4 + UDP, the UDP source port varying with the flow number,
       so that the kernel's transmit hash spreads flows over a veth's queues;
       minimum 70 bytes.

Used as a library by the tests, and as a script run inside a network namespace
(`ip netns exec NS python3 frames.py send|capture|sniff ...`) that prints one
JSON object with its results on stdout (`capture` and `sniff` first print READY
once bound). `send --rate R` paces the frames (R per second: background
traffic that leaves the cores to the device under test); `sniff` records the
length and ethertype of the first frames of any kind (traffic the tests did not
build, e.g. testpmd's txonly).
Sizes are whole frames without FCS, as AF_PACKET and AF_XDP see them.
"""

import argparse
import errno
import json
import os
import select
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
ETH_P_IP = 0x0800
ETH_P_TEST = 0x88B5        # IEEE 802 local experimental ethertype
PACKET_OUTGOING = 4        # sll_pkttype of frames this host sent
SOL_PACKET = 263
PACKET_STATISTICS = 6
SO_RCVBUFFORCE = 33

MAGIC = b"AXDT"
# magic, run tag, sequence number, frame size, flow
TEST_HDR = struct.Struct("!4s4sIHH")
ETH_HLEN = 14
IP_HLEN = 20
UDP_HLEN = 8
UDP_DST_PORT = 9           # discard
UDP_SRC_PORT_BASE = 20000
IP_SRC = bytes([198, 18, 0, 1])    # RFC 2544 benchmarking range
IP_DST = bytes([198, 18, 1, 1])

MIN_SIZE = {"raw": ETH_HLEN + TEST_HDR.size,
            "udp": ETH_HLEN + IP_HLEN + UDP_HLEN + TEST_HDR.size}
MAX_SIZE = 9018      # a 9000-byte MTU, its Ethernet header and a VLAN tag

# The payload pattern: a window into a repeating 0..255 ramp, its start
# depending on the sequence number, so that a frame delivered with another
# frame's payload (or shifted by some bytes) does not verify.
_RAMP = bytes(range(256)) * ((MAX_SIZE // 256) + 2)

# Sender: how long to back off when the device queue is full, and how many
# times in a row before giving up (veth's XDP receive ring is small, so a raw
# socket sender outruns it and gets ENOBUFS: the frame was not sent).
SEND_BACKOFF_S = 0.0005
SEND_MAX_RETRIES = 20000


def _deadline(seconds):
    """A deadline, stretched by AFXDP_TIME_SCALE (a slow VM): this file also
    runs on its own in a namespace, so it reads the variable itself."""
    return time.monotonic() + seconds * float(os.environ.get("AFXDP_TIME_SCALE") or 1)


def mac_bytes(mac):
    parts = mac.split(":")
    if len(parts) != 6:
        raise ValueError("bad MAC address %r" % mac)
    return bytes(int(p, 16) for p in parts)


def tag_bytes(tag):
    """The run tag: any string, hashed down to 4 bytes."""
    raw = tag.encode()
    if len(raw) == 4:
        return raw
    h = 2166136261
    for b in raw:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return struct.pack("!I", h)


def size_of(seq, sizes):
    return sizes[seq % len(sizes)]


def flow_of(seq, flows):
    return seq % flows


def ip_checksum(hdr):
    """The Internet checksum (RFC 1071) of `hdr`: 0 over a header whose
    checksum field is right."""
    total = 0
    for i in range(0, len(hdr), 2):
        total += (hdr[i] << 8) | hdr[i + 1]
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return (~total) & 0xFFFF


def build(kind, seq, size, src, dst, tag, flow=0):
    """One frame of exactly `size` bytes. src/dst are 6-byte MACs, tag 4 bytes."""
    if size < MIN_SIZE[kind] or size > MAX_SIZE:
        raise ValueError("%s frame size %d out of range %d..%d"
                         % (kind, size, MIN_SIZE[kind], MAX_SIZE))
    test_hdr = TEST_HDR.pack(MAGIC, tag, seq & 0xFFFFFFFF, size, flow)
    if kind == "raw":
        head = dst + src + struct.pack("!H", ETH_P_TEST) + test_hdr
    elif kind == "udp":
        ip_len = size - ETH_HLEN
        ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, ip_len, seq & 0xFFFF,
                                   0x4000, 64, socket.IPPROTO_UDP, 0, IP_SRC, IP_DST))
        struct.pack_into("!H", ip, 10, ip_checksum(ip))
        udp = struct.pack("!HHHH", UDP_SRC_PORT_BASE + flow, UDP_DST_PORT,
                          ip_len - IP_HLEN, 0)
        head = dst + src + struct.pack("!H", ETH_P_IP) + bytes(ip) + udp + test_hdr
    else:
        raise ValueError("unknown frame kind %r" % kind)
    start = (seq * 31) & 0xFF
    return head + _RAMP[start:start + size - len(head)]


def test_header(kind, frame):
    """(tag, seq, size, flow) if the frame carries our header, else None."""
    off = ETH_HLEN if kind == "raw" else ETH_HLEN + IP_HLEN + UDP_HLEN
    if len(frame) < off + TEST_HDR.size:
        return None
    if kind == "raw" and frame[12:14] != struct.pack("!H", ETH_P_TEST):
        return None
    if kind == "udp" and frame[12:14] != struct.pack("!H", ETH_P_IP):
        return None
    magic, tag, seq, size, flow = TEST_HDR.unpack_from(frame, off)
    if magic != MAGIC:
        return None
    return tag, seq, size, flow


class Verifier:
    """Counts received frames of one stream and checks each byte for byte."""

    def __init__(self, kind, src, dst, tag, sizes, flows, expect):
        self.kind, self.src, self.dst, self.tag = kind, src, dst, tag
        self.sizes, self.flows, self.expect = sizes, flows, expect
        self.seen = set()
        self.duplicates = 0
        self.corrupt = []          # (seq, reason), first few only
        self.corrupt_count = 0
        self.foreign = 0           # frames not of this stream
        self.reordered = 0         # frames behind one of a higher sequence number
        self.highest = -1
        self.bytes = 0
        self.by_size = {}

    def _bad(self, seq, reason):
        self.corrupt_count += 1
        if len(self.corrupt) < 10:
            self.corrupt.append([seq, reason])

    def add(self, frame):
        hdr = test_header(self.kind, frame)
        if hdr is None or hdr[0] != self.tag:
            if self.kind == "raw" and frame[12:14] == struct.pack("!H", ETH_P_TEST):
                # Only this stream uses the ethertype in this namespace.
                self._bad(-1, "ethertype 0x%04x but no valid header for this stream" % ETH_P_TEST)
            else:
                self.foreign += 1
            return
        _, seq, size, flow = hdr
        if seq >= self.expect:
            self._bad(seq, "sequence number beyond the %d sent" % self.expect)
            return
        want_size = size_of(seq, self.sizes)
        if len(frame) != want_size:
            self._bad(seq, "length %d, sent %d" % (len(frame), want_size))
            return
        want = build(self.kind, seq, want_size, self.src, self.dst, self.tag,
                     flow_of(seq, self.flows))
        if frame != want:
            first = next(i for i in range(len(want)) if frame[i] != want[i])
            self._bad(seq, "content differs from byte %d" % first)
            return
        if seq in self.seen:
            self.duplicates += 1
            return
        if seq < self.highest:
            self.reordered += 1
        self.highest = max(self.highest, seq)
        self.seen.add(seq)
        self.bytes += len(frame)
        self.by_size[len(frame)] = self.by_size.get(len(frame), 0) + 1

    def done(self):
        return len(self.seen) >= self.expect

    def result(self):
        missing = [s for s in range(self.expect) if s not in self.seen]
        return {
            "received": len(self.seen), "expected": self.expect,
            "bytes": self.bytes, "duplicates": self.duplicates,
            "corrupt": self.corrupt_count, "corrupt_examples": self.corrupt,
            "foreign": self.foreign, "missing": len(missing), "reordered": self.reordered,
            "missing_examples": missing[:10],
            "by_size": {str(k): v for k, v in sorted(self.by_size.items())},
        }


def expected_bytes(count, sizes):
    return sum(size_of(s, sizes) for s in range(count))


# Paced sending: sleep once the sender is this far ahead of its schedule
# (one sleep per several frames: a sleep costs more than a frame).
PACE_AHEAD_S = 0.002


def packet_socket(iface):
    """A raw AF_PACKET socket bound to iface, for sending."""
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    try:
        sock.bind((iface, 0))
    except OSError:
        sock.close()
        raise
    return sock


def send(iface, kind, src, dst, tag, count, sizes, flows=1, rate=0):
    """Send `count` frames; retries a frame the device could not queue.
    With `rate` > 0, at most `rate` frames per second."""
    sock = packet_socket(iface)
    try:
        return send_on(sock, kind, src, dst, tag, count, sizes, flows, rate)
    finally:
        sock.close()


def send_on(sock, kind, src, dst, tag, count, sizes, flows=1, rate=0, stop=None):
    """send() on a socket of packet_socket(); `stop`, a threading.Event: the
    sender gives up once it is set (a background sender on a thread), the
    report then counting the frames sent."""
    retries = 0
    sent_bytes = 0
    t0 = time.monotonic()
    for seq in range(count):
        if stop is not None and stop.is_set():
            count = seq
            break
        if rate > 0:
            ahead = t0 + seq / rate - time.monotonic()
            if ahead > PACE_AHEAD_S:
                time.sleep(ahead)
        frame = build(kind, seq, size_of(seq, sizes), src, dst, tag, flow_of(seq, flows))
        tries = 0
        while True:
            try:
                n = sock.send(frame)
            except OSError as e:
                if e.errno not in (errno.ENOBUFS, errno.EAGAIN):
                    raise
                tries += 1
                retries += 1
                if stop is not None and stop.is_set():
                    return {"sent": seq, "bytes": sent_bytes, "enobufs_retries": retries}
                if tries > SEND_MAX_RETRIES:
                    raise RuntimeError("frame %d: device queue still full after %d retries"
                                       % (seq, tries)) from e
                time.sleep(SEND_BACKOFF_S)
                continue
            if n != len(frame):
                raise RuntimeError("frame %d: sent %d of %d bytes" % (seq, n, len(frame)))
            sent_bytes += n
            break
    return {"sent": count, "bytes": sent_bytes, "enobufs_retries": retries}


def _bound_socket(iface, rcvbuf=None):
    """A raw AF_PACKET socket bound to iface that receives every frame (with
    a receive buffer of `rcvbuf` bytes if given), nothing queued from before
    its bind."""
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    try:
        if rcvbuf is not None:
            try:
                sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, rcvbuf)
            except OSError:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.bind((iface, 0))
        # Frames queued between socket() and bind() may come from any interface.
        while select.select([sock], [], [], 0)[0]:
            sock.recv(65536)
    except OSError:
        sock.close()
        raise
    return sock


def capture_socket(iface):
    """_bound_socket() with room for many frames."""
    return _bound_socket(iface, 32 << 20)


# How often a receiver on a thread looks at its `stop` event.
STOP_POLL_S = 0.2


def capture(iface, verifier, timeout, settle, ready=None):
    """Capture until all expected frames arrived (then `settle` more seconds, to
    catch duplicates and extras) or until `timeout` seconds passed."""
    sock = capture_socket(iface)
    if ready:
        ready()
    return capture_on(sock, verifier, timeout, settle)


def capture_on(sock, verifier, timeout, settle, stop=None):
    """capture() on a socket of capture_socket(), which it closes; `stop`, a
    threading.Event, ends it early (a receiver on a thread whose test failed)."""
    deadline = _deadline(timeout)
    settle_end = None
    try:
        while stop is None or not stop.is_set():
            now = time.monotonic()
            end = deadline if settle_end is None else min(deadline, settle_end)
            if now >= end:
                break
            wait = end - now if stop is None else min(end - now, STOP_POLL_S)
            if not select.select([sock], [], [], wait)[0]:
                continue
            frame, addr = sock.recvfrom(65536)
            if addr[2] == PACKET_OUTGOING:
                continue
            verifier.add(frame)
            if settle_end is None and verifier.done():
                settle_end = time.monotonic() + settle
        stats = sock.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8)
        _, drops = struct.unpack("II", stats)
    finally:
        sock.close()
    res = verifier.result()
    res["socket_drops"] = drops
    return res


def sniff(iface, count, timeout, ready=None):
    """The length, ethertype and addresses of the first `count` frames of any
    kind received on `iface` (within `timeout` seconds)."""
    sock = sniff_socket(iface)
    if ready:
        ready()
    return sniff_on(sock, count, timeout)


def sniff_socket(iface):
    """_bound_socket() with the default receive buffer."""
    return _bound_socket(iface)


def sniff_on(sock, count, timeout, stop=None):
    """sniff() on a socket of sniff_socket(), which it closes; `stop` as
    capture_on()'s."""
    seen = []
    deadline = _deadline(timeout)
    try:
        while len(seen) < count and (stop is None or not stop.is_set()):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if not select.select([sock], [], [], left if stop is None
                                 else min(left, STOP_POLL_S))[0]:
                continue
            frame, addr = sock.recvfrom(65536)
            if addr[2] == PACKET_OUTGOING:
                continue
            ethertype = struct.unpack("!H", frame[12:14])[0] if len(frame) >= 14 else None
            seen.append({"length": len(frame), "ethertype": ethertype,
                         "dst": ":".join("%02x" % b for b in frame[0:6]),
                         "src": ":".join("%02x" % b for b in frame[6:12])})
    finally:
        sock.close()
    return {"frames": seen}


def _sizes(text):
    return [int(s) for s in text.split(",") if s]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=["send", "capture", "sniff"])
    ap.add_argument("--iface", required=True)
    ap.add_argument("--kind", choices=["raw", "udp"], default="raw")
    ap.add_argument("--src", help="source MAC written in the frames (send, capture)")
    ap.add_argument("--dst", help="destination MAC written in the frames (send, capture)")
    ap.add_argument("--tag", help="run tag that marks this stream (send, capture)")
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--sizes", type=_sizes, help="comma-separated frame sizes (send, capture)")
    ap.add_argument("--flows", type=int, default=1)
    ap.add_argument("--rate", type=float, default=0,
                    help="send: frames per second (default: as fast as the device takes them)")
    ap.add_argument("--timeout", type=float, default=20.0, help="capture: give up after")
    ap.add_argument("--settle", type=float, default=0.5,
                    help="capture: keep listening this long after the last expected frame")
    a = ap.parse_args(argv)

    def ready():
        sys.stdout.write("READY\n")
        sys.stdout.flush()
    if a.mode == "sniff":
        sys.stdout.write(json.dumps(sniff(a.iface, a.count, a.timeout, ready)) + "\n")
        sys.stdout.flush()
        return 0
    for opt in ("src", "dst", "tag", "sizes"):
        if getattr(a, opt) is None:
            ap.error("%s needs --%s" % (a.mode, opt))
    src, dst, tag = mac_bytes(a.src), mac_bytes(a.dst), tag_bytes(a.tag)
    for s in a.sizes:
        if s < MIN_SIZE[a.kind]:
            ap.error("%s frames need at least %d bytes, got %d" % (a.kind, MIN_SIZE[a.kind], s))
    if a.mode == "send":
        res = send(a.iface, a.kind, src, dst, tag, a.count, a.sizes, a.flows, a.rate)
    else:
        ver = Verifier(a.kind, src, dst, tag, a.sizes, a.flows, a.count)
        res = capture(a.iface, ver, a.timeout, a.settle, ready)
    sys.stdout.write(json.dumps(res) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
