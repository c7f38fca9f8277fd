# SPDX-License-Identifier: BSD-3-Clause
"""Injecting and capturing test frames from inside a namespace: each raw
socket lives in the interface's namespace.  A burst is sent from this
process, on a socket a thread made there (env.in_netns); receivers and
paced background senders are frames.py, run by `ip netns exec`."""

import json
import os
import subprocess
import sys

from . import cleanup, env, frames

FRAMES_PY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "frames.py")

# Sizes of whole frames (no FCS) for exact-count tests: minimum, common, MTU-sized.
SIZES = [60, 64, 128, 512, 1000, 1500]


def tag():
    return env.run_id()


def _common(iface, src, dst, count, sizes, kind, flows, stream):
    return ["--iface", iface.name, "--kind", kind, "--src", src, "--dst", dst,
            "--tag", "%s/%s" % (tag(), stream), "--count", str(count),
            "--sizes", ",".join(str(s) for s in sizes), "--flows", str(flows)]


def send(iface, dst, count, sizes=SIZES, kind="raw", flows=1, src=None, stream="s"):
    """Send `count` frames out of `iface` (cycling through `sizes`), from this
    process on a socket made in iface's namespace; returns frames.py's report
    {'sent', 'bytes', 'enobufs_retries'}."""
    src = src or iface.mac
    for s in sizes:
        if s < frames.MIN_SIZE[kind]:
            raise env.HarnessError("%s frames need at least %d bytes, got %d"
                                   % (kind, frames.MIN_SIZE[kind], s))
    sock = env.in_netns(iface.ns.name, lambda: frames.packet_socket(iface.name))
    try:
        res = frames.send_on(sock, kind, frames.mac_bytes(src), frames.mac_bytes(dst),
                             frames.tag_bytes("%s/%s" % (tag(), stream)), count, sizes, flows)
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


class _FramesChild:
    """A frames.py receiver in the interface's namespace: started by `with`,
    which returns once it has bound (it prints READY); its JSON result read
    when the block ends. Subclasses set `what`, `args`, `timeout`, and turn
    the JSON into `result` in _result()."""

    what = "receiver"

    def __init__(self, iface, args, timeout):
        cleanup.install()
        self.iface = iface
        self.args = args
        self.timeout = timeout
        self.proc = None
        self.result = None
        self._undo = None

    def __enter__(self):
        self._undo = cleanup.push("%s on %s" % (self.what, self.iface), self._kill)
        self.proc = env.popen(self.args, ns=self.iface.ns.name, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()   # READY once bound (or EOF on error)
        if line.strip() != "READY":
            err = self.proc.stderr.read()
            cleanup.release(self._undo)
            raise env.HarnessError("%s on %s did not start: %s%s" % (self.what, self.iface,
                                                                     line, err))
        return self

    def __exit__(self, exc_type, *exc):
        if exc_type is not None:
            cleanup.release(self._undo)
            return False
        try:
            out, err = self.proc.communicate(timeout=env.scaled(self.timeout + 30))
        except Exception:
            cleanup.release(self._undo)
            raise env.HarnessError("%s on %s did not finish" % (self.what, self.iface)) from None
        cleanup.release(self._undo)
        if self.proc.returncode != 0:
            raise env.HarnessError("%s on %s failed (exit %d): %s"
                                   % (self.what, self.iface, self.proc.returncode, err))
        self._result(json.loads(out.strip().splitlines()[-1]))
        return False

    def _result(self, doc):
        self.result = doc

    def _kill(self):
        if self.proc:
            env.end_process(self.proc)


class Capture(_FramesChild):
    """Capture and verify one stream on `iface` (frames.py capture), e.g.

        with Capture(h1, src=h0.mac, dst=h1.mac, count=n) as cap:
            traffic.send(h0, h1.mac, n)
        res = cap.result   # {'received', 'missing', 'corrupt', 'duplicates', ...}
    """

    what = "capture"

    def __init__(self, iface, src, dst, count, sizes=SIZES, kind="raw", flows=1,
                 stream="s", timeout=30, settle=0.5):
        super().__init__(iface, [sys.executable, FRAMES_PY, "capture", "--timeout", str(timeout),
                                 "--settle", str(settle)]
                         + _common(iface, src, dst, count, sizes, kind, flows, stream),
                         timeout)

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


class Background:
    """Paced frames sent from `iface` while the block runs (frames.py send
    --rate), e.g. so that a port is stopped and started under traffic:

        with Background(peer, port.mac, rate=2000, kind="udp"):
            ...

    The sender is ended when the block ends; it gives up by itself after
    `max_seconds`. Nothing is counted: the tests count what arrived."""

    def __init__(self, iface, dst, rate, kind="udp", sizes=(128,), flows=1,
                 stream="background", max_seconds=300):
        cleanup.install()
        self.iface = iface
        self.args = [sys.executable, FRAMES_PY, "send", "--rate", str(rate)] + _common(
            iface, iface.mac, dst, int(rate * max_seconds), list(sizes), kind, flows, stream)
        self.proc = None
        self._undo = None

    def __enter__(self):
        self._undo = cleanup.push("background sender on %s" % self.iface, self._kill)
        self.proc = env.popen(self.args, ns=self.iface.ns.name,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is not None and self.proc.returncode != 0:
            err = self.proc.stderr.read()
            cleanup.release(self._undo)
            raise env.HarnessError("background sender on %s failed (exit %d): %s"
                                   % (self.iface, self.proc.returncode, err))
        cleanup.release(self._undo)
        return False

    def _kill(self):
        if self.proc:
            env.end_process(self.proc)
        if self.proc and self.proc.stderr:
            self.proc.stderr.close()


class Sniff(_FramesChild):
    """The length, ethertype and addresses of the first `count` frames of
    any kind arriving on `iface` (frames.py sniff); `result` is a list of
    {'length', 'ethertype', 'src', 'dst'}."""

    what = "sniffer"

    def __init__(self, iface, count, timeout=15):
        super().__init__(iface, [sys.executable, FRAMES_PY, "sniff", "--iface", iface.name,
                                 "--count", str(count), "--timeout", str(timeout)], timeout)

    def _result(self, doc):
        self.result = doc["frames"]

