#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Wake-up latency and idle CPU of an Rx-interrupt application against a
polling one (issue 23), on a veth pair between two network namespaces.

The sender (bench-wakeup send, in the peer namespace, on CPU 0) sends
--frames single frames --gap-us apart, each carrying CLOCK_MONOTONIC just
before its send(); the namespaces share that clock. The application
(tests/intr/afxdp_intr_test, one lcore on CPU 1, our driver) takes them with
its `latency` command, asleep on the queue's Rx interrupt between frames
(intr) or polling (poll), and records per frame the time from the
timestamp to the frame in its hand, and, asleep, to rte_epoll_wait()'s
return. The kernel's own sleeping receiver is the reference: a packet
socket in a blocking recv() on the same interface, on the same CPU, while
no XDP program is attached (bench-wakeup recv). The three are interleaved
in --blocks blocks: in each, the kernel's receiver, then the application
started, asleep and polling in turn, and stopped. Idle CPU: the
application's user+system time (getrusage, all its threads) over --idle-s
seconds in all without traffic, asleep and polling; and each receiver's
over its frames (what a wakeup costs: arming, the sleep, disarming).

    bench/wakeup.py --build BUILD [--frames N] [--gap-us US] [--idle-s S]
                    [--blocks N] [--out DIR] [--rt] [--smoke]

Prints a Markdown table; report.md and each receiver's samples
(samples-<receiver>.txt: <seq> <ns to the frame in hand> <ns to the
wakeup, -1: not woken by a sleep>), and per block the sender's times in
send() (blocks/) go into results/wakeup-<date>-<time>/ (or --out DIR). The
machine may be shared: the load average is in the report, and the figures
are for that load.
"""

import argparse
import datetime
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TOP, "tests", "integration"))

from afxdp_test import dpdk_output, env, topo        # noqa: E402
from benchlib import harness, machine              # noqa: E402
from run import plugin_in                          # noqa: E402
import test_rx_intr                                # noqa: E402  (its IntrApp drives the app)

SENDER_CPU, APP_CPU = 0, 1
MODES = ("intr", "poll", "kernel")
MODE_TEXT = {
    "intr": "ours, asleep on the Rx interrupt",
    "poll": "ours, polling",
    "kernel": "kernel: packet socket, blocking recv()",
}
SETTLE_S = 0.3              # for the last frames after the sender is done
PERCENTILES = (("p50", 50.0), ("p99", 99.0), ("p99.9", 99.9))


def options(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.environ.get("BUILD_DIR", os.path.join(TOP, "build")))
    ap.add_argument("--frames", type=int, default=10000)
    ap.add_argument("--gap-us", type=int, default=1000)
    ap.add_argument("--idle-s", type=float, default=10.0)
    ap.add_argument("--blocks", type=int, default=5,
                    help="interleave the receivers in this many blocks of the frames")
    ap.add_argument("--out", help="results directory (default results/wakeup-<date>-<time>)")
    ap.add_argument("--rt", action="store_true",
                    help="the sleeping receivers (intr, kernel) at SCHED_FIFO 1: what is left "
                    "when the scheduler wakes them first (polling stays SCHED_OTHER)")
    ap.add_argument("--smoke", action="store_true",
                    help="100 frames and 0.5 s idle windows: does everything run?")
    a = ap.parse_args(argv)
    if a.smoke:
        a.frames, a.idle_s, a.blocks = 100, 0.5, 1
    if not 1 <= a.blocks <= a.frames:
        ap.error("--blocks: 1 to --frames")
    return a


def tools(build):
    t = {"plugin": plugin_in(build),
         "sender": os.path.join(build, "bench", "bench-wakeup"),
         "app": os.path.join(build, "tests", "intr", "afxdp_intr_test")}
    missing = [k for k, p in t.items() if not p or not os.path.exists(p)]
    if missing:
        sys.exit("wakeup: not built in %s: %s (ninja -C %s)" % (build, ", ".join(missing), build))
    return t


def percentile(sorted_values, p):
    """Nearest rank: the smallest value with at least p % of them at or below it."""
    if not sorted_values:
        return None
    rank = max(1, -(-len(sorted_values) * p // 100))
    return sorted_values[int(rank) - 1]


def read_samples(path):
    """[(seq, ns to the frame in hand, ns to the wakeup or -1)]"""
    with open(path) as f:
        return [tuple(int(x) for x in line.split()) for line in f if line.strip()]


def summarize(samples, sent, in_send):
    """Percentiles of a receiver's samples; in_send: {seq: ns from the
    timestamp to the sender's send() returning}."""
    total = sorted(s[1] for s in samples)
    sender = sorted(in_send[s[0]] for s in samples if s[0] in in_send)
    after = sorted(s[1] - in_send[s[0]] for s in samples if s[0] in in_send)
    woke = sorted(s[2] for s in samples if s[2] >= 0)
    seqs = {s[0] for s in samples}
    row = {"n": len(samples), "lost": sent - len(seqs), "max": total[-1] if total else None,
           "asleep": len(woke)}
    for name, p in PERCENTILES:
        row[name] = percentile(total, p)
        row["wake_" + name] = percentile(woke, p)
        row["send_" + name] = percentile(sender, p)
        row["after_" + name] = percentile(after, p)
    row["wake_max"] = woke[-1] if woke else None
    return row


