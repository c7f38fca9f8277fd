#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summarize meson testlog.json files: counts per result, and each skipped or
failed test with its reason (the last line it printed), so that a skip is
never mistaken for a pass.

Usage: test-summary.py TESTLOG.json            one run, in detail
       test-summary.py --total [--failed N] [--skipped N] TESTLOG.json...
           the runs' totals as one 'N passed, N failed, N skipped' line, with
           N more failed and skipped (e.g. DPDK lines that could not be built)
"""
import json
import sys
from collections import Counter

PASSED = ("OK", "EXPECTEDFAIL")
SKIPPED = ("SKIP",)


def reason(entry):
    for stream in ("stdout", "stderr"):
        lines = [l for l in (entry.get(stream) or "").splitlines() if l.strip()]
        for line in reversed(lines):
            if "skip" in line.lower() or "fail" in line.lower() or "error" in line.lower():
                return line.strip()[:200]
        if lines:
            return lines[-1].strip()[:200]
    return ""


def entries_of(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def detail(path):
    entries = entries_of(path)
    counts = Counter(e["result"] for e in entries)
    print()
    print("Test summary: " + ", ".join("%d %s" % (n, r.lower()) for r, n in sorted(counts.items())))
    for e in entries:
        if e["result"] not in PASSED:
            print("  %-8s %-40s %s" % (e["result"], e["name"], reason(e)))


def total(args):
    extra = {"--failed": 0, "--skipped": 0}
    while args and args[0] in extra:
        extra[args[0]] = int(args[1])
        args = args[2:]
    results = [e["result"] for p in args for e in entries_of(p)]
    passed = sum(r in PASSED for r in results)
    skipped = sum(r in SKIPPED for r in results)
    failed = len(results) - passed - skipped
    print("%d passed, %d failed, %d skipped"
          % (passed, failed + extra["--failed"], skipped + extra["--skipped"]))


def main():
    if sys.argv[1:2] == ["--total"]:
        total(sys.argv[2:])
    else:
        detail(sys.argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
