#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The benchmark: Debian's stock net_af_xdp beside ours, and the kernel's XDP
fast path, on one veth topology, in one run (doc/guides/benchmark.rst).

    bench/run.py [--quick | --smoke] [--repeats N] [--seconds S] [--out DIR] ...

As root. Builds network namespaces and veths, pins the generator to CPU 0 and
the DUT to CPU 1, and runs each configuration (rxonly, io, XDP_DROP, DEVMAP
redirect, the l2fwd example and its kernel twin, DPDK's own l2fwd, io with
frames of the whole MTU at 1500 and at 9000, the DEVMAP redirect at 9000;
bench/benchlib/scenario.py) under each placement of the kernel's receive
work it runs in (softirq on the generator's CPU; threaded NAPI pinned to the
DUT's CPU), stock and ours back
to back, the first of each pair alternating, repeat after repeat. Prints a
Markdown table and writes report.md, runs.csv, summary.csv, plot.png and each
run's testpmd transcript into the results directory. Whatever it creates
(namespaces, veths, XDP programs, processes, EAL files) is removed when it
ends, however it ends. scripts/bench.sh sets up and builds first.

Exit status: 0 done (whatever the figures), 1 a failure of the benchmark
itself, 2 bad options.
"""

import argparse
import contextlib
import datetime
import os
import subprocess
import sys
import time

# afxdp_test, the tests' library, comes from <top>/python (PYTHONPATH:
# scripts/bench.sh and meson set it); benchlib from beside this file.
from afxdp_test import cleanup, env, hugepages, reap
from benchlib import machine, parse, report, runlog, scenario, stats

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)

CONFIG_ORDER = list(scenario.CONFIGS)
PLACEMENT_ORDER = list(machine.PLACEMENTS)
DRIVER_ORDER = ["stock", "ours", "kernel"]

# 320 MB: one DPDK process at a time, 256 MB each (16384 mbufs of 2.4 KB and EAL).
HUGE_PAGES = 160

PRESETS = {
    # name: repeats, seconds, warm-up, settle, micro (runs, bursts)
    "default": (5, 3.0, 0.3, 0.3, (5, 200000)),
    "quick": (3, 1.0, 0.2, 0.2, (3, 100000)),
    "smoke": (1, 0.3, 0.1, 0.1, (1, 2000)),
}
# The smoke run's threaded placement: one configuration per way a run pins
# the NAPI kthreads (testpmd's, the kernel program's, the l2fwd programs'),
# not every configuration again: the placement's code is the same for all
# of a kind, and the suite's time is short (9 runs -> 4).
SMOKE_THREADED = ("rxonly", "xdp-drop", "l2fwd-xdp")


def options(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="3 repeats of 1 s: a short look")
    ap.add_argument("--smoke", action="store_true",
                    help="1 repeat of 0.3 s, the threaded placement in 3 configurations, the "
                         "microbenchmark of the Rx path in use: checks that everything runs "
                         "(the test suite's)")
    ap.add_argument("--repeats", type=int, help="runs of each configuration (default 5)")
    ap.add_argument("--seconds", type=float, help="measured traffic per run (default 3)")
    ap.add_argument("--configs", default=",".join(CONFIG_ORDER),
                    help="among %s (default: all)" % ", ".join(CONFIG_ORDER))
    ap.add_argument("--placements", default=",".join(PLACEMENT_ORDER),
                    help="softirq, threaded (default: both)")
    ap.add_argument("--size", type=int, default=64, help="frame size, bytes without FCS (default 64)")
    ap.add_argument("--gen-cpu", type=int, default=0)
    ap.add_argument("--dut-cpu", type=int, default=1)
    ap.add_argument("--near-ns", type=float, default=200.0,
                    help="placement indicator: a round trip below this is 'near' (default 200)")
    ap.add_argument("--build", default=os.environ.get("BUILD_DIR", os.path.join(TOP, "build")),
                    help="the project's meson build directory (default ./build)")
    ap.add_argument("--out", help="results directory (default results/bench-<date>-<time>)")
    ap.add_argument("--label", help="a line for the report's head, e.g. the machine's state")
    ap.add_argument("--no-micro", action="store_true", help="leave out the Rx microbenchmark")
    ap.add_argument("--no-huge", action="store_true",
                    help="run the DPDK processes on 4 KB pages (--no-huge) instead of hugepages")
    ap.add_argument("--stock-devargs", default="",
                    help="devargs added to the stock driver's ports, e.g. busy_budget=0")
    ap.add_argument("--ours-devargs", default="", help="devargs added to our driver's ports")
    ap.add_argument("--against", metavar="BUILD",
                    help="in place of the stock driver, ours from another build directory "
                         "(e.g. an earlier commit's): a before/after comparison of two builds")
    a = ap.parse_args(argv)
    preset = "smoke" if a.smoke else "quick" if a.quick else "default"
    reps, secs, warm, settle, micro = PRESETS[preset]
    a.preset = preset
    a.repeats = a.repeats if a.repeats is not None else reps
    a.seconds = a.seconds if a.seconds is not None else secs
    a.warmup, a.settle, a.micro = warm, settle, micro
    a.configs = [c for c in a.configs.split(",") if c]
    a.placements = [p for p in a.placements.split(",") if p]
    for c in a.configs:
        if c not in scenario.CONFIGS:
            ap.error("--configs: unknown %r (known: %s)" % (c, ", ".join(CONFIG_ORDER)))
    for p in a.placements:
        if p not in machine.PLACEMENTS:
            ap.error("--placements: unknown %r (known: %s)" % (p, ", ".join(PLACEMENT_ORDER)))
    if a.repeats < 1 or a.seconds <= 0:
        ap.error("--repeats at least 1, --seconds above 0")
    if a.gen_cpu == a.dut_cpu:
        ap.error("--gen-cpu and --dut-cpu must differ")
    if a.against:
        a.against_plugin = plugin_in(a.against)
        if not a.against_plugin:
            ap.error("--against: no librte_net_af_xdp_direct.so.* in %s/drivers/net/af_xdp "
                     "(a meson build directory of this project, built)" % a.against)
        # the same devargs for both builds unless told otherwise
        a.stock_devargs = a.stock_devargs or a.ours_devargs
    return a


def schedule(a):
    """Every run, in order: for each repeat, each placement (their order
    alternating), each configuration; stock and ours back to back, which goes
    first alternating with the repeat, so that a drift favours neither."""
    items = []
    for rep in range(1, a.repeats + 1):
        places = a.placements if rep % 2 else list(reversed(a.placements))
        for p in places:
            for c in a.configs:
                cfg = scenario.CONFIGS[c]
                if p not in cfg.get("placements", machine.PLACEMENTS):
                    continue
                if a.preset == "smoke" and p == "threaded" and c not in SMOKE_THREADED:
                    continue
                drivers = list(scenario.drivers_of(cfg))
                if rep % 2 == 0:
                    drivers.reverse()
                for i, d in enumerate(drivers):
                    items.append({"seq": len(items) + 1, "repeat": rep, "config": c, "driver": d,
                                  "placement": p, "order": "AB"[i] if len(drivers) > 1 else ""})
    return items


def plugin_in(build):
    """Path of the driver plugin built in `build`, or None."""
    d = os.path.join(build, "drivers", "net", "af_xdp")
    plugins = sorted(f for f in os.listdir(d)
                     if f.startswith("librte_net_af_xdp_direct.so.") and f.count(".") >= 4) \
        if os.path.isdir(d) else []
    return os.path.join(d, plugins[0]) if plugins else None


def tools(a):
    """Paths of what the benchmark runs; exits with the reason if one is missing."""
    b = a.build
    t = {
        "gen": os.path.join(b, "app", "xdp-gen", "afxdp-gen"),
        "bench_xdp": os.path.join(b, "bench", "xdp", "bench-xdp"),
        "pingpong": os.path.join(b, "bench", "bench-pingpong"),
        "bench_rx": os.path.join(b, "bench", "micro", "bench_rx"),
        "l2fwd": os.path.join(b, "examples", "l2fwd-af-xdp", "l2fwd-af-xdp"),
        "l2fwd_xdp": os.path.join(b, "examples", "l2fwd-af-xdp", "l2fwd-xdp"),
        "dpdk_l2fwd": os.path.join(b, "dpdk-l2fwd"),     # scripts/dpdk-l2fwd.sh
    }
    t["plugin"] = plugin_in(b)
    missing = [k for k in ("gen", "bench_xdp", "pingpong", "plugin")
               if not t[k] or not os.access(t[k], os.X_OK if k != "plugin" else os.R_OK)]
    if missing:
        hint = "run scripts/setup.sh, or scripts/bench.sh which does"
        if not os.path.isdir(os.path.join(b, "bench")):
            hint = ("the build has no bench/ directory: the top-level meson.build needs "
                    "subdir('bench') after subdir('app/xdp-gen'), then scripts/setup.sh")
        sys.exit("bench: not built in %s: %s (%s)" % (b, ", ".join(missing), hint))
    return t


class Progress:
    """One line, rewritten in place on a terminal, appended otherwise."""

    def __init__(self, total):
        self.total, self.t0 = total, time.monotonic()
        self.tty = sys.stderr.isatty()

    def show(self, i, item, last=""):
        el = time.monotonic() - self.t0
        left = el / i * (self.total - i) if i else 0
        line = "[%3d/%d] %2d:%02d elapsed, ~%2d:%02d left | %-12s %-6s %-8s repeat %d%s" % (
            i, self.total, el // 60, el % 60, left // 60, left % 60, item["config"], item["driver"],
            item["placement"], item["repeat"], (" | last: " + last) if last else "")
        try:
            if self.tty:
                sys.stderr.write("\r\x1b[K" + line[:200])
            else:
                sys.stderr.write(line + "\n")
            sys.stderr.flush()
        except OSError:         # the reader went away: the runs go on
            pass

    def done(self):
        if self.tty:
            sys.stderr.write("\n")


def last_figure(row):
    if row.get("error"):
        return "FAILED"
    if row.get("unsupported"):
        return "not supported"
    parts = []
    if row.get("offered_mpps") is not None:
        # the generator's method and what it offered: a verdict needs both equal within a pair
        parts.append("offered %.2f Mpps (%s)" % (row["offered_mpps"], row.get("gen_method") or "?"))
    for k, name in (("received_mpps", "rx"), ("forwarded_mpps", "fwd")):
        if row.get(k) is not None:
            parts.append("%s %.2f Mpps" % (name, row[k]))
    if row.get("cycles_per_packet") is not None:
        parts.append("%.0f cycles/pkt" % row["cycles_per_packet"])
    return ", ".join(parts)


def run_micro(a, t, log, huge_dir=None, rx_build=None):
    """bench/micro/run.py: instructions/packet (callgrind) and TSC cycles.
    The smoke run measures only `rx_build`, the Rx path the driver chose in
    its runs (when one did): a callgrind run is 3 s of valgrind's start, and
    the other build's are the same code path of run.py."""
    if a.no_micro:
        return [], "left out (--no-micro)"
    if not os.access(t["bench_rx"], os.X_OK):
        return [], "bench_rx is not built"
    runs, bursts = a.micro
    cmd = [sys.executable, os.path.join(HERE, "micro", "run.py"), t["bench_rx"], "--runs", str(runs),
           "--bursts", str(bursts)] + (["--huge-dir", huge_dir] if huge_dir else [])
    if a.preset == "smoke" and rx_build:
        cmd += ["--builds", rx_build]
    log("micro: %s" % " ".join(cmd))
    try:
        cp = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        return [], "timed out"
    log(cp.stdout + cp.stderr)
    rows = parse.parse_micro(cp.stdout)
    if cp.returncode != 0 or not rows:
        return [], "failed (exit %d): %s" % (cp.returncode, (cp.stderr or cp.stdout).strip()[-300:])
    return rows, ""


def busy_text(procs):
    return ", ".join("%s (%.0f%% of a CPU)" % (n, 100 * s) for n, s in procs[:4])


def main(argv):
    a = options(argv)
    # The stock runs must load no plugin: the test library adds AFXDP_PLUGIN's.
    os.environ.pop("AFXDP_PLUGIN", None)
    if os.geteuid() != 0:
        sys.exit("bench: run as root (network namespaces, veths, XDP programs, AF_XDP sockets)")
    t = tools(a)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = os.path.abspath(a.out or os.path.join(TOP, "results", "bench-" + stamp))
    logs = os.path.join(out, "logs")
    os.makedirs(logs, exist_ok=True)
    log = runlog.open_log(os.path.join(out, "bench.log"))
    env.log = log           # the test library's messages go to bench.log too

    cleanup.install()
    rid = env.run_id()
    items = schedule(a)
    print("bench: %d runs (%s preset: %d repeat(s) x %.1f s), run id %s, results in %s" % (
        len(items), a.preset, a.repeats, a.seconds, rid, out), flush=True)
    meta = {"date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), "label": a.label,
            "machine": machine.describe(), "load_start": machine.loadavg(),
            "busy_start": busy_text(machine.busy_processes(1.0)), "repeats": a.repeats,
            "planned": len(items), "gen_bound_share": scenario.GEN_BOUND_SHARE}
    rows = []
    micro = []
    failed = None
    cleanup_stack = contextlib.ExitStack()
    try:
        env.run_dir()           # marks the run live (tests/integration/cleanup.py --stale)
        s = scenario.Settings(seconds=a.seconds, warmup=a.warmup, settle=a.settle, size=a.size,
                              gen_cpu=a.gen_cpu, dut_cpu=a.dut_cpu, near_ns=a.near_ns,
                              gen=t["gen"], bench_xdp=t["bench_xdp"], pingpong=t["pingpong"],
                              l2fwd=t["l2fwd"], l2fwd_xdp=t["l2fwd_xdp"],
                              dpdk_l2fwd=t["dpdk_l2fwd"] if os.access(t["dpdk_l2fwd"], os.X_OK)
                              else None,
                              plugin=env.stage_plugin(t["plugin"]), logs=logs,
                              against=env.stage_plugin(a.against_plugin) if a.against else None,
                              devargs={"stock": a.stock_devargs, "ours": a.ours_devargs})
        meta["settings"] = s
        log("plugin %s (staged from %s)" % (s.plugin, t["plugin"]))
        if s.against:
            log("in place of the stock driver: %s (staged from %s)" % (s.against, a.against_plugin))
        # Hugepages, as DPDK is meant to run: on 4 KB pages the mbufs cost a
        # TLB miss each and that shared cost hides the drivers' own.
        if not a.no_huge:
            try:
                s.huge_dir = cleanup_stack.enter_context(hugepages.HugePages(pages=HUGE_PAGES)).mount
            except env.Skip as e:
                log("no hugepages (%s): the DPDK processes run with --no-huge" % e)
        meta["memory"] = ("hugepages (2 MB), %d MB per DPDK process" % s.mem_mb if s.huge_dir
                          else "--no-huge (4 KB pages)")
        prog = Progress(len(items))
        with scenario.Bench(s, log=log) as bench:
            last = ""
            for i, item in enumerate(items):
                prog.show(i, item, last)
                row = bench.run(item)
                rows.append(row)
                last = last_figure(row)
                report.write_runs_csv(os.path.join(out, "runs.csv"), rows)
            prog.show(len(items), items[-1], last)
            prog.done()
        # While the hugepages are still there: the receive path measured on both page sizes.
        rx_build = next((r["rx_build"] for r in rows
                         if r["driver"] == "ours" and r.get("rx_build")), None)
        micro, meta["micro_note"] = run_micro(a, t, log, s.huge_dir, rx_build)
    except cleanup.Interrupted as e:
        failed = str(e)
        meta["interrupted"] = True
    except (env.HarnessError, env.Skip, OSError) as e:
        failed = "%s" % e
        meta["interrupted"] = True
    finally:
        cleanup.ignore_signals()
        cleanup_stack.close()
        cleanup.run_all()
        reap.remove_run_dir(rid)
        left = reap.leftovers(rid)
        if left:
            print("bench: left behind, removing: %s" % "; ".join(left), file=sys.stderr)
            reap.reap(rid, say=log)
    if failed:
        print("\nbench: stopped: %s" % failed, file=sys.stderr)
    if "settings" not in meta:
        return 1

    if failed:
        micro, meta["micro_note"] = [], ""
    meta["load_end"] = machine.loadavg()
    meta["busy_end"] = busy_text(machine.busy_processes(1.0))
    ours = [r for r in rows if r["driver"] == "ours" and not r.get("error")]
    meta["rx_build"] = next((r["rx_build"] for r in ours if r.get("rx_build")), None)
    meta["ours"] = ("redirect %s, Rx path %s, XDP %s" % (
        next((r["redirect"] for r in ours if r.get("redirect")), "?"), meta["rx_build"] or "?",
        next((r["xdp_mode"] for r in ours if r.get("xdp_mode")), "?"))) if ours else "no run"

    order = lambda c, d, p: (PLACEMENT_ORDER.index(p), CONFIG_ORDER.index(c), DRIVER_ORDER.index(d))  # noqa: E731
    groups = stats.summarise(rows, order)
    figs = stats.headline(rows, [p for p in PLACEMENT_ORDER if p in a.placements],
                          targets=not a.against)
    notes = ["Files: report.md, runs.csv (every run), summary.csv, plot.png, logs/ (each run's "
             "testpmd transcript and counters), bench.log. How to read them: doc/guides/benchmark.rst."]
    lines = report.compose(meta, rows, groups, figs, micro, machine.PLACEMENTS, notes)
    report.write_runs_csv(os.path.join(out, "runs.csv"), rows)
    report.write_summary_csv(os.path.join(out, "summary.csv"), groups)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    ok, msg = report.plot(report.default_pythons(), os.path.join(HERE, "benchlib", "plot.py"),
                          os.path.join(out, "runs.csv"), os.path.join(out, "plot.png"))
    print()
    print("\n".join(lines))
    print(msg if ok else "bench: " + msg)
    log.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