def send(a, t, peer, dst_mac, count, path):
    """Sends `count` frames; returns the count sent and {seq: ns in send()}."""
    argv = ["taskset", "-c", str(SENDER_CPU), t["sender"], "send", peer.name, dst_mac,
            str(count), str(a.gap_us), path]
    cp = env.run(argv, ns=peer.ns.name, timeout=count * a.gap_us / 1e6 + 60)
    with open(path) as f:
        in_send = dict(tuple(int(x) for x in line.split()) for line in f if line.strip())
    return int(dict(kv.split("=") for kv in cp.stdout.split())["sent"]), in_send


def end_after_sender(ended, tell):
    """The sender is done: a receiver that took fewer frames than were sent
    (some were lost) is told to end, again until it has (a signal may come
    just before its recv() starts)."""
    deadline = time.monotonic() + SETTLE_S
    while not ended() and time.monotonic() < deadline:
        time.sleep(0.05)
    deadline = time.monotonic() + 30
    while not ended():
        if time.monotonic() > deadline:
            raise env.HarnessError("bench-wakeup recv does not end")
        tell()
        time.sleep(0.5)


def rt_prefix(a):
    return ["chrt", "-f", "1"] if a.rt else []


def kernel_reference(a, t, port, peer, count, stem):
    """The packet socket's blocking recv() on the DUT's interface, with no
    XDP program on it."""
    path = stem + "samples-kernel.txt"
    rx = env.popen(rt_prefix(a) + ["taskset", "-c", str(APP_CPU), t["sender"], "recv",
                                   port.name, str(count), path],
                   ns=port.ns.name, stdout=subprocess.PIPE, text=True)
    if rx.stdout.readline().strip() != "READY":
        raise env.HarnessError("bench-wakeup recv did not start (exit %s)" % rx.wait())
    sent = send(a, t, peer, port.mac, count, stem + "send-kernel.txt")
    end_after_sender(lambda: rx.poll() is not None, lambda: rx.send_signal(signal.SIGUSR1))
    said = dict(kv.split("=") for kv in rx.stdout.read().split())
    return sent, read_samples(path), int(said["drops"]), int(said["cpu_us"])


def app_latency(a, t, app, mode, port, peer, count, stem):
    path = stem + "samples-%s.txt" % mode
    app.cmd("latency %d %s %s" % (count, mode, path), "LATENCY_READY")
    sent = send(a, t, peer, port.mac, count, stem + "send-%s.txt" % mode)
    # The app answers LATENCY when it ends: by its count, or at "stop"
    # (ignored if it ended by its count first), which waits for frames the
    # sender's send() left to ksoftirqd.
    time.sleep(SETTLE_S)
    app.send("stop")
    done = app.expect("LATENCY", timeout=30)
    env.log("%s: %s" % (mode, done))
    return sent, read_samples(path), int(done["cpu_us"])


