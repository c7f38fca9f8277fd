#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summarize a meson testlog.json: counts per result, and each skipped or
failed test with its reason (the last line it printed), so that a skip is
never mistaken for a pass."""
import json
import sys
from collections import Counter


def reason(entry):
    for stream in ("stdout", "stderr"):
        lines = [l for l in (entry.get(stream) or "").splitlines() if l.strip()]
        for line in reversed(lines):
            if "skip" in line.lower() or "fail" in line.lower() or "error" in line.lower():
                return line.strip()[:200]
        if lines:
            return lines[-1].strip()[:200]
    return ""


def main():
    entries = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    counts = Counter(e["result"] for e in entries)
    print()
    print("Test summary: " + ", ".join("%d %s" % (n, r.lower()) for r, n in sorted(counts.items())))
    for e in entries:
        if e["result"] not in ("OK", "EXPECTEDFAIL"):
            print("  %-8s %-40s %s" % (e["result"], e["name"], reason(e)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
