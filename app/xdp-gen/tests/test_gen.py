#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Integration tests of afxdp-gen on a veth pair between two network namespaces.

    test_gen.py --gen AFXDP_GEN --count-tool XDP_COUNT CASE

CASE is one of: options, counts, counts-pass, threads, packet, sigint.  Every
case but 'options' needs root and veth support; without them it exits 77
(meson's SKIP).  The generator sends out of one end; the other end, in its
own namespace, counts what arrives three ways that do not depend on each
other: the veth's rx_packets in sysfs, an XDP program (xdp-count) and, in
counts-pass, an AF_PACKET socket behind an XDP_PASS.  IPv6 is off in both
namespaces, so no stray frame joins the count.  Namespaces (and with them
the veths) are removed whatever happens (afxdp_test's topology and clean-up
stack, on PYTHONPATH).
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

from afxdp_test import env, frames, topo

SKIP = 77
GEN_MAGIC = 0x7847454E
OFF_THREAD, OFF_MAGIC, OFF_SEQ, OFF_FLOW, OFF_PATTERN = 42, 44, 48, 56, 58

failures = []


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

    def gen(self, args, timeout=120):
        return subprocess.run(["ip", "netns", "exec", self.ns_gen, opts.gen, "--dev", self.gen_if]
                              + [str(a) for a in args],
                              capture_output=True, text=True, timeout=timeout)


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


def send_and_count(topo, name, n, size, gen_args=(), pass_frames=False):
    """Sends n frames of size bytes; checks every count; returns the generator's JSON."""
    nfail = len(failures)
    xdp = xdp_counter(topo, pass_frames)
    pkt = None
    try:
        if pass_frames:
            pkt = packet_counter(topo)
        before = topo.rx_packets()
        p = topo.gen(["--count", n, "--size", size, "--json", "--quiet"] + list(gen_args))
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
    check(res["sent"] == n, "%s: the generator says it sent %d" % (name, res["sent"]))
    check(res["verified"], "%s: the generator could not verify its count" % name)
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
    print("%s %-28s sent %7d in %.3f s, dropped %d, re-sent %d" %
          ("ok  " if len(failures) == nfail else "FAIL", name, res["sent"], res["seconds"],
           res["dropped"], res["resent"]), flush=True)
    res["counted"] = counted
    return res


COUNTS = (1, 63, 64, 65, 1000, 100000)
SIZES = (60, 64, 512, 1500)


def case_counts():
    with Topology("co") as topo:
        # Without an XDP program (or GRO) the peer takes nothing: the generator must say so.
        for n in (10, 100000):
            p = topo.gen(["--count", n])
            check(p.returncode == 1 and "takes no XDP frame" in p.stderr and "warning" not in p.stderr,
                  "refused %d: exit %d\n%s" % (n, p.returncode, p.stderr))
        print("ok   peer without XDP: refused, explained", flush=True)
        for size in SIZES:
            for n in COUNTS:
                send_and_count(topo, "live %d x %dB" % (n, size), n, size)
        send_and_count(topo, "live 100000 x 64B, 16 flows", 100000, 64, ["--flows", 16])


def case_counts_pass():
    with Topology("cp") as topo:
        for size in (60, 1500):
            for n in (1, 65, 1000, 100000):
                send_and_count(topo, "pass %d x %dB" % (n, size), n, size, pass_frames=True)


def case_threads():
    ncpu = os.cpu_count() or 1
    with Topology("th", queues=2) as topo:
        if ncpu >= 2:
            n = 200000
            res = send_and_count(topo, "2 threads, 2 queues", n, 64,
                                 ["--threads", 2, "--cpus", "0,1", "--flows", 4])
            if res:
                c = res["counted"]
                # thread i on cpu i sends into the peer's queue i; flows take turns
                check(c["thr_frames"] == [n // 2] * 2, "threads: frames by thread %s" % c["thr_frames"])
                check(c["queue"] == [n // 2] * 2, "threads: frames by queue %s" % c["queue"])
                check(c["flow"] == [n // 4] * 4, "threads: frames by flow %s" % c["flow"])
        else:
            print("skip 2 threads on 2 CPUs: one CPU only", flush=True)
    with Topology("t1") as topo:
        # Threads sharing the peer's one queue: the veth's counters race, so the
        # generator may not vouch for its count; it must still finish and say so.
        xdp = xdp_counter(topo)
        try:
            p = topo.gen(["--count", 300000, "--threads", 2, "--json"])
            counted = xdp.stop()
        finally:
            xdp.kill()
        res = last_json(p.stdout)
        check(p.returncode == 0 and res, "shared queue: exit %d\n%s" % (p.returncode, p.stderr))
        check("share one of the peer" in p.stdout, "shared queue: no note in the header")
        if res and res["verified"]:
            check(counted["ours"] == res["sent"] == 300000,
                  "shared queue: sent %d, XDP counted %d" % (res["sent"], counted["ours"]))
        print("ok   2 threads, 1 queue: sent %s, counted %d, verified %s" %
              (res and res["sent"], counted["ours"], res and res["verified"]), flush=True)


def case_packet():
    with Topology("pk") as topo:
        for size in (60, 1500):
            for n in (1, 64, 65, 1000, 100000):
                res = send_and_count(topo, "af_packet %d x %dB" % (n, size), n, size,
                                     ["--method", "packet", "--flows", 3])
                if res:
                    check(res["method"] == "af_packet", "method %s" % res["method"])


def case_sigint():
    with Topology("si") as topo:
        for method in ("live", "packet"):
            xdp = xdp_counter(topo)
            try:
                before = topo.rx_packets()
                p = subprocess.Popen(["ip", "netns", "exec", topo.ns_gen, opts.gen, "--dev", topo.gen_if,
                                      "--json", "--method", method],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                time.sleep(1.5)
                t = time.monotonic()
                p.send_signal(signal.SIGINT)
                out, err = p.communicate(timeout=30)
                stop_s = time.monotonic() - t
                delta = topo.rx_packets() - before
                counted = xdp.stop()
            finally:
                xdp.kill()
            res = last_json(out)
            name = "Ctrl-C (%s)" % method
            check(p.returncode == 0, "%s: exit %d\n%s" % (name, p.returncode, err))
            check("stopped (interrupted)" in out, "%s: no summary\n%s" % (name, out))
            check(res and res["stopped"] == "interrupted", "%s: JSON %s" % (name, res))
            check(stop_s < 5, "%s: took %.1f s to stop" % (name, stop_s))
            if res:
                check(res["sent"] > 0 and res["sent"] == counted["ours"] == delta,
                      "%s: sent %d, XDP counted %d, sysfs %d" % (name, res["sent"], counted["ours"], delta))
                check(0.5 < res["seconds"] < 5, "%s: %.3f s" % (name, res["seconds"]))
            print("ok   %-28s sent %d in %.3f s, stopped in %.3f s" %
                  (name, res and res["sent"], res and res["seconds"], stop_s), flush=True)

        xdp = xdp_counter(topo)
        try:
            t = time.monotonic()
            p = topo.gen(["--duration", "1", "--json", "--quiet"])
            wall = time.monotonic() - t
            counted = xdp.stop()
        finally:
            xdp.kill()
        res = last_json(p.stdout)
        check(p.returncode == 0 and res and res["stopped"] == "duration",
              "duration: exit %d %s" % (p.returncode, p.stderr))
        if res:
            check(0.95 < res["seconds"] < 1.2 and wall < 4, "duration: %.3f s (wall %.1f s)" % (res["seconds"], wall))
            check(res["sent"] == counted["ours"], "duration: sent %d, counted %d" % (res["sent"], counted["ours"]))
        print("ok   --duration 1: %.3f s, sent %s" % (res and res["seconds"], res and res["sent"]), flush=True)


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
    bad(["--dev", "lo", "--method", "warp"], ["--method warp"])
    bad(["--dev", "lo", "--no-such-option"], ["no-such-option"])
    p = subprocess.run([opts.gen, "--help"], capture_output=True, text=True, timeout=30)
    missing = [o for o in ("--dev", "--size", "--count", "--duration", "--flows", "--dst-mac", "--src-mac",
                           "--src-ip", "--dst-ip", "--threads", "--cpus", "--quiet", "--json", "--method")
               if o not in p.stdout]
    check(p.returncode == 0 and not missing, "--help: exit %d, missing %s" % (p.returncode, missing))


CASES = {
    "options": case_options,
    "counts": case_counts,
    "counts-pass": case_counts_pass,
    "threads": case_threads,
    "packet": case_packet,
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
    global opts
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
    CASES[opts.case]()
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