def idle_cpu(app, mode, seconds):
    """Microseconds of CPU used and seconds passed idle: asleep (nothing to
    do), or polling."""
    u0 = int(app.cmd("stats", "STATS")["cpu_us"])
    t0 = time.monotonic()
    if mode == "intr":
        time.sleep(seconds)
    else:
        app.cmd("poll %d" % int(seconds * 1000), "POLLED")
    used = int(app.cmd("stats", "STATS")["cpu_us"]) - u0
    return used, time.monotonic() - t0


def us(ns):
    return "-" if ns is None else "%.1f" % (ns / 1000.0)


def report(a, results, meta):
    lines = ["# Wake-up latency and idle CPU (%s)" % meta["date"], "",
             "%d single frames %d us apart per receiver, the receivers interleaved in %d "
             "block(s); sender on CPU %d, receiver on CPU %d; veth, our driver in %s mode; "
             "%s." % (
                 a.frames, a.gap_us, a.blocks, SENDER_CPU, APP_CPU, meta["socket_mode"],
                 "the sleeping receivers at SCHED_FIFO 1, polling at SCHED_OTHER" if a.rt
                 else "every receiver at SCHED_OTHER, as the sender"),
             "Machine: %s; load average %s at the start, %s at the end; busiest others at the "
             "start: %s." % (meta["machine"], meta["load_start"], meta["load_end"], meta["busy"]),
             "",
             "| receiver | frames | lost | p50 us | p99 us | p99.9 us | max us | "
             "idle CPU: us per s (% of a core) | CPU us per frame |",
             "|---|---|---|---|---|---|---|---|---|"]
    for mode in MODES:
        r = results.get(mode)
        if r is None:
            continue
        idle, per_frame = r.get("idle_us_per_s"), r.get("cpu_us_per_frame")
        lines.append("| %s | %d | %d | %s | %s | %s | %s | %s | %s |" % (
            MODE_TEXT[mode], r["n"], r["lost"], us(r["p50"]), us(r["p99"]), us(r["p99.9"]),
            us(r["max"]), "-" if idle is None else "%.0f (%.3f %%)" % (idle, idle / 1e4),
            "-" if per_frame is None else "%.1f" % per_frame))
    r = results.get("kernel")
    if r and r["lost"]:
        lines += ["", "The kernel's packet socket dropped %d frames for a full receive buffer "
                  "(PACKET_STATISTICS) while its receiver waited for the CPU." % r["drops"]]
    lines += ["", "Where the time goes (us): from the timestamp to the sender's send() "
              "returning (veth's softirq runs the receiving side in it: the frame is in the "
              "ring and the sleeper woken by then, unless ksoftirqd took the softirq), and "
              "from there to the frame in hand:", "",
              "| receiver | in send() p50 | p99 | p99.9 | after send() p50 | p99 | p99.9 |",
              "|---|---|---|---|---|---|---|"]
    for mode in MODES:
        r = results.get(mode)
        if r is not None:
            lines.append("| %s | %s |" % (MODE_TEXT[mode], " | ".join(
                us(r["%s_%s" % (part, name)]) for part in ("send", "after")
                for name, _ in PERCENTILES)))
    r = results.get("intr")
    if r:
        lines += ["",
                  "Asleep, the part up to rte_epoll_wait()'s return (%d of %d frames taken "
                  "after a sleep, woken by it; the rest were not): p50 %s us, p99 %s us, "
                  "p99.9 %s us, max %s us." % (r["asleep"], r["n"], us(r["wake_p50"]),
                                                us(r["wake_p99"]), us(r["wake_p99.9"]),
                                                us(r["wake_max"]))]
    return "\n".join(lines) + "\n"


class Receiver:
    """One receiver's blocks, merged: sequence numbers follow on."""

    def __init__(self):
        self.samples, self.in_send, self.sent = [], {}, 0
        self.drops = self.cpu_us = self.idle_us = self.idle_s = 0

    def add(self, sent, in_send, samples):
        base = self.sent
        self.samples += [(seq + base, total, woke) for seq, total, woke in samples]
        self.in_send.update((seq + base, ns) for seq, ns in in_send.items())
        self.sent += sent

    def write(self, path):
        with open(path, "w") as f:
            f.writelines("%d %d %d\n" % s for s in self.samples)

    def result(self):
        r = summarize(self.samples, self.sent, self.in_send)
        r["drops"] = self.drops
        r["cpu_us_per_frame"] = self.cpu_us / max(1, len(self.samples))
        r["idle_us_per_s"] = self.idle_us / self.idle_s if self.idle_s else None
        return r


