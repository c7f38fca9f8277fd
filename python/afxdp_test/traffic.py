# SPDX-License-Identifier: BSD-3-Clause
"""Injecting and capturing test frames from inside a namespace: each raw
socket lives in the interface's namespace, made there by a thread
(env.in_netns).  A burst is sent from this process; receivers and paced
background senders run on threads of this process (no python to start)."""

import threading

from . import env, frames

# Sizes of whole frames (no FCS) for exact-count tests: minimum, common, MTU-sized.
SIZES = [60, 64, 128, 512, 1000, 1500]


def tag():
    return env.run_id()


def _check_sizes(kind, sizes):
    """HarnessError unless every size holds a `kind` frame's headers and tag."""
    for s in sizes:
        if s < frames.MIN_SIZE[kind]:
            raise env.HarnessError("%s frames need at least %d bytes, got %d"
                                   % (kind, frames.MIN_SIZE[kind], s))


def _stream_tag(stream):
    """The bytes that mark this run's frames of `stream`."""
    return frames.tag_bytes("%s/%s" % (tag(), stream))


def send(iface, dst, count, sizes=SIZES, kind="raw", flows=1, src=None, stream="s"):
    """Send `count` frames out of `iface` (cycling through `sizes`), from this
    process on a socket made in iface's namespace; returns frames.py's report
    {'sent', 'bytes', 'enobufs_retries'}."""
    src = src or iface.mac
    _check_sizes(kind, sizes)
    sock = env.in_netns(iface.ns.name, lambda: frames.packet_socket(iface.name))
    try:
        res = frames.send_on(sock, kind, frames.mac_bytes(src), frames.mac_bytes(dst),
                             _stream_tag(stream), count, sizes, flows)
    finally:
        sock.close()
    env.log("sent %d %s frames (%d bytes) on %s, sizes %s%s" % (
        res["sent"], kind, res["bytes"], iface, ",".join(map(str, sizes)),
        ", %d ENOBUFS retries" % res["enobufs_retries"] if res["enobufs_retries"] else ""))
    return res


def send_spread(port, peer, count, sizes, flows, stream="spread"):
    """Send `count` UDP frames of `flows` flows from `peer` to `port`, which
    veth spreads over port's queues; returns the kernel's per-queue count of
    them (veth's rx_queue_N_xdp_packets). HarnessError unless every queue got
    some."""
    kbefore = port.kernel_rx_queue_packets()
    send(peer, port.mac, count, sizes, kind="udp", flows=flows, stream=stream)
    kernel = [a - b for a, b in zip(port.kernel_rx_queue_packets(), kbefore)]
    env.log("kernel per-queue receive (veth rx_queue_N_xdp_packets): %s" % kernel)
    if sum(kernel) != count or min(kernel) == 0:
        raise env.HarnessError("the sender did not spread %d frames over %d queues "
                               "(veth counted %s)" % (count, port.queues, kernel))
    return kernel


class _Thread:
    """A receiver or sender on a thread of this process, on a socket made in
    the interface's namespace (env.in_netns): under the VM's emulated CPU a
    python of its own to start costs seconds (3 to 4 s each, measured in
    vm-zc/restart, two a cycle), a thread nothing. Started by `with`, which
    returns once the socket is bound; the block's end waits for the thread
    (a receiver's deadline) or, if the block raised, stops it. Subclasses
    set `what` and `timeout` and define _socket() and _work(sock, stop)."""

    what = "receiver"

    def __init__(self, iface, timeout):
        self.iface = iface
        self.timeout = timeout
        self.result = None
        self._stop = threading.Event()
        self._out = {}
        self._thread = None

    def __enter__(self):
        sock = env.in_netns(self.iface.ns.name, self._socket)

        def body():
            try:
                self._out["value"] = self._work(sock, self._stop)
            except BaseException as e:      # reported by __exit__
                self._out["error"] = e
        self._thread = threading.Thread(target=body, daemon=True,
                                        name="%s on %s" % (self.what, self.iface))
        self._thread.start()
        return self

    def _end(self, timeout):
        """Wait up to `timeout` seconds for the thread: its value, or HarnessError."""
        self._thread.join(timeout)
        if self._thread.is_alive():
            self._stop.set()
            self._thread.join(5)
            raise env.HarnessError("%s on %s did not finish" % (self.what, self.iface))
        if "error" in self._out:
            raise env.HarnessError("%s on %s failed: %r"
                                   % (self.what, self.iface, self._out["error"]))
        return self._out["value"]

    def __exit__(self, exc_type, *exc):
        if exc_type is not None:
            self._stop.set()
            self._thread.join(5)
            return False
        self._result(self._end(env.scaled(self.timeout + 30)))
        return False

    def _result(self, doc):
        self.result = doc


