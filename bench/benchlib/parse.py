# SPDX-License-Identifier: BSD-3-Clause
"""Parsing what our tools and the kernel print for the benchmark (afxdp-gen,
bench-pingpong, bench/micro/run.py, /proc). Pure functions on text, no side
effects: unit-tested on recorded outputs (bench/tests). testpmd's output is
parsed by afxdp_test.dpdk_output, the l2fwd example's by afxdp_test.l2fwd.
"""

import json
import re


def parse_gen_json(stdout):
    """afxdp-gen --json: the last line that is a JSON object."""
    for line in reversed(stdout.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                continue
    raise ValueError("no JSON line in afxdp-gen's output:\n%s" % stdout[-1000:])


def parse_json_line(stdout):
    """Any of our tools' --json output (bench-pingpong)."""
    return parse_gen_json(stdout)


_MICRO_ROW = re.compile(r"^\|\s*(baseline|x86-64-v3)\s*\|\s*([\d.]+)\s*\|(.*)\|\s*([^|]*?)\s*\|\s*$")
_MICRO_CYCLES = re.compile(r"([\d.]+)\s*\(([\d.]+)\.\.([\d.]+)\)")


def parse_micro(stdout):
    """bench/micro/run.py's table: [{'build', 'instructions', 'cycles_median',
    'cycles_min', 'cycles_max', 'verdict'}], and 'huge_median', 'huge_min',
    'huge_max' when it measured on hugepages too."""
    rows = []
    for line in stdout.splitlines():
        m = _MICRO_ROW.match(line.strip())
        if not m:
            continue
        cells = _MICRO_CYCLES.findall(m.group(3))
        if not cells:
            continue
        row = {"build": m.group(1), "instructions": float(m.group(2)), "verdict": m.group(4)}
        for key, cell in zip(("cycles", "huge"), cells):
            row.update({key + "_median": float(cell[0]), key + "_min": float(cell[1]),
                        key + "_max": float(cell[2])})
        rows.append(row)
    return rows


def parse_softirqs(text, kind="NET_RX"):
    """/proc/softirqs: the per-CPU counts of one kind, [cpu0, cpu1, ...]."""
    for line in text.splitlines():
        parts = line.split()
        if parts and parts[0] == kind + ":":
            return [int(x) for x in parts[1:]]
    raise ValueError("no %s line in /proc/softirqs" % kind)


def parse_proc_stat(text):
    """/proc/<pid>/stat: {'comm', 'utime', 'stime', 'processor'} (clock ticks;
    the last CPU it ran on). The name may hold spaces and parentheses."""
    rparen = text.rindex(")")
    comm = text[text.index("(") + 1:rparen]
    fields = text[rparen + 2:].split()
    # fields[0] is field 3 (state) of proc(5)
    return {"comm": comm, "utime": int(fields[11]), "stime": int(fields[12]),
            "processor": int(fields[36])}
