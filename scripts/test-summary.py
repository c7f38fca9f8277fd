#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summarize meson testlog.json files: counts per result, and each skipped,
failed or expected-to-fail test with its reason (the last line it printed),
so that a skip is never mistaken for a pass; and the time the tests took,
on this machine and in the VM.

Usage: test-summary.py TESTLOG.json            one run, in detail
       test-summary.py --total [--failed N] [--skipped N] TESTLOG.json...
           the runs' totals as one 'N passed, N failed, N skipped' line, with
           N more failed and skipped (e.g. DPDK lines that could not be built),
           after what kind of kernel the runs had: its release, what it
           allows (asked of it here, with python/afxdp_test on PYTHONPATH:
           afxdp_test.kernel), and what the driver's probes found there (the
           test kernel_probes' `probe:` lines)
"""
import json
import os
import re
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


TAP_LINE = re.compile(r"^(not ok|ok) \d+ - (\S+)\s*(?:# (SKIP\S*)?\s*(.*))?")
TAP_PLAN = re.compile(r"^1\.\.(\d+)")
# TAP's TODO directive: an expected failure (kernel/tests/vm-xsk-suite.sh's
# known ones); meson counts "not ok # TODO" as one and "ok # TODO" as an
# unexpected pass, which fails
TAP_TODO = re.compile(r"\s# TODO\b\s*(.*)$")


def subtests(entry):
    """A TAP test's results ((name, result, reason) each: tests/integration/
    vm_suite.py's lines), the ones its plan announced but never reported
    failed; None for a test of one result."""
    lines = (entry.get("stdout") or "").splitlines()
    plan = next((int(m.group(1)) for m in map(TAP_PLAN.match, lines) if m), None)
    if plan is None:
        return None
    out = []
    for line in lines:
        m = TAP_LINE.match(line)
        if not m:
            continue
        verdict, name, skip, why = m.groups()
        name = name.rstrip(":")
        todo = TAP_TODO.search(line)
        if todo:
            out.append((name, "EXPECTEDFAIL" if verdict == "not ok" else "UNEXPECTEDPASS",
                        todo.group(1)))
        elif skip:
            out.append((name, "SKIP", why))
        else:
            out.append((name, "OK" if verdict == "ok" else "FAIL", why or ""))
    if plan == 0:       # the whole suite skipped: "1..0 # SKIP reason"
        return [(entry["name"], "SKIP", reason(entry))]
    out += [("#%d" % n, "FAIL", "never reported (the run ended early)")
            for n in range(len(out) + 1, plan + 1)]
    return out


def read_log(path):
    """The tests of one testlog.json, as meson wrote them."""
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def entries_of(entries):
    """Each result of a run's tests: a test's, or each of a TAP test's
    subtests, named '<test>/<subtest>'."""
    out = []
    for e in entries:
        subs = subtests(e)
        if subs is None:
            out.append(e)
            continue
        for name, result, why in subs:
            out.append({"name": "%s/%s" % (e["name"], name) if name != e["name"] else name,
                        "result": result, "stdout": why})
        if e["result"] not in PASSED + SKIPPED and all(r in PASSED + SKIPPED for _, r, _ in subs):
            out.append(e)       # failed beyond its lines (a kernel problem at the end)
    return out


def busy_seconds(entries):
    """The time in which at least one of `entries` ran: with tests run two
    at a time (scripts/test.sh), the wall-clock time they took."""
    spans = sorted((e["starttime"], e["starttime"] + e["duration"]) for e in entries)
    busy, end = 0.0, None
    for start, stop in spans:
        if end is None or start > end:
            busy += stop - start
            end = stop
        elif stop > end:
            busy += stop - end
            end = stop
    return busy


def times(entries):
    """'host tests N.N min, VM tests N.N min' of a run's tests (suite vm is
    the VM's)."""
    vm = [e for e in entries if ":vm " in e["name"] or ":vm+" in e["name"]]
    host = [e for e in entries if e not in vm]
    return "host tests %.1f min, VM tests %.1f min (wall clock)" % (
        busy_seconds(host) / 60, busy_seconds(vm) / 60)


def detail(path):
    tests = read_log(path)
    entries = entries_of(tests)     # a TAP test's subtests one by one
    counts = Counter(e["result"] for e in entries)
    print()
    print("Test summary: " + ", ".join("%d %s" % (n, r.lower()) for r, n in sorted(counts.items())))
    print("Time: " + times(tests))
    for e in entries:
        if e["result"] != "OK":     # skips, failures, and expected failures with their reason
            print("  %-8s %-40s %s" % (e["result"], e["name"], reason(e)))


PROBE_LINE = re.compile(r"probe: (\S+) = (.*)$")


def driver_probes(paths):
    """[(key, value)] the test kernel_probes printed (the driver's answers on
    the host's kernel), from the first log that has them."""
    for path in paths:
        for e in read_log(path):
            if e["name"].endswith(" kernel_probes") or e["name"] == "kernel_probes":
                found = [m.groups() for m in map(PROBE_LINE.search,
                                                 (e.get("stdout") or "").splitlines()) if m]
                if found:
                    return found
    return []


def kernel_header(paths):
    """What kind of kernel the run had, so that a reader of a red run knows."""
    print("Kernel %s" % os.uname().release)
    try:
        from afxdp_test import kernel
        for what, answer in kernel.facts()[1:]:
            print("  %-42s %s" % (what, answer))
    except Exception as e:     # no library on the path, or no privileges: say so, go on
        print("  (what it allows not asked: %s)" % e)
    probes = driver_probes(paths)
    if probes:
        print("  the driver's probes (test kernel_probes):")
        for key, value in probes:
            print("    %s = %s" % (key, value))


def total(args):
    extra = {"--failed": 0, "--skipped": 0}
    while args and args[0] in extra:
        extra[args[0]] = int(args[1])
        args = args[2:]
    kernel_header(args)
    results = [e["result"] for p in args for e in entries_of(read_log(p))]
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
