#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Smoke run of the benchmark: bench/run.py --smoke (one repeat of 0.3 s of
every configuration with each of its drivers, softirq placement; threaded
for one configuration of each kind, run.SMOKE_THREADED) must finish, write
its table, CSVs (and the plot where matplotlib is importable), the
microbenchmark's row of the Rx path the driver used, every run its
schedule plans (run.schedule, so the count follows the configurations) must
be in runs.csv with its counts, and nothing may be left behind
(afxdp_test.reap's leftover check). No figure is asserted: the machine is
shared and the run is short.

    test_smoke.py --build <meson build dir>

Exit: 0 pass, 1 fail, 77 skip (not root, or dpdk-testpmd / the stock driver
missing), 99 harness error.
"""

import argparse
import csv
import glob
import os
import re
import shutil
import sys
import tempfile

import run                   # bench/run.py (PYTHONPATH): what --smoke plans
from benchlib import scenario, smoke
from afxdp_test import env, reap

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = os.path.join(os.path.dirname(HERE), "run.py")
TIMEOUT = 240                # only against a hang


def skip(why):
    print("SKIP: %s" % why)
    sys.exit(77)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    a = ap.parse_args()
    if os.geteuid() != 0:
        skip("needs root (network namespaces, veths, XDP, AF_XDP)")
    if not shutil.which("dpdk-testpmd"):
        skip("dpdk-testpmd not found (Debian package dpdk)")
    if not glob.glob(env.STOCK_PMD_GLOB):
        skip("Debian's stock net_af_xdp is not installed (%s)" % env.STOCK_PMD_GLOB)
    planned = run.schedule(run.options(["--smoke"]))
    configs = sorted({i["config"] for i in planned})

    failures = []

    def check(ok, what):
        print("%s: %s" % ("ok" if ok else "FAILED", what))
        if not ok:
            failures.append(what)

    out = tempfile.mkdtemp(prefix="bench-smoke.", dir="/run")
    returncode, output, hung = smoke.run_harness(
        [RUN, "--smoke", "--build", a.build, "--out", out,
         "--label", "smoke run (test suite): figures not meaningful"], TIMEOUT)
    check(not hung, "bench/run.py --smoke finished within %d s" % TIMEOUT)
    print(output)
    try:
        check(returncode == 0, "bench/run.py --smoke exit code %s" % returncode)
        report = os.path.join(out, "report.md")
        text = open(report).read() if os.path.exists(report) else ""
        check("| placement | figure | stock | ours |" in text, "report.md has the headline table")
        check("| configuration | driver | placement |" in text, "report.md has the configuration table")
        check("| configuration | driver | placement |" in output, "the table is printed")
        check("- Generator: afxdp-gen with " in text and "| offered Mpps, stock / ours (generator) |"
              in text, "report.md says which generator method ran, and each pair's offered loads")
        # The microbenchmark's failure is a note of the report, not run.py's exit code.
        check("| Rx path | instructions/packet (callgrind) |" in text
              and "(used by the driver here)" in text,
              "report.md has the Rx microbenchmark's row of the Rx path the driver used")
        runs_csv = os.path.join(out, "runs.csv")
        rows = list(csv.DictReader(open(runs_csv))) if os.path.exists(runs_csv) else []
        check(len(rows) == len(planned), "runs.csv has the %d runs --smoke plans (%d "
              "configurations, both placements, stock and ours for the DPDK ones): %d"
              % (len(planned), len(configs), len(rows)))
        check(sorted({r["config"] for r in rows}) == configs,
              "runs.csv has every configuration: %s" % ", ".join(configs))
        for r in rows:
            name = "%s %s %s" % (r["config"], r["driver"], r["placement"])
            check(not r["error"], "run %s: no error%s" % (name, (": " + r["error"]) if r["error"] else ""))
            if (r["config"], r["driver"]) == ("io-jumbo", "stock"):
                # Upstream has no multi-buffer: its refusal is the result.
                check("> device max MTU" in r.get("unsupported", ""),
                      "run %s: the stock driver's refusal of MTU 9000 recorded: %r"
                      % (name, r.get("unsupported")))
                continue
            check(r["offered_mpps"] != "" and r["received_mpps"] != "", "run %s: rates computed" % name)
            check(r["gen_method"] in ("live", "afxdp", "af_packet"),
                  "run %s: the generator's method recorded: %r" % (name, r["gen_method"]))
            cfg = scenario.CONFIGS[r["config"]]
            if cfg["kind"] == "afxdp":
                check(r["cycles_per_packet"] != "", "run %s: cycles/packet read at stop" % name)
            if cfg["delivered"] == "forwarded":
                check(r["forwarded_mpps"] != "", "run %s: forwarded counted at the far end" % name)
            if cfg.get("size"):
                check(r["forwarded_gbps"] != "", "run %s: Gbit/s of its %s-byte frames"
                      % (name, cfg["size"]))
            if r["driver"] == "ours":
                check(r["redirect"] in ("map", "direct"), "run %s: our driver's redirect mode logged" % name)
        check(os.path.exists(os.path.join(out, "summary.csv")), "summary.csv written")
        plot = os.path.exists(os.path.join(out, "plot.png"))
        check(plot or "no plot: matplotlib cannot be imported" in output,
              "plot.png written, or the reason it is not")
        m = re.search(r"run id (\w+)", output)
        check(m is not None, "run.py printed its run id")
        if m:
            rid = m.group(1)
            left = reap.leftovers(rid)
            check(not left, "nothing of run %s left behind (netns, interfaces, processes, "
                  "mounts, EAL files, run directory): %s" % (rid, left))
            if left:
                reap.reap(rid)
        check("left behind" not in output, "run.py found nothing of its own left behind")
    finally:
        shutil.rmtree(out, ignore_errors=True)
    if failures:
        print("FAIL: %d check(s): %s" % (len(failures), "; ".join(failures)))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