class Capture(_Thread):
    """Capture and verify one stream on `iface` (frames.capture_on), e.g.

        with Capture(h1, src=h0.mac, dst=h1.mac, count=n) as cap:
            traffic.send(h0, h1.mac, n)
        res = cap.result   # {'received', 'missing', 'corrupt', 'duplicates', ...}
    """

    what = "capture"

    def __init__(self, iface, src, dst, count, sizes=SIZES, kind="raw", flows=1,
                 stream="s", timeout=30, settle=0.5):
        super().__init__(iface, timeout)
        self.settle = settle
        self.verifier = frames.Verifier(kind, frames.mac_bytes(src), frames.mac_bytes(dst),
                                        _stream_tag(stream),
                                        list(sizes), flows, count)
        _check_sizes(kind, sizes)

    def _socket(self):
        return frames.capture_socket(self.iface.name)

    def _work(self, sock, stop):
        return frames.capture_on(sock, self.verifier, self.timeout, self.settle, stop)

    def _result(self, doc):
        self.result = doc
        env.log("captured on %s: %s" % (self.iface, summary(doc)))


def summary(res):
    s = "%d/%d frames intact, %d bytes" % (res["received"], res["expected"], res["bytes"])
    for k in ("missing", "corrupt", "duplicates", "socket_drops"):
        if res.get(k):
            s += ", %d %s" % (res[k], k.replace("_", " "))
    if res.get("corrupt_examples"):
        s += "; corrupt e.g. %s" % res["corrupt_examples"][:3]
    if res.get("missing_examples"):
        s += "; missing seq e.g. %s" % res["missing_examples"][:5]
    return s


def all_intact(res, in_order=False):
    """Every frame, once, byte for byte (and with in_order, in the order sent)."""
    return (res["received"] == res["expected"] and not res["corrupt"]
            and not res["duplicates"] and not res["missing"]
            and (not in_order or not res.get("reordered")))


expected_bytes = frames.expected_bytes


class Background(_Thread):
    """Paced frames sent from `iface` while the block runs (frames.send_on
    with a rate, on a thread), e.g. so that a port is stopped and started
    under traffic:

        with Background(peer, port.mac, rate=2000, kind="udp"):
            ...

    The sender is stopped when the block ends; it gives up by itself after
    `max_seconds`. Nothing is counted: the tests count what arrived."""

    what = "background sender"

    def __init__(self, iface, dst, rate, kind="udp", sizes=(128,), flows=1,
                 stream="background", max_seconds=300):
        super().__init__(iface, 0)
        self.args = (kind, frames.mac_bytes(iface.mac), frames.mac_bytes(dst),
                     _stream_tag(stream), int(rate * max_seconds),
                     list(sizes), flows, rate)
        _check_sizes(kind, sizes)

    def _socket(self):
        return frames.packet_socket(self.iface.name)

    def _work(self, sock, stop):
        try:
            return frames.send_on(sock, *self.args, stop=stop)
        finally:
            sock.close()

    def __exit__(self, exc_type, *exc):
        self._stop.set()
        if exc_type is not None:
            self._thread.join(5)
            return False
        self._end(10)
        return False


class Sniff(_Thread):
    """The length, ethertype and addresses of the first `count` frames of
    any kind arriving on `iface` (frames.sniff_on); `result` is a list of
    {'length', 'ethertype', 'src', 'dst'}."""

    what = "sniffer"

    def __init__(self, iface, count, timeout=15):
        super().__init__(iface, timeout)
        self.count = count

    def _socket(self):
        return frames.sniff_socket(self.iface.name)

    def _work(self, sock, stop):
        return frames.sniff_on(sock, self.count, self.timeout, stop)

    def _result(self, doc):
        self.result = doc["frames"]
