#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Smoke run of the wake-up latency benchmark: bench/wakeup.py --smoke (100
frames 1 ms apart to each receiver, 0.5 s idle windows) must finish and write
its table; every frame the sender sent must be in each receiver's samples,
once, in order of sending, each received after its timestamp (the two
namespaces share CLOCK_MONOTONIC); asleep on the Rx interrupt, frames must
have been taken after a sleep; nothing may be left behind. No figure is
asserted: performance is measured, not asserted.

    test_wakeup_smoke.py --build <meson build dir>

Exit: 0 pass, 1 fail, 77 skip (not root), 99 harness error.
"""

import argparse
import os
import re
import shutil
import sys
import tempfile

import wakeup                # bench/wakeup.py (PYTHONPATH)
from benchlib import smoke
from afxdp_test import reap

HERE = os.path.dirname(os.path.abspath(__file__))
WAKEUP = os.path.join(os.path.dirname(HERE), "wakeup.py")
FRAMES = wakeup.options(["--smoke"]).frames
TIMEOUT = 60                 # only against a hang


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("SKIP: needs root (network namespaces, veths, XDP, AF_XDP)")
        return 77
    failures = []

    def check(ok, what):
        print("%s: %s" % ("ok" if ok else "FAILED", what))
        if not ok:
            failures.append(what)

    out = tempfile.mkdtemp(prefix="wakeup-smoke.", dir="/run")
    returncode, output, hung = smoke.run_harness(
        [WAKEUP, "--smoke", "--build", a.build, "--out", out], TIMEOUT)
    check(not hung, "bench/wakeup.py --smoke finished within %d s" % TIMEOUT)
    print(output)
    try:
        check(returncode == 0, "bench/wakeup.py --smoke exit code %s" % returncode)
        report = os.path.join(out, "report.md")
        text = open(report).read() if os.path.exists(report) else ""
        for mode in wakeup.MODES:
            check("| %s | %d | 0 |" % (wakeup.MODE_TEXT[mode], FRAMES) in text,
                  "report.md: %s took all %d frames, none lost" % (mode, FRAMES))
            path = os.path.join(out, "samples-%s.txt" % mode)
            samples = wakeup.read_samples(path) if os.path.exists(path) else []
            check([s[0] for s in samples] == list(range(FRAMES)),
                  "%s: each frame sent once in the samples, in order (%d samples)"
                  % (mode, len(samples)))
            check(all(s[1] > 0 for s in samples),
                  "%s: every frame received after the timestamp it carries" % mode)
            asleep = [s for s in samples if s[2] >= 0]
            if mode == "intr":
                check(asleep and all(0 < s[2] <= s[1] for s in asleep),
                      "intr: frames taken after a sleep (%d), each woken after its timestamp "
                      "and before it was in hand" % len(asleep))
            else:
                check(not asleep, "%s: no frame marked as taken after an Rx-interrupt sleep" % mode)
        m = re.search(r"run id (\w+)", output)
        check(m is not None, "wakeup.py printed its run id")
        if m:
            left = reap.leftovers(m.group(1))
            check(not left, "nothing of run %s left behind (netns, interfaces, processes, "
                  "EAL files, run directory): %s" % (m.group(1), left))
            if left:
                reap.reap(m.group(1))
        check("left behind" not in output, "wakeup.py found nothing of its own left behind")
    finally:
        shutil.rmtree(out, ignore_errors=True)
    if failures:
        print("FAIL: %d check(s): %s" % (len(failures), "; ".join(failures)))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