def app_block(a, t, port, peer, count, stem, rx, meta, order):
    """The application on the port for one block: asleep and polling, in `order`."""
    app = test_rx_intr.IntrApp(port.ns, "net_af_xdp0,iface=%s" % port.name).start()
    app.expect("READY", timeout=60)
    meta["socket_mode"] = "/".join(sorted(
        {m for m, _ in dpdk_output.socket_modes(app.log()).get(port.name, [])})) or "?"
    for mode in order:
        # The lcore is the process's main thread (ip netns exec execs it).
        if a.rt:
            env.run(["chrt", "-p"] + (["-f", "1"] if mode == "intr" else ["-o", "0"])
                    + [str(app.proc.pid)])
        (sent, in_send), samples, cpu_us = app_latency(a, t, app, mode, port, peer, count, stem)
        rx[mode].add(sent, in_send, samples)
        rx[mode].cpu_us += cpu_us
        used, seconds = idle_cpu(app, mode, a.idle_s / a.blocks)
        rx[mode].idle_us += used
        rx[mode].idle_s += seconds
    shutil.copy(app.log_path, stem + "afxdp_intr_test.log")
    rc, _ = app.quit()
    if rc != 0:
        raise env.HarnessError("afxdp_intr_test exited %d" % rc)


def measure(a, t, out, results, meta):
    """The three receivers on one veth pair, interleaved: in each block the
    kernel's (no XDP program on the port), then the application started,
    asleep and polling in turn (their order alternating), and stopped."""
    rx = {mode: Receiver() for mode in MODES}
    blocks = os.path.join(out, "blocks")
    os.makedirs(blocks, exist_ok=True)
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        for b in range(a.blocks):
            count = a.frames // a.blocks + (1 if b < a.frames % a.blocks else 0)
            stem = os.path.join(blocks, "%d-" % b)
            order = ("intr", "poll") if b % 2 == 0 else ("poll", "intr")
            print("wakeup: block %d of %d: %d frames each to kernel, %s, %s"
                  % (b + 1, a.blocks, count, *order), flush=True)
            (sent, in_send), samples, drops, cpu_us = kernel_reference(a, t, port, peer,
                                                                      count, stem)
            rx["kernel"].add(sent, in_send, samples)
            rx["kernel"].drops += drops
            rx["kernel"].cpu_us += cpu_us
            app_block(a, t, port, peer, count, stem, rx, meta, order)
    for mode in MODES:
        rx[mode].write(os.path.join(out, "samples-%s.txt" % mode))
        results[mode] = rx[mode].result()


def main(argv):
    a = options(argv)
    if os.geteuid() != 0:
        sys.exit("wakeup: run as root (network namespaces, veths, XDP programs, AF_XDP sockets)")
    t = tools(a.build)
    os.environ["AFXDP_PLUGIN"] = t["plugin"]
    os.environ["AFXDP_INTR_TEST"] = t["app"]
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = os.path.abspath(a.out or os.path.join(TOP, "results", "wakeup-" + stamp))
    os.makedirs(out, exist_ok=True)
    meta = {"date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
            "machine": "%(cpus)s CPUs, %(cpu_model)s, Linux %(kernel)s" % machine.describe(),
            "load_start": machine.loadavg(),
            "busy": ", ".join("%s (%.0f%%)" % (n, 100 * s)
                              for n, s in machine.busy_processes(1.0)[:4]) or "none",
            "socket_mode": "?"}
    results = {}
    print("wakeup: run id %s, results in %s" % (env.run_id(), out), flush=True)
    if harness.run_measured("wakeup", lambda: measure(a, t, out, results, meta)) != 0:
        return 1
    meta["load_end"] = machine.loadavg()
    text = report(a, results, meta)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(text)
    print(text + "\nwakeup: results in %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
