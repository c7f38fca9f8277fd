#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Guest instructions per frame, in the VM under qemu -icount: testpmd rxonly
and io with (a) Debian's stock net_af_xdp in copy mode, (b) ours in copy
mode, batched, (c) ours in zero-copy with redirect=direct; the kernel's
XDP_DROP (the receive baseline) and DEVMAP redirect (the floor).
bench/benchlib/icount.py says what is counted.

    kernel/bench.sh --testpmd [options]     (boots the VM with -icount shift=0)

kernel/bench.sh runs the (a) rows on the unpatched kernel (its per-frame
receive, as stock 6.12), then the others on the patched one with
--reference naming the first run's icount.json: the table takes the (a)
rows, and the ratios against them, from there.

Inside the VM only (it refuses to run elsewhere: without -icount the figures
would be TCG's host time). Options below; the rounds are interleaved (every
row once per round), and the table gives each row's median and how far the
rounds were apart.

Exit status: 0 done (whatever the figures), 1 the benchmark failed, 2 bad options.
"""

import argparse
import json
import os
import statistics
import sys

from afxdp_test import cleanup, env, reap
from benchlib import icount, runlog, scenario

# The targets (reported, never asserted)
TARGETS = (
    ("io (c) at most half of io (a), per frame", "io (c)", "io (a)", 0.5, "ipf"),
    ("rxonly receive part of (c) at least 40% below (a)", "rxonly (c)", "rxonly (a)", 0.6,
     "rx_ipf"),
    ("io (c) within 2x of the kernel fast path (xdp-redirect)", "io (c)", "xdp-redirect", 2.0,
     "ipf"),
)


def options(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="the meson build directory (default ./build)")
    ap.add_argument("--rounds", type=int, default=2, help="rounds of every row (default 2)")
    ap.add_argument("--cycle", type=int, default=1024,
                    help="frames per cycle: one generator call, then testpmd takes them"
                         " (default 1024, below every ring)")
    ap.add_argument("--size", type=int, default=64,
                    help="frame size in bytes without FCS, 60..1514 (default 64)")
    ap.add_argument("--cycles", type=int, default=4,
                    help="measured cycles per row and round (default 4)")
    ap.add_argument("--warmup", type=int, default=1,
                    help="cycles before, not counted (default 1)")
    ap.add_argument("--rows", default="",
                    help="comma-separated rows, run in that order, e.g. 'xdp-drop,io (c)'"
                         " (default all)")
    ap.add_argument("--same-veths", action="store_true",
                    help="one topology for all rows, not one per row (rows after rows on the"
                         " same veths, as testpmd restarted on them)")
    ap.add_argument("--out", default=None, help="results directory (default $AFXDP_VM_RESULTS)")
    ap.add_argument("--reference", default=None,
                    help="icount.json of a run on the unpatched kernel: its (a) rows go into"
                         " the table as the reference")
    a = ap.parse_args(argv)
    if a.rounds < 1 or a.cycle < 1 or a.cycles < 1 or a.warmup < 0:
        ap.error("--rounds, --cycle and --cycles must be at least 1, --warmup at least 0")
    if not 60 <= a.size <= 1514:
        ap.error("--size must be 60..1514 (the veths' MTU is 1500)")
    return a


def tools(build):
    b = os.path.abspath(build)
    d = os.path.join(b, "drivers", "net", "af_xdp")
    plugins = sorted(f for f in os.listdir(d) if f.startswith("librte_net_af_xdp_direct.so.")
                     and f.count(".") >= 4) if os.path.isdir(d) else []
    t = {"gen": os.path.join(b, "app", "xdp-gen", "afxdp-gen"),
         "bench_xdp": os.path.join(b, "bench", "xdp", "bench-xdp"),
         "plugin": os.path.join(d, plugins[0]) if plugins else None}
    missing = [k for k, p in t.items() if not p or not os.path.exists(p)]
    if missing:
        sys.exit("icount: not built in %s: %s (meson setup + ninja there)" % (b, ", ".join(missing)))
    return t


def selected(spec):
    """The rows to run, in the order given (a row may come twice), or all."""
    if not spec:
        return icount.ROWS
    known = {icount.row_name(*r): r for r in icount.ROWS + icount.EXTRA_ROWS}
    want = [w.strip() for w in spec.split(",") if w.strip()]
    unknown = [w for w in want if w not in known]
    if unknown:
        sys.exit("icount: unknown rows %s (known: %s)" % (", ".join(unknown), ", ".join(known)))
    return [known[w] for w in want]


def spread(values):
    """(max - min) / median, in percent"""
    m = statistics.median(values)
    return 100.0 * (max(values) - min(values)) / m if m else 0.0


def summarize(rounds_rows):
    """{row name: {figure: median, ...}} over the rounds; the receive part
    (rx_ipf) is a row's total minus the same round's xdp-drop."""
    by = {}
    for rows in rounds_rows:
        drop = next((r for r in rows if r["row"] == "xdp-drop" and "error" not in r), None)
        for r in rows:
            if "error" in r:
                by.setdefault(r["row"], {"errors": []}).setdefault("errors", []).append(r["error"])
                continue
            if drop is not None:
                r["rx_ipf"] = r["ipf"] - drop["ipf"]
            by.setdefault(r["row"], {}).setdefault("runs", []).append(r)
    out = {}
    for name, d in by.items():
        runs = d.get("runs", [])
        s = {"errors": d.get("errors", []), "runs": len(runs)}
        for k in ("gen_ipf", "dut_ipf", "ipf", "rx_ipf", "net_rx_elsewhere", "rx_empty_pct",
                  "sent", "delivered", "veth_dropped", "testpmd_dropped", "left",
                  "dut_ipf_offered"):
            vals = [r[k] for r in runs if r.get(k) is not None]
            if vals:
                s[k] = statistics.median(vals)
                s[k + "_spread"] = spread(vals)
        if runs:
            s["what"] = runs[0]["config"]
            s["tsc_mhz"] = runs[0].get("tsc_mhz")
        out[name] = s
    return out


def table(summary, rows):
    lines = ["| row | what | generator + kernel receive | DUT busy polls | instructions/frame "
             "| receive part (minus xdp-drop) | vs (a) | rounds apart | NET_RX on CPU 0 |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for config, variant in dict.fromkeys(rows):
        name = icount.row_name(config, variant)
        s = summary.get(name, {})
        what = icount.VARIANTS[variant]["what"] if variant else icount.config_of(config)["what"]
        if variant and icount.config_of(config).get("slow_peer"):
            what = "%s; %s" % (icount.config_of(config)["what"], what)
        if "ipf" not in s:
            lines.append("| %s | %s | - | - | not measured: %s | - | - | - | - |" % (
                name, what, "; ".join(s.get("errors") or ["not run"])))
            continue
        ref = summary.get("%s (a)" % config, {}) if variant else {}
        vs = "%.2fx" % (s["ipf"] / ref["ipf"]) if variant and ref.get("ipf") else "-"
        rx = "%.0f" % s["rx_ipf"] if "rx_ipf" in s and config == "rxonly" else "-"
        lines.append("| %s | %s | %.1f | %.1f | **%.1f** | %s | %s | %.2f%% | %.1f |" % (
            name, what, s["gen_ipf"], s["dut_ipf"], s["ipf"], rx, vs, s["ipf_spread"],
            s.get("net_rx_elsewhere", float("nan"))))
    return "\n".join(lines)


def slow_table(summary, rows, ref=None):
    """The slow-peer rows: where the frames went, and the DUT's instructions
    per frame delivered and per frame offered; with `ref` (the unpatched
    kernel's summary, kernel/bench.sh --baseline-too) its row of the same
    name first."""
    lines = ["| row | kernel | offered | delivered | dropped by veth (ring full) "
             "| dropped by testpmd (Tx ring full) | left in the Tx ring (window's change) "
             "| DUT polls / frame delivered | DUT polls / frame offered | rounds apart |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for config, variant in dict.fromkeys(rows):
        if not icount.config_of(config).get("slow_peer"):
            continue
        name = icount.row_name(config, variant)
        for kernel, summ in (("baseline", ref), ("patched" if ref else "this one", summary)):
            s = (summ or {}).get(name, {})
            if summ is None or "dut_ipf" not in s:
                if summ is not None:
                    lines.append("| %s | %s | not measured: %s |" % (
                        name, kernel, "; ".join(s.get("errors") or ["not run"])))
                continue
            lines.append("| %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f | **%.1f** | %.1f | %.2f%% |"
                         % (name, kernel, s["sent"], s["delivered"], s["veth_dropped"],
                            s["testpmd_dropped"], s["left"], s["dut_ipf"],
                            s["dut_ipf_offered"], s["dut_ipf_spread"]))
    return "\n".join(lines) if len(lines) > 2 else ""


def targets(summary):
    lines = []
    for what, row, ref, limit, key in TARGETS:
        a, b = summary.get(row, {}).get(key), summary.get(ref, {}).get(key)
        if a is None or b is None:
            lines.append("- %s: not measurable (%s or %s missing)" % (what, row, ref))
            continue
        ratio = a / b
        lines.append("- %s: %.0f against %.0f = %.2fx (at most %.2fx): **%s**" % (
            what, a, b, ratio, limit, "met" if ratio <= limit else "NOT met"))
    return "\n".join(lines)


def main(argv):
    a = options(argv)
    if not os.environ.get("AFXDP_VM"):
        sys.exit("icount: run inside the VM (kernel/bench.sh --testpmd): the figures are "
                 "instructions only under qemu -icount")
    if not os.environ.get("AFXDP_VM_ICOUNT"):
        print("# WARNING: AFXDP_VM_ICOUNT is not set: times are TCG's, not instructions")
    os.environ.pop("AFXDP_PLUGIN", None)
    t = tools(a.build)
    rows = selected(a.rows)
    out = a.out or os.environ.get("AFXDP_VM_RESULTS") or "."
    logs = os.path.join(out, "logs")
    os.makedirs(logs, exist_ok=True)
    log = runlog.open_log(os.path.join(out, "icount.log"))
    env.log = log

    cleanup.install()
    rid = env.run_id()
    print("# %d rows x %d rounds, %d cycle(s) of %d frames of %d bytes each (+%d warm-up); "
          "kernel %s" % (len(rows), a.rounds, a.cycles, a.cycle, a.size, a.warmup,
                         os.uname().release), flush=True)
    print("# round | row | sent | delivered | generator ns/frame | DUT busy ns/frame | "
          "instructions/frame | empty polls % | TSC MHz", flush=True)
    rounds_rows = []
    failed = None
    try:
        env.run_dir()
        s = scenario.Settings(gen=t["gen"], bench_xdp=t["bench_xdp"],
                              plugin=env.stage_plugin(t["plugin"]), logs=logs,
                              huge_dir="/dev/hugepages", mem_mb=256)
        with icount.IcountBench(s, a.cycle, a.cycles, a.warmup, a.same_veths, log=log,
                                size=a.size) as bench:
            for r in range(1, a.rounds + 1):
                bench.round = r
                done = []
                for config, variant in rows:
                    row = bench.measure(config, variant)
                    row["round"] = r
                    done.append(row)
                    if "ipf" in row:
                        print("  %d | %s | %d | %d | %.1f | %.1f | %.1f | %s | %s%s" % (
                            r, row["row"], row["sent"], row["delivered"], row["gen_ipf"],
                            row["dut_ipf"], row["ipf"], row.get("rx_empty_pct", "-"),
                            row.get("tsc_mhz", "-"),
                            "  (%s)" % row["error"] if "error" in row else ""), flush=True)
                    else:
                        print("  %d | %s | %s" % (r, row["row"], row.get("error")), flush=True)
                rounds_rows.append(done)
    except cleanup.Interrupted as e:
        failed = str(e)
    except (env.HarnessError, env.Skip, OSError) as e:
        failed = "%s" % e
    finally:
        cleanup.ignore_signals()
        cleanup.run_all()
        reap.remove_run_dir(rid)
    with open(os.path.join(out, "icount.json"), "w") as f:
        json.dump(rounds_rows, f, indent=1, sort_keys=True)
    summary = summarize(rounds_rows)
    shown = rows
    ref = None
    if a.reference:
        # the (a) rows of the unpatched kernel's run, with its own xdp-drop
        with open(a.reference) as f:
            ref = summarize(json.load(f))
        for r in icount.ROWS:
            name = icount.row_name(*r)
            if r[1] == "a" and name in ref:
                summary[name] = ref[name]
        shown = [r for r in icount.ROWS + icount.EXTRA_ROWS
                 if r in rows or icount.row_name(*r) in ref and r[1] == "a"]
        print("\n# (a) rows: the unpatched kernel's run (%s)" % a.reference)
    print("\n# medians over %d round(s), %d-byte frames; instructions = guest ns under "
          "-icount shift=0" % (len(rounds_rows), a.size))
    print(table(summary, shown))
    slow = slow_table(summary, rows, ref)
    if slow:
        print("\n# the slow peer: medians per %d-cycle window (%d frames offered); the "
              "baseline kernel's from its run (--reference)" % (a.cycles, a.cycles * a.cycle))
        print(slow)
    print("\n# targets (reported, not asserted)")
    print(targets(summary))
    if failed:
        print("icount: stopped early: %s" % failed, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
