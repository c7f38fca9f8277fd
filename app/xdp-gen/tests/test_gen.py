#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Integration tests of afxdp-gen on a veth pair between two network namespaces.

    test_gen.py --gen AFXDP_GEN --count-tool XDP_COUNT CASE

CASE is one of: options, counts, counts-pass, threads, packet, afxdp, sigint.
Every case but 'options' needs root and veth support; without them it exits
77 (meson's SKIP).  The generator sends out of one end; the other end, in its
own namespace, counts what arrives three ways that do not depend on each
other: the veth's rx_packets in sysfs, an XDP program (xdp-count) and, in
counts-pass, an AF_PACKET socket behind an XDP_PASS.  IPv6 is off in both
namespaces, so no stray frame joins the count.  Namespaces (and with them
the veths) are removed whatever happens (afxdp_test's topology and clean-up
stack, on PYTHONPATH).

Whatever the kernel allows, the same exact counts hold.  The test asks the
kernel once whether it runs live frames (afxdp_test.kernel.live_frames_refusal(),
by doing it), and every case that used them runs the generator's default,
--method auto, which must then name live frames, or AF_XDP with the
kernel's reason; and runs again with live frames refused on demand
(afxdp_test.faults: the fault library preloaded, AFXDP_REFUSE_LIB), which
must name AF_XDP, so that the fallback runs on every kernel.  What only live
frames do (a peer without NAPI refused) is skipped with the kernel's reason
where it refuses them.
"""

import argparse
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import time

from afxdp_test import env, faults, frames, kernel, reap, topo

SKIP = 77
GEN_MAGIC = 0x7847454E
OFF_THREAD, OFF_MAGIC, OFF_SEQ, OFF_FLOW, OFF_PATTERN = 42, 44, 48, 56, 58

failures = []
# The kernel's answer to live frames: None where it runs them, else its refusal (main sets it).
LIVE_REFUSED = None


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL " + what, flush=True)
    return cond


def run(cmd, timeout=120, check_rc=True):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check_rc and p.returncode != 0:
        raise RuntimeError("%s: exit %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return p


def last_json(text):
    lines = [l for l in text.splitlines() if l.startswith("{")]
    return json.loads(lines[-1]) if lines else None


# ---- topology ----

class Topology:
    """Namespaces <tag>g and <tag>d joined by a veth: gen_if in the first,
    peer_if in the second (afxdp_test.topo: IPv6 off, removed at the end)."""

    def __init__(self, tag, queues=1):
        self.tag, self.queues = tag[:2], queues
        self.net = topo.Topology()

    def __enter__(self):
        try:
            gen, dut = self.net.netns(self.tag + "g"), self.net.netns(self.tag + "d")
            self.gen_end, self.peer = self.net.veth(gen, self.tag + "g", dut, self.tag + "d",
                                                    queues=self.queues)
        except BaseException:
            self.net.close()
            raise
        self.ns_gen, self.ns_dut = gen.name, dut.name
        self.gen_if, self.peer_if = self.gen_end.name, self.peer.name
        return self

    def __exit__(self, *exc):
        self.net.close()

    def rx_packets(self):
        return self.peer.sysfs_stat("rx_packets")

    def gen_cmd(self, args, wrapper=()):
        return (["ip", "netns", "exec", self.ns_gen] + list(wrapper)
                + [opts.gen, "--dev", self.gen_if] + [str(a) for a in args])

    def gen(self, args, timeout=120, wrapper=()):
        return subprocess.run(self.gen_cmd(args, wrapper), capture_output=True, text=True,
                              timeout=timeout)


class Way:
    """One way of running the generator: its options, live frames refused on
    demand or not, and the method its JSON must then name."""

    def __init__(self, name, args=(), refuse=False, expect=None):
        self.name, self.args, self.refuse, self.expect = name, list(args), refuse, expect
        self.refusal = None

    def __enter__(self):
        if self.refuse:
            self.refusal = faults.Refusal("live_frames").__enter__()
        return self

    def __exit__(self, *exc):
        if self.refusal:
            self.refusal.__exit__(*exc)
            self.refusal = None

    def wrapper(self):
        return self.refusal.wrapper() if self.refusal else []

    def gen(self, topo, args, timeout=120):
        return topo.gen(self.args + list(args), timeout=timeout, wrapper=self.wrapper())

    def popen(self, topo, args):
        return subprocess.Popen(topo.gen_cmd(self.args + list(args), self.wrapper()),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def check(self, name, res, expect=None):
        """The method the JSON names, and why the ones before it were not taken."""
        expect = expect or self.expect
        if not res:
            return
        not_taken = res.get("not_taken", {})
        check(res["method"] == expect, "%s: method %s, expected %s (not taken: %s)"
              % (name, res["method"], expect, not_taken))
        if self.refuse:
            check(self.refusal.seen("live_frames"),
                  "%s: live frames were never refused (the fault library's log is empty)" % name)
            check("Operation not permitted" in not_taken.get("live", ""),
                  "%s: the refusal is not given as the reason: %s" % (name, not_taken))
        elif not self.args and LIVE_REFUSED and expect != "live":
            # auto on a kernel that refuses: the generator's reason is the kernel's
            why = LIVE_REFUSED.rsplit(": ", 1)[-1]
            check(why in not_taken.get("live", ""),
                  "%s: live frames not taken for %r, the kernel says %r"
                  % (name, not_taken.get("live"), LIVE_REFUSED))


def auto_ways():
    """--method auto as the kernel allows, then with live frames refused on demand."""
    return [Way("auto", expect="afxdp" if LIVE_REFUSED else "live"),
            Way("auto, live refused", refuse=True, expect="afxdp")]


def live_way():
    """--method live, or None (said, as a skip) where the kernel refuses live frames."""
    return Way("live", ["--method", "live"], expect="live") if not LIVE_REFUSED else None


def skip_live(what):
    print("skip %s: live frames only, and the kernel refuses them (%s)" % (what, LIVE_REFUSED),
          flush=True)


class Receiver:
    """A counting process in the DUT namespace: prints 'ready', then JSON on SIGTERM."""

    def __init__(self, topo, cmd):
        self.p = subprocess.Popen(["ip", "netns", "exec", topo.ns_dut] + cmd,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ready, _, _ = select.select([self.p.stdout], [], [], 20)
        line = self.p.stdout.readline() if ready else ""
        if line.strip() != "ready":
            self.p.kill()
            raise RuntimeError("%s did not start: %s %s" % (cmd[0], line, self.p.stderr.read()))

    def stop(self):
        time.sleep(0.05)	# the last frames are processed in the sender's softirq already
        self.p.send_signal(signal.SIGTERM)
        out, err = self.p.communicate(timeout=60)
        if self.p.returncode != 0:
            raise RuntimeError("receiver failed: %s" % err)
        return last_json(out)

    def kill(self):
        env.end_process(self.p)


def xdp_counter(topo, pass_frames=False):
    return Receiver(topo, [opts.count_tool, "--dev", topo.peer_if] + (["--pass"] if pass_frames else []))


def packet_counter(topo):
    return Receiver(topo, [sys.executable, os.path.abspath(__file__), "--rx-packet", topo.peer_if])


# ---- the AF_PACKET receiver (runs in the DUT namespace) ----

def rx_packet_main(ifname):
    """Receives until SIGTERM; checks every frame it reads; prints JSON."""
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))	# ETH_P_ALL
    s.setsockopt(socket.SOL_SOCKET, 33, 1 << 29)	# SO_RCVBUFFORCE: hold a whole burst
    s.bind((ifname, 3))
    s.setblocking(False)
    pattern = bytes(i & 0xFF for i in range(4096))
    res = {"received": 0, "ours": 0, "bad": 0, "others": 0, "seqs": {}}
    print("ready", flush=True)

    def take(frame):
        res["received"] += 1
        if len(frame) < 60 or struct.unpack("!I", frame[OFF_MAGIC:OFF_MAGIC + 4])[0] != GEN_MAGIC:
            res["others"] += 1
            return
        res["ours"] += 1
        n = len(frame)
        ok = (frames.ip_checksum(frame[14:34]) == 0 and struct.unpack("!H", frame[16:18])[0] == n - 14
              and struct.unpack("!H", frame[38:40])[0] == n - 34
              and frame[OFF_PATTERN:] == pattern[OFF_PATTERN:n])
        if not ok:
            res["bad"] += 1
        thread = struct.unpack("!H", frame[OFF_THREAD:OFF_THREAD + 2])[0]
        seq = struct.unpack("!Q", frame[OFF_SEQ:OFF_SEQ + 8])[0]
        res["seqs"].setdefault(str(thread), []).append(seq)

    while True:
        try:
            take(s.recv(65536))
            continue
        except BlockingIOError:
            pass
        if stop:
            break
        select.select([s], [], [], 0.05)
    # tp_packets counts every frame that reached the socket, read or dropped
    tp_packets, tp_drops = struct.unpack("II", s.getsockopt(263, 6, 8))	# SOL_PACKET, PACKET_STATISTICS
    res["tp_packets"], res["tp_drops"] = tp_packets, tp_drops
    for t, seqs in res["seqs"].items():
        seqs.sort()
        res["seqs"][t] = {"n": len(seqs), "unique": len(set(seqs)),
                          "first": seqs[0], "last": seqs[-1]}
    print(json.dumps(res), flush=True)
    return 0


# ---- checks ----

def check_seqs(name, counted, n, result):
    """Sequence numbers 0..n-1, each once, when no frame had to be sent again."""
    if result.get("resent", 0) or result.get("threads", 1) != 1:
        return
    check(counted["thr_frames"] == [n], "%s: frames by thread %s, expected [%d]" % (name, counted["thr_frames"], n))
    check(counted["thr_seq_end"] == [n], "%s: highest sequence %s, expected %d" % (name, counted["thr_seq_end"], n - 1))
    check(counted["thr_seq_sum"] == [n * (n - 1) // 2],
          "%s: sequence numbers are not 0..%d once each" % (name, n - 1))


def send_and_count(topo, name, n, size, gen_args=(), pass_frames=False, way=None, expect=None):
    """Sends n frames of size bytes the way `way` says (default: auto as the
    kernel allows); checks every count, and the method; returns the
    generator's JSON."""
    way = way or auto_ways()[0]
    nfail = len(failures)
    xdp = xdp_counter(topo, pass_frames)
    pkt = None
    try:
        if pass_frames:
            pkt = packet_counter(topo)
        before = topo.rx_packets()
        p = way.gen(topo, ["--count", n, "--size", size, "--json", "--quiet"] + list(gen_args))
        delta = topo.rx_packets() - before
        counted = xdp.stop()
        seen = pkt.stop() if pkt else None
    finally:
        xdp.kill()
        if pkt:
            pkt.kill()
    res = last_json(p.stdout)
    if not check(p.returncode == 0 and res, "%s: exit %d\n%s%s" % (name, p.returncode, p.stdout, p.stderr)):
        return None
    way.check(name, res, expect)
    check(res["sent"] == n, "%s: the generator says it sent %d" % (name, res["sent"]))
    check(res["verified"], "%s: the generator could not verify its count" % name)
    if res["method"] == "afxdp":
        # every frame built again replaced one the veth dropped: no more, no fewer
        check(res["resent"] == res["dropped"] and res["built"] == n + res["dropped"],
              "%s: built %d, dropped %d, re-sent %d" % (name, res["built"], res["dropped"], res["resent"]))
    check(delta == n, "%s: sysfs rx_packets grew by %d" % (name, delta))
    check(counted["frames"] == n and counted["ours"] == n,
          "%s: XDP counted %d frames, %d ours" % (name, counted["frames"], counted["ours"]))
    check(counted["bytes"] == n * size, "%s: XDP counted %d bytes" % (name, counted["bytes"]))
    check(counted["bad_csum"] == 0 and counted["bad_len"] == 0,
          "%s: %d bad checksums, %d bad lengths" % (name, counted["bad_csum"], counted["bad_len"]))
    check_seqs(name, counted, n, res)
    if seen is not None:
        check(seen["tp_packets"] == n, "%s: AF_PACKET saw %d frames" % (name, seen["tp_packets"]))
        check(seen["bad"] == 0 and seen["others"] == 0,
              "%s: AF_PACKET read %d bad and %d foreign frames" % (name, seen["bad"], seen["others"]))
        if seen["tp_drops"] == 0 and not res["resent"]:
            check(seen["seqs"].get("0") == {"n": n, "unique": n, "first": 0, "last": n - 1},
                  "%s: AF_PACKET sequence numbers %s" % (name, seen["seqs"]))
    print("%s %-40s sent %7d in %.3f s, dropped %d, re-sent %d, %s" %
          ("ok  " if len(failures) == nfail else "FAIL", name, res["sent"], res["seconds"],
           res["dropped"], res["resent"], res["method"]), flush=True)
    res["counted"] = counted
    return res


COUNTS = (1, 63, 64, 65, 1000, 100000)
SIZES = (60, 64, 512, 1500)


def peer_without_napi(topo):
    """Live frames into a peer without NAPI (no XDP program, GRO off): the veth
    drops them uncounted, and the generator must say so."""
    way = live_way()
    if not way:
        skip_live("a peer without NAPI refused, explained")
        return
    for n in (10, 100000):
        p = way.gen(topo, ["--count", n])
        check(p.returncode == 1 and "takes no XDP frame" in p.stderr and "warning" not in p.stderr,
              "refused %d: exit %d\n%s" % (n, p.returncode, p.stderr))
    print("ok   peer without XDP: refused, explained", flush=True)


def case_counts():
    with Topology("co") as topo:
        peer_without_napi(topo)
        for way in auto_ways():
            with way:
                for size in SIZES:
                    for n in COUNTS:
                        send_and_count(topo, "%s %d x %dB" % (way.name, n, size), n, size, way=way)
                send_and_count(topo, "%s 100000 x 64B, 16 flows" % way.name, 100000, 64,
                               ["--flows", 16], way=way)


def case_counts_pass():
    with Topology("cp") as topo:
        for way in auto_ways():
            with way:
                for size in (60, 1500):
                    for n in (1, 65, 1000, 100000):
                        send_and_count(topo, "%s, pass %d x %dB" % (way.name, n, size), n, size,
                                       pass_frames=True, way=way)


def two_queues(topo, way):
    """Two threads pinned to two CPUs: live frames go into the peer's queue
    cpu % 2, AF_XDP's into queue thread % 2: one each, exactly."""
    n = 200000
    res = send_and_count(topo, "%s, 2 threads, 2 queues" % way.name, n, 64,
                         ["--threads", 2, "--cpus", "0,1", "--flows", 4], way=way)
    if res:
        c = res["counted"]
        # thread i sends into the peer's queue i; flows take turns
        check(c["thr_frames"] == [n // 2] * 2, "threads: frames by thread %s" % c["thr_frames"])
        check(c["queue"] == [n // 2] * 2, "threads: frames by queue %s" % c["queue"])
        check(c["flow"] == [n // 4] * 4, "threads: frames by flow %s" % c["flow"])


def one_queue(topo, way, expect):
    """Two threads, one queue.  Live frames: the veth's counters race, so the
    generator may not vouch for its count; it must still finish and say so.
    AF_XDP needs a queue per thread: auto passes it over for AF_PACKET, exact."""
    xdp = xdp_counter(topo)
    try:
        p = way.gen(topo, ["--count", 300000, "--threads", 2, "--json"])
        counted = xdp.stop()
    finally:
        xdp.kill()
    res = last_json(p.stdout)
    name = "%s, 2 threads, 1 queue" % way.name
    check(p.returncode == 0 and res, "%s: exit %d\n%s" % (name, p.returncode, p.stderr))
    way.check(name, res, expect)
    if expect == "live":
        check("share one of the peer" in p.stdout, "%s: no note in the header" % name)
    else:
        check("a transmit queue per thread" in (res or {}).get("not_taken", {}).get("afxdp", ""),
              "%s: AF_XDP not taken for another reason: %s" % (name, res and res.get("not_taken")))
        check(res and res["verified"], "%s: not verified" % name)
    if res and res["verified"]:
        check(counted["ours"] == res["sent"] == 300000,
              "%s: sent %d, XDP counted %d" % (name, res["sent"], counted["ours"]))
    print("ok   %-40s sent %s, counted %d, verified %s, %s" %
          (name, res and res["sent"], counted["ours"], res and res["verified"],
           res and res["method"]), flush=True)


def case_threads():
    ncpu = os.cpu_count() or 1
    with Topology("th", queues=2) as topo:
        if ncpu >= 2:
            for way in auto_ways() + [Way("afxdp", ["--method", "afxdp"], expect="afxdp")]:
                with way:
                    two_queues(topo, way)
        else:
            print("skip 2 threads on 2 CPUs: one CPU only", flush=True)
    with Topology("t1") as topo:
        for way in auto_ways():
            with way:
                one_queue(topo, way, "af_packet" if way.expect == "afxdp" else "live")


def case_packet():
    with Topology("pk") as topo:
        way = Way("af_packet", ["--method", "packet"], expect="af_packet")
        for size in (60, 1500):
            for n in (1, 64, 65, 1000, 100000):
                send_and_count(topo, "af_packet %d x %dB" % (n, size), n, size, ["--flows", 3],
                               way=way)
        peer_down(topo, way)


class threaded_napi:
    """The peer's NAPI in kthreads (threaded NAPI; GRO on so that it has NAPI
    whatever is attached), pinned to `cpu`; back to softirq at the end."""

    def __init__(self, topo, cpu):
        self.topo, self.cpu = topo, cpu

    def _set(self, on):
        # threaded NAPI needs NAPI: GRO on before, off after
        t = self.topo
        gro = ["ip", "netns", "exec", t.ns_dut, "ethtool", "-K", t.peer_if, "gro", "on" if on else "off"]
        threaded = ["ip", "netns", "exec", t.ns_dut, "sh", "-c",
                    "echo %d > /sys/class/net/%s/threaded" % (on, t.peer_if)]
        for cmd in (gro, threaded) if on else (threaded, gro):
            run(cmd)

    def __enter__(self):
        self._set(1)
        want = ("napi/" + self.topo.peer_if)[:15]      # comm: 15 characters
        pids, deadline = [], time.monotonic() + 2
        while not pids and time.monotonic() < deadline:
            time.sleep(0.05)
            for e in os.listdir("/proc"):
                try:
                    if e.isdigit() and open("/proc/%s/comm" % e).read().strip().startswith(want):
                        pids.append(int(e))
                except OSError:
                    pass
        if not pids:
            raise RuntimeError("threaded NAPI on %s, but no %s* kthread" % (self.topo.peer_if, want))
        for pid in pids:
            os.sched_setaffinity(pid, {self.cpu})
        return self

    def __exit__(self, *exc):
        self._set(0)


def case_afxdp():
    """--method afxdp, whatever the kernel allows: exact counts at every size a
    UMEM chunk holds (2048 and 4096-byte chunks), flows, a peer without NAPI
    (frames into its stack), and the sizes and queues it cannot do."""
    way = Way("afxdp", ["--method", "afxdp"], expect="afxdp")
    with Topology("ax") as topo:
        for size in SIZES:
            for n in COUNTS:
                send_and_count(topo, "afxdp %d x %dB" % (n, size), n, size, way=way)
        send_and_count(topo, "afxdp 100000 x 64B, 16 flows", 100000, 64, ["--flows", 16], way=way)
        # No XDP program on the peer, GRO off: frames go up its stack, counted all the same.
        for n in (1, 1000, 100000):
            before = topo.rx_packets()
            p = way.gen(topo, ["--count", n, "--json", "--quiet"])
            delta = topo.rx_packets() - before
            res = last_json(p.stdout)
            name = "afxdp %d into a peer without XDP" % n
            if check(p.returncode == 0 and res, "%s: exit %d\n%s" % (name, p.returncode, p.stderr)):
                way.check(name, res)
                check(res["sent"] == n == delta and res["verified"],
                      "%s: sent %d, verified %s, sysfs %d" % (name, res["sent"], res["verified"], delta))
                print("ok   %-40s sent %d, sysfs rx_packets %d" % (name, res["sent"], delta), flush=True)
        # The peer's NAPI in a kthread on the other CPU: its ring fills, the veth
        # drops, sendto() says EBUSY, and each drop is sent again; still exact.
        if (os.cpu_count() or 1) >= 2:
            with threaded_napi(topo, 1):
                res = send_and_count(topo, "afxdp 200000 x 64B, peer's NAPI on CPU 1", 200000, 64,
                                     ["--cpus", 0], way=way)
            if res:
                print("     the veth dropped %d, all sent again" % res["dropped"], flush=True)
        else:
            print("skip afxdp with the peer's NAPI on another CPU: one CPU only", flush=True)
        # Frames a 2048-byte chunk cannot hold go into 4096-byte ones.
        for ifc in (topo.gen_end, topo.peer):
            ifc.set_mtu(3000)
        for n in (1, 65, 100000):
            send_and_count(topo, "afxdp %d x 3014B" % n, n, 3014, way=way)
        # Beyond a page: AF_XDP without multi-buffer cannot; said, nothing sent.
        for ifc in (topo.gen_end, topo.peer):
            ifc.set_mtu(9000)
        before = topo.rx_packets()
        p = way.gen(topo, ["--count", 10, "--size", 5000])
        check(p.returncode == 1 and "do not fit a UMEM chunk" in p.stderr
              and "--method packet" in p.stderr and topo.rx_packets() == before,
              "afxdp 5000-byte frames: exit %d\n%s" % (p.returncode, p.stderr))
        print("ok   afxdp 5000-byte frames: refused, explained", flush=True)
    with Topology("a1") as topo:
        p = way.gen(topo, ["--count", 10, "--threads", 2])
        check(p.returncode == 1 and "a transmit queue per thread" in p.stderr,
              "afxdp 2 threads, 1 queue: exit %d\n%s" % (p.returncode, p.stderr))
        print("ok   afxdp 2 threads on 1 queue: refused, explained", flush=True)
        peer_down(topo, way)


def peer_down(topo, way):
    """A veth whose peer is down drops every frame: the generator gives up
    after 2 s without one taken, and says why, rather than sending forever."""
    topo.peer.set_down()
    try:
        t = time.monotonic()
        p = way.gen(topo, ["--count", 1000, "--json", "--quiet"], timeout=30)
        secs = time.monotonic() - t
    finally:
        topo.peer.set_up()
    res = last_json(p.stdout)
    name = "%s into a peer that is down" % way.name
    check(p.returncode == 1 and "took no frame for 2 s" in p.stderr and res
          and res["sent"] == 0 and res["stopped"] == "error" and secs < 10,
          "%s: exit %d in %.1f s, %s\n%s" % (name, p.returncode, secs, res, p.stderr))
    print("ok   %-40s gave up in %.1f s, explained" % (name, secs), flush=True)


def interrupt(topo, way):
    """Ctrl-C 1 s after the generator started sending (its header ends with
    the 'sent =' line; setting up takes a while on a slow machine): it stops
    soon, and what it says it sent arrived."""
    xdp = xdp_counter(topo)
    try:
        before = topo.rx_packets()
        p = way.popen(topo, ["--json"])
        head = []
        while len(head) < 30:      # the header's lines, or its end of output if it failed
            head.append(p.stdout.readline())
            if head[-1].startswith("  sent     =") or not head[-1]:
                break
        time.sleep(1.0)
        t = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        out = "".join(head) + out
        stop_s = time.monotonic() - t
        delta = topo.rx_packets() - before
        counted = xdp.stop()
    finally:
        xdp.kill()
    res = last_json(out)
    name = "Ctrl-C (%s)" % way.name
    check(p.returncode == 0, "%s: exit %d\n%s" % (name, p.returncode, err))
    check("stopped (interrupted)" in out, "%s: no summary\n%s" % (name, out))
    check(res and res["stopped"] == "interrupted", "%s: JSON %s" % (name, res))
    way.check(name, res)
    check(stop_s < 5, "%s: took %.1f s to stop" % (name, stop_s))
    if res:
        check(res["sent"] > 0 and res["sent"] == counted["ours"] == delta,
              "%s: sent %d, XDP counted %d, sysfs %d" % (name, res["sent"], counted["ours"], delta))
        check(0.5 < res["seconds"] < 5, "%s: %.3f s" % (name, res["seconds"]))
    print("ok   %-28s sent %d in %.3f s, stopped in %.3f s, %s" %
          (name, res and res["sent"], res and res["seconds"], stop_s, res and res["method"]),
          flush=True)


def duration(topo, way):
    xdp = xdp_counter(topo)
    try:
        t = time.monotonic()
        p = way.gen(topo, ["--duration", "1", "--json", "--quiet"])
        wall = time.monotonic() - t
        counted = xdp.stop()
    finally:
        xdp.kill()
    res = last_json(p.stdout)
    name = "--duration 1 (%s)" % way.name
    check(p.returncode == 0 and res and res["stopped"] == "duration",
          "%s: exit %d %s" % (name, p.returncode, p.stderr))
    way.check(name, res)
    if res:
        check(0.95 < res["seconds"] < 1.2 and wall < 4, "%s: %.3f s (wall %.1f s)" % (name, res["seconds"], wall))
        check(res["sent"] == counted["ours"], "%s: sent %d, counted %d" % (name, res["sent"], counted["ours"]))
    print("ok   %-28s %.3f s, sent %s, %s" % (name, res and res["seconds"], res and res["sent"],
                                             res and res["method"]), flush=True)


def case_sigint():
    with Topology("si") as topo:
        ways = auto_ways() + [Way("afxdp", ["--method", "afxdp"], expect="afxdp"),
                              Way("packet", ["--method", "packet"], expect="af_packet")]
        if live_way():
            ways.append(live_way())
        else:
            skip_live("Ctrl-C with --method live")
        for way in ways:
            with way:
                interrupt(topo, way)
        for way in auto_ways() + [Way("afxdp", ["--method", "afxdp"], expect="afxdp")]:
            with way:
                duration(topo, way)


def case_options():
    """Bad options: a clear message on stderr and exit status 2; needs no root."""
    def bad(args, words):
        p = subprocess.run([opts.gen] + args, capture_output=True, text=True, timeout=30)
        ok = p.returncode == 2 and all(w in p.stderr for w in words)
        check(ok, "%s: exit %d, stderr %r, expected 2 and %s" % (" ".join(args), p.returncode, p.stderr, words))
        if ok:
            print("ok   %-40s %s" % (" ".join(args), p.stderr.splitlines()[0]), flush=True)

    bad([], ["--dev", "required"])
    bad(["--count", "10"], ["--dev", "required"])
    bad(["--dev", "xgt-no-such0"], ["xgt-no-such0", "no interface"])
    bad(["--dev", "lo", "--size", "59"], ["--size 59", "60"])
    bad(["--dev", "lo", "--size", "abc"], ["--size abc"])
    bad(["--dev", "lo", "--size", "70000"], ["--size 70000", "MTU"])
    bad(["--dev", "lo", "--count", "0"], ["--count 0"])
    bad(["--dev", "lo", "--count", "5", "--duration", "1"], ["--count", "--duration"])
    bad(["--dev", "lo", "--duration", "-1"], ["--duration -1"])
    bad(["--dev", "lo", "--flows", "0"], ["--flows 0"])
    bad(["--dev", "lo", "--threads", "65"], ["--threads 65"])
    bad(["--dev", "lo", "--cpus", "0-x"], ["--cpus 0-x"])
    bad(["--dev", "lo", "--dst-mac", "01:02:03"], ["--dst-mac 01:02:03"])
    bad(["--dev", "lo", "--src-ip", "300.1.1.1"], ["--src-ip 300.1.1.1"])
    bad(["--dev", "lo", "--method", "warp"], ["--method warp", "afxdp"])
    bad(["--dev", "lo", "--method", "afxdp", "--dry-run"], ["--dry-run", "afxdp"])
    bad(["--dev", "lo", "--no-such-option"], ["no-such-option"])
    p = subprocess.run([opts.gen, "--help"], capture_output=True, text=True, timeout=30)
    missing = [o for o in ("--dev", "--size", "--count", "--duration", "--flows", "--dst-mac", "--src-mac",
                           "--src-ip", "--dst-ip", "--threads", "--cpus", "--quiet", "--json", "--method",
                           "afxdp")
               if o not in p.stdout]
    check(p.returncode == 0 and not missing, "--help: exit %d, missing %s" % (p.returncode, missing))


CASES = {
    "options": case_options,
    "counts": case_counts,
    "counts-pass": case_counts_pass,
    "threads": case_threads,
    "packet": case_packet,
    "afxdp": case_afxdp,
    "sigint": case_sigint,
}


def can_make_veths():
    if os.geteuid() != 0:
        return "not root"
    try:
        with Topology("pr"):
            pass
    except (env.Skip, env.HarnessError, OSError) as e:
        return "cannot create namespaces and veths: %s" % str(e).splitlines()[0]
    return None


def main():
    global opts, LIVE_REFUSED
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen")
    ap.add_argument("--count-tool")
    ap.add_argument("--rx-packet", metavar="IFACE", help=argparse.SUPPRESS)
    ap.add_argument("case", nargs="?", choices=sorted(CASES))
    opts = ap.parse_args()
    if opts.rx_packet:
        return rx_packet_main(opts.rx_packet)
    if not opts.case or not opts.gen:
        ap.error("CASE and --gen are required")
    # meson ends a test that times out with SIGTERM: clean up on the way out
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(1))
    if opts.case != "options":
        why = can_make_veths()
        if why:
            print("SKIP: %s" % why)
            return SKIP
        LIVE_REFUSED = kernel.live_frames_refusal()
        print("kernel %s: live frames %s" % (os.uname().release, "refused: " + LIVE_REFUSED
                                            if LIVE_REFUSED else "run"), flush=True)
    try:
        CASES[opts.case]()
    except env.Skip as e:
        # no fault library (AFXDP_REFUSE_LIB): the refusal path cannot run
        print("SKIP: %s" % e)
        if not failures:
            return SKIP
    finally:
        reap.remove_run_dir(env.run_id())       # the fault library's logs
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
