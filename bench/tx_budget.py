#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Copy mode's Tx budget on the host: ours with the raised budget against ours
with the kernel's (devarg tx_budget=kernel) and against the stock net_af_xdp.

Each repeat runs bench/run.py twice, their order alternating with the
repeat: once ours against the stock driver, once ours against ours with
tx_budget=kernel (--against this build); inside each, the two drivers back
to back. Every run is one of bench/run.py's, on its topology (testpmd io:
in at d0, out at d1, counted at the far end). The report: per
configuration, the median forwarded Mpps of each and the ratios of the
medians, and for testpmd io the sendto() calls per forwarded frame
(port 1's xstats tx_q0_wakeups / tx_q0_packets, over the run's whole life
including warm-up); the stock driver counts none. The machine may be shared:
the ratios are the result, not the rates, and the DUT lcore's on-CPU time
per forwarded frame the figure least moved by others taking its CPU.
"""

import argparse
import csv
import glob
import json
import os
import statistics
import subprocess
import sys
import datetime

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)

# (label, run.py's driver name in that invocation, invocation)
RAISED, KERNEL, STOCK = "ours, raised budget", "ours, tx_budget=kernel", "stock net_af_xdp"


def options(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.environ.get("BUILD_DIR", os.path.join(TOP, "build")))
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--quick", action="store_true", help="3 repeats of 1 s")
    ap.add_argument("--configs", default="io,l2fwd", help="bench/run.py configurations (io, l2fwd)")
    ap.add_argument("--placements", default="softirq")
    ap.add_argument("--out", help="results directory (default results/tx-budget-<date>-<time>)")
    ap.add_argument("--report", metavar="DIR",
                    help="only the report again, from an earlier run's results directory")
    a = ap.parse_args(argv)
    if a.quick:
        a.repeats, a.seconds = 3, 1.0
    return a


def run_bench(a, out, against):
    argv = [sys.executable, os.path.join(HERE, "run.py"), "--build", a.build,
            "--configs", a.configs, "--placements", a.placements, "--repeats", "1",
            "--seconds", str(a.seconds), "--no-micro", "--out", out]
    if against:
        argv += ["--against", a.build, "--stock-devargs", "tx_budget=kernel"]
    print("tx-budget: %s" % " ".join(argv[1:]), flush=True)
    # run.py's own table is in out/report.md: only its progress here
    return subprocess.run(argv, stdout=subprocess.DEVNULL).returncode


def rows_of(out, against):
    """{(label, config): [row]} of one bench/run.py results directory."""
    got = {}
    path = os.path.join(out, "runs.csv")
    if not os.path.exists(path):
        return got
    with open(path) as f:
        for r in csv.DictReader(f):
            if r.get("error"):
                continue
            label = RAISED if r["driver"] == "ours" else KERNEL if against else STOCK
            r["sendto_per_frame"] = sendto_per_frame(out, r)
            r["oncpu_ns_per_frame"] = oncpu_ns_per_frame(r)
            r["dir"] = out
            got.setdefault((label, r["config"]), []).append(r)
    return got


def sendto_per_frame(out, r):
    """Port 1's Tx kicks per frame sent, from the run's saved xstats (ours only)."""
    name = "%03d-%s-%s-%s-r%s.json" % (int(r["seq"]), r["config"], r["driver"], r["placement"],
                                       r["repeat"])
    path = os.path.join(out, "logs", name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        xs = json.load(f).get("xstats", {}).get("1", {})
    if "tx_q0_wakeups" not in xs or not xs.get("tx_q0_packets"):
        return None
    return xs["tx_q0_wakeups"] / xs["tx_q0_packets"]


def oncpu_ns_per_frame(r):
    """The DUT lcore's time on its CPU over the frames forwarded: unlike the
    rates, it does not count the time others took the CPU from it (a shared
    machine), though their cache misses still show."""
    try:
        share, secs, fwd = float(r["dut_oncpu_share"]), float(r["seconds"]), float(r["forwarded"])
    except (KeyError, TypeError, ValueError):
        return None
    return share * secs * 1e9 / fwd if fwd else None


def median(rows, key):
    vals = [float(r[key]) for r in rows if r.get(key) not in (None, "")]
    return statistics.median(vals) if vals else None


def pair_ratios(results, config, key, other):
    """raised / other of the two runs back to back in each bench/run.py
    invocation: median (min-max), or None."""
    mine = {r["dir"]: r for r in results.get((RAISED, config), [])}
    ratios = []
    for r in results.get((other, config), []):
        m = mine.get(r["dir"])
        if m and m.get(key) not in (None, "") and r.get(key) not in (None, "") and float(r[key]):
            ratios.append(float(m[key]) / float(r[key]))
    if not ratios:
        return None
    return "%.2fx (%.2f-%.2f, %d pairs)" % (statistics.median(ratios), min(ratios), max(ratios),
                                             len(ratios))


def fmt(v, spec):
    return "n/a" if v is None else spec % v


def report(a, results, meta):
    head = ("results of %s, read again %s" % (a.report, meta["date"]) if a.report else
            "%s; %d repeat(s) x %.1f s, interleaved" % (meta["date"], a.repeats, a.seconds))
    lines = ["# Copy mode's Tx budget per sendto(): raised vs the kernel's vs stock", "",
             "%s; placements %s. %s" % (head, a.placements, meta["kernel"]), "",
             "| configuration | figure (median) | %s | %s | %s | raised / kernel's: "
             "median of pairs (min-max) | raised / stock: median of pairs (min-max) |"
             % (RAISED, KERNEL, STOCK),
             "|---|---|---|---|---|---|---|"]
    figures = [("forwarded_mpps", "forwarded Mpps", "%.3f"),
               ("oncpu_ns_per_frame", "DUT lcore on-CPU ns per forwarded frame", "%.0f"),
               ("cycles_per_packet", "DUT cycles/packet (sendto included)", "%.0f"),
               ("sendto_per_frame", "sendto() per forwarded frame", "%.4f")]
    for config in a.configs.split(","):
        for key, name, spec in figures:
            m = {lab: median(results.get((lab, config), []), key)
                 for lab in (RAISED, KERNEL, STOCK)}
            if all(v is None for v in m.values()):
                continue
            lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                config, name, fmt(m[RAISED], spec), fmt(m[KERNEL], spec), fmt(m[STOCK], spec),
                pair_ratios(results, config, key, KERNEL) or "n/a",
                pair_ratios(results, config, key, STOCK) or "n/a"))
    lines += ["", "Runs per cell: %s." % ", ".join(
        "%s/%s %d" % (lab, c, len(v)) for (lab, c), v in sorted(results.items())),
        "Each repeat's two bench/run.py results are in r<repeat>-stock/ and r<repeat>-kernel/."]
    return lines


def main(argv):
    a = options(argv)
    if os.geteuid() != 0 and not a.report:
        sys.exit("tx-budget: run as root")
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = os.path.abspath(a.out or os.path.join(TOP, "results", "tx-budget-" + stamp))
    os.makedirs(out, exist_ok=True)
    meta = {"date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
            "kernel": "Linux %s" % os.uname().release}
    results = {}
    failed = 0
    if a.report:
        out = os.path.abspath(a.report)
        reps = sorted(glob.glob(os.path.join(out, "r*-*")))
        a.repeats = len(reps) // 2
        for d in reps:
            for k, v in rows_of(d, d.endswith("-kernel")).items():
                results.setdefault(k, []).extend(v)
    for rep in range(1, 0 if a.report else a.repeats + 1):
        order = [False, True] if rep % 2 else [True, False]
        for against in order:
            d = os.path.join(out, "r%d-%s" % (rep, "kernel" if against else "stock"))
            if run_bench(a, d, against) != 0:
                failed += 1
            for k, v in rows_of(d, against).items():
                results.setdefault(k, []).extend(v)
    lines = report(a, results, meta)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    if failed:
        print("tx-budget: %d bench/run.py invocation(s) failed: see their directories" % failed,
              file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
