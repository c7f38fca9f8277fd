# SPDX-License-Identifier: BSD-3-Clause
"""The benchmark's outputs: a Markdown report (also printed), runs.csv (every
run), summary.csv (per configuration) and plot.png (bench/benchlib/plot.py,
in a Python that has matplotlib)."""

import csv
import os
import subprocess
import sys

from . import stats

# runs.csv: these columns first, in this order; anything else after them.
RUN_COLUMNS = [
    "seq", "repeat", "config", "driver", "placement", "order", "started", "error", "unsupported",
    "gen_method", "offered_mpps", "received_mpps", "forwarded_mpps", "forwarded_gbps", "frame_bytes",
    "dropped_mpps", "delivered_share", "bound",
    "cycles_per_packet", "busy_cycles", "cycles_packets", "tsc_mhz",
    "rx_polls", "pkts_per_poll",
    "seconds", "built", "sent", "gen_ring_drops", "kernel_rx", "received", "rx_missed",
    "tx_packets", "tx_dropped", "forwarded", "sink_rx",
    "pp_before_ns", "pp_after_ns", "placement_class", "dut_oncpu_share", "dut_wait_share", "dut_slices",
    "napi_cpu", "napi_cpu_share", "psi_cpu_some",
    "net_rx_gen_cpu", "net_rx_dut_cpu", "redirect", "rx_build", "xdp_mode", "gen_not_taken",
    "loadavg1",
]

FIGURE_NAMES = {
    ("io", "forwarded_mpps"): "io forwarding, Mpps at the far end",
    ("l2fwd", "forwarded_mpps"): "l2fwd example forwarding, Mpps at the far end",
    ("dpdk-l2fwd", "forwarded_mpps"): "DPDK's examples/l2fwd forwarding, Mpps at the far end",
    ("rxonly", "cycles_per_packet"): "rxonly, DUT userspace cycles/packet",
    ("io", "cycles_per_packet"): "io, DUT userspace cycles/packet (Tx sendto included)",
    ("rxonly", "received_mpps"): "rxonly, Mpps received",
}


def write_runs_csv(path, rows):
    cols = list(RUN_COLUMNS)
    for r in rows:
        for k in r:
            if k not in cols:
                cols.append(k)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in cols})


def write_summary_csv(path, groups):
    cols = ["config", "driver", "placement", "runs", "errors"]
    for m in stats.METRICS:
        cols += [m + "_min", m + "_median", m + "_max"]
    cols += ["bound", "placement_classes"]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for g in groups:
            line = [g["config"], g["driver"], g["placement"], g["runs"], g["errors"]]
            for m in stats.METRICS:
                line += list(g[m]) if g[m] else ["", "", ""]
            line.append(" ".join("%s:%d" % kv for kv in sorted(g["bound"].items())))
            line.append(" ".join("%s:%d" % kv for kv in sorted(g["classes"].items())))
            w.writerow(line)


def _fmt(x, digits):
    return "%.*f" % (digits, x)


def fmt_spread(sp, digits=2):
    """'median (min-max)'; one value alone; '-' for none."""
    if not sp:
        return "-"
    lo, med, hi = sp
    if lo == hi:
        return _fmt(med, digits)
    return "%s (%s-%s)" % (_fmt(med, digits), _fmt(lo, digits), _fmt(hi, digits))


def _counts(d):
    return ", ".join("%s %d" % (k, v) for k, v in sorted(d.items(), key=lambda kv: -kv[1])) or "-"


def offered_cell(f, stock="stock"):
    """The offered loads of a figure's pairs, and the generator's method(s)."""
    return "%s / %s (%s)" % (fmt_spread(f.get("offered_stock")), fmt_spread(f.get("offered_ours")),
                             ", ".join(f.get("gen_methods") or ["?"]))


def headline_table(figs, placement_names, stock="stock"):
    """`stock`: the name of what ours is compared with (--against: another build)."""
    lines = ["| placement | figure | %s | ours | ours/%s: median of pairs (min-max) "
             "| offered Mpps, %s / ours (generator) | target | verdict |" % (stock, stock, stock),
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for f in figs:
        digits = 1 if f["metric"] == "cycles_per_packet" else 3
        target = "-" if f["target"] is None else ("%s %.1fx" % ("at least" if f["higher_is_better"] else "at most",
                                                                f["target"]))
        ratio = "%.2fx (%.2f-%.2f), %d pairs" % (f["ratio"], f["ratio_min"], f["ratio_max"], f["pairs"])
        if f["metric"] == "cycles_per_packet":
            ratio += ", %d with both runs in one placement class" % f["same_class_pairs"]
        if f.get("comparable_pairs", f["pairs"]) < f["pairs"] and f.get("comparable_ratio"):
            ratio += "; %.2fx over the %d comparable" % (f["comparable_ratio"], f["comparable_pairs"])
        verdict = f["verdict"]
        if verdict == "(no target)" and f.get("not_comparable"):
            verdict += "; %s" % no_verdict_words(f)
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            placement_names.get(f["placement"], f["placement"]),
            FIGURE_NAMES.get((f["config"], f["metric"]), "%s %s" % (f["config"], f["metric"])),
            _fmt(f["stock"], digits), _fmt(f["ours"], digits), ratio, offered_cell(f, stock),
            target, verdict))
    return lines


def no_verdict_words(f):
    return stats.no_verdict_reason(f)


def shortfalls(figs, placement_names, stock="stock"):
    out = []
    for f in figs:
        if f["verdict"].startswith("SHORT"):
            out.append("- **Short**: %s, %s: ours/%s %.2fx, target %s %.1fx." % (
                FIGURE_NAMES.get((f["config"], f["metric"])), placement_names.get(f["placement"]), stock,
                f["ratio"], "at least" if f["higher_is_better"] else "at most", f["target"]))
        elif f["verdict"].startswith("no verdict"):
            out.append("- **No verdict**: %s, %s: ours/%s %.2fx, offered %s Mpps; %s." % (
                FIGURE_NAMES.get((f["config"], f["metric"])), placement_names.get(f["placement"]),
                stock, f["ratio"], offered_cell(f, stock), f["verdict"][len("no verdict: "):]))
    return out


def jumbo_section(groups, gain):
    """Frames of the whole MTU, 9000 against 1500: Mpps and Gbit/s at the
    far end per driver, the stock driver's refusal, ours' gain."""
    js = [g for g in groups if g["config"] in stats.JUMBO_CONFIGS]
    if not js:
        return []
    L = ["## Jumbo frames: io forwarding at MTU 9000 beside MTU 1500 (frames of the whole MTU)", "",
         "| configuration | driver | placement | runs | frame bytes | forwarded Mpps | forwarded Gbit/s | bound |",
         "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    refusals = []
    for g in js:
        if g["unsupported"] and not g["forwarded_mpps"]:
            fwd = gbps = "not supported"
            refusals.append("- %s, %s: testpmd could not configure the port: `%s`." % (
                g["config"], g["driver"], "`; `".join(g["unsupported"])))
        else:
            fwd, gbps = fmt_spread(g["forwarded_mpps"], 3), fmt_spread(g["forwarded_gbps"], 2)
        runs = "%d" % g["runs"] + (" (+%d failed)" % g["errors"] if g["errors"] else "")
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            g["config"], g["driver"], g["placement"], runs,
            ", ".join(str(b) for b in g["frame_bytes"]) or "-", fwd, gbps, _counts(g["bound"])))
    L.append("")
    L += refusals
    if gain["verdict"] != "no data":
        L.append("- Ours at MTU 9000 over ours at MTU 1500, forwarded Gbit/s: %.2fx (%.2f-%.2f), "
                 "%d pairs (one of each per repeat); aim at least %.1fx: %s." % (
                     gain["ratio"], gain["ratio_min"], gain["ratio_max"], gain["pairs"],
                     gain["target"], gain["verdict"]))
        L.append("")
    return L


def config_table(groups, stock="stock"):
    lines = ["| configuration | driver | placement | runs | generator | offered Mpps | received Mpps "
             "| forwarded Mpps | dropped Mpps | DUT cycles/packet | bound | DUT lcore on its CPU "
             "| placement indicator: round trip ns (classes) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for g in groups:
        runs = "%d" % g["runs"] + (" (+%d failed)" % g["errors"] if g["errors"] else "")
        pp = g["pp_before_ns"]
        ppt = "-" if not pp else "%s (%s)" % (fmt_spread(pp, 0), _counts(g["classes"]))
        oncpu = g["dut_oncpu_share"]
        oncpu = "-" if not oncpu else "%.0f%% (%.0f-%.0f%%)" % (100 * oncpu[1], 100 * oncpu[0], 100 * oncpu[2])
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            g["config"], stock if g["driver"] == "stock" else g["driver"], g["placement"], runs,
            _counts(g.get("gen_methods", {})), fmt_spread(g["offered_mpps"]), fmt_spread(g["received_mpps"]),
            fmt_spread(g["forwarded_mpps"]), fmt_spread(g["dropped_mpps"]),
            fmt_spread(g["cycles_per_packet"], 1), _counts(g["bound"]), oncpu, ppt))
    return lines


def micro_table(micro, rx_build):
    if not micro:
        return []
    huge = any("huge_median" in m for m in micro)
    lines = ["| Rx path | instructions/packet (callgrind) | TSC cycles/packet on 4 KB pages, median (min-max) |%s vs target 20 (aim 12) |"
             % (" on hugepages |" if huge else ""),
             "| --- | --- | --- |%s --- |" % (" --- |" if huge else "")]
    for m in micro:
        used = rx_build and m["build"].lower() == rx_build.lower()
        cells = [fmt_spread((m["cycles_min"], m["cycles_median"], m["cycles_max"]))]
        if huge:
            cells.append(fmt_spread((m["huge_min"], m["huge_median"], m["huge_max"]))
                         if "huge_median" in m else "-")
        lines.append("| %s%s | %.2f | %s | %s |" % (
            m["build"], " (used by the driver here)" if used else "", m["instructions"],
            " | ".join(cells), m["verdict"]))
    return lines


def plot(python_candidates, script, runs_csv, png):
    """Draw plot.png in the first interpreter that can import matplotlib.
    Returns (ok, message); never raises."""
    tried = []
    for py in python_candidates:
        if not py or not os.path.exists(py) or py in tried:
            continue
        tried.append(py)
        try:
            cp = subprocess.run([py, script, runs_csv, png], capture_output=True, text=True,
                                timeout=120)
        except (OSError, subprocess.TimeoutExpired) as e:
            return False, "plot: %s failed: %s" % (py, e)
        if cp.returncode == 0:
            return True, "plot: %s" % png
        if cp.returncode != 3:      # 3: no matplotlib in that interpreter
            return False, "plot failed in %s: %s" % (py, (cp.stderr or cp.stdout).strip()[-400:])
    return False, ("no plot: matplotlib cannot be imported by %s (Debian: apt-get install "
                   "python3-matplotlib, which scripts/setup.sh does)" % " or ".join(tried or ["python3"]))


def default_pythons():
    return [sys.executable, "/usr/bin/python3"]


GEN_METHOD_NAMES = {"live": "live frames", "afxdp": "AF_XDP copy mode",
                    "af_packet": "AF_PACKET"}


def generator_lines(rows):
    """Which of afxdp-gen's methods sent in the runs, and why the faster
    ones were not taken (its JSON's not_taken), as report lines."""
    runs = [r for r in rows if r.get("gen_method")]
    if not runs:
        return []
    methods = {}
    for r in runs:
        methods[r["gen_method"]] = methods.get(r["gen_method"], 0) + 1
    why = sorted({r["gen_not_taken"] for r in runs if r.get("gen_not_taken")})
    line = "- Generator: afxdp-gen with %s." % ", ".join(
        "%s in %d run%s" % (GEN_METHOD_NAMES.get(m, m), n, "" if n == 1 else "s")
        for m, n in sorted(methods.items(), key=lambda kv: -kv[1]))
    if why:
        line += " Not taken: %s." % " / ".join(why)
    if any(m != "live" for m in methods):
        line += (" The jumbo configurations ask for AF_PACKET; elsewhere a method other than live "
                 "frames offers less, and the figures it bounds measure it (no verdict).")
    return [line]


def compose(meta, rows, groups, figs, micro, placement_names, notes):
    """The whole Markdown report, as a list of lines."""
    L = []
    s = meta["settings"]
    stock = "before" if s.against else "stock"
    L.append("# af_xdp_direct benchmark, %s" % meta["date"])
    L.append("")
    if meta.get("label"):
        L.append("**%s**" % meta["label"])
        L.append("")
    if meta.get("interrupted"):
        L.append("**Interrupted after %d of %d runs: the figures below are partial.**"
                 % (len(rows), meta["planned"]))
        L.append("")
    m = meta["machine"]
    L.append("- Machine: %s, %d CPUs, Linux %s, DPDK %s (Debian's dpdk-testpmd)." % (
        m["cpu_model"], m["cpus"], m["kernel"], m["dpdk"]))
    L.append("- Load average at the start %s, at the end %s; busy processes at the start: %s; at the end: %s." % (
        "/".join("%.2f" % x for x in meta["load_start"]), "/".join("%.2f" % x for x in meta["load_end"]),
        meta["busy_start"] or "none", meta["busy_end"] or "none"))
    L.append("- Runs: %d repeat(s) of %.1f s of %d-byte frames (after %.1f s of warm-up traffic) per "
             "configuration; %s and ours back to back, the first of each pair alternating; "
             "generator (afxdp-gen) on CPU %d, DUT (testpmd's forwarding lcore) on CPU %d; "
             "testpmd on %s, %d mbufs, rxd/txd %d/%d, burst %d." % (
                 meta["repeats"], s.seconds, s.size, s.warmup, stock, s.gen_cpu, s.dut_cpu,
                 meta.get("memory", "?"), s.mbufs, s.rxd, s.txd, s.burst))
    L += generator_lines(rows)
    L.append("- Our driver (from its log): %s." % meta["ours"])
    if s.against:
        L.append("- **%s**: not the stock driver but ours from another build, %s (--against): "
                 "the stock driver's targets do not apply." % (stock, s.against))
    for d in ("stock", "ours"):
        if s.devargs.get(d):
            L.append("- Extra devargs for %s: `%s`." % (d, s.devargs[d]))
    L.append("- Placements: %s." % "; ".join("**%s**: %s" % kv for kv in placement_names.items()))
    L.append("")
    L.append("## Headline: ours / %s, from interleaved pairs" % stock)
    L.append("")
    L += headline_table(figs, {k: k for k in placement_names}, stock)
    L.append("")
    sf = shortfalls(figs, {k: k for k in placement_names}, stock)
    if sf:
        L += sf
    else:
        L.append("- Every target with data is met.")
    L.append("")
    L += jumbo_section(groups, stats.jumbo(rows))
    L.append("## Every configuration: median (min-max) over the runs")
    L.append("")
    L += config_table(groups, stock)
    L.append("")
    L.append("**bound**: *generator* when the DUT delivered at least %.0f%% of what the generator "
             "offered (the rate is then the generator's, not the DUT's: with the softirq placement "
             "the generator's CPU also runs the kernel's receive); *DUT* otherwise. "
             "**verdict**: from the pairs that compare: both runs with one generator method, "
             "offered loads at most %.0f%% apart (or both DUTs saturated: each delivered at most "
             "%.0f%% of the smaller offered load), and, for a rate, not both generator-bound; with "
             "half the pairs or fewer comparable, no verdict, and the reason. "
             "**dropped**: offered minus delivered, wherever it was lost (received for rxonly and XDP_DROP, forwarded for io and "
             "redirect). **cycles/packet**: testpmd's forwarding lcore in userspace, only bursts "
             "that returned packets (io: the Tx sendto included); time away from the CPU inside such a "
             "burst counts too; the per-poll costs are shared by the packets of a poll, so "
             "cycles/packet compares only at equal offered load (runs.csv: pkts_per_poll). **DUT lcore on its CPU**: the share of the measured window testpmd's "
             "forwarding lcore ran (/proc/<tid>/schedstat); below ~99%% other work took the DUT's CPU "
             "(the threaded NAPI kthread, or someone else's process) and its cycles/packet is inflated "
             "by the time it was away." % (100 * meta["gen_bound_share"],
                                           100 * stats.OFFERED_TOLERANCE,
                                           100 * stats.SATURATED_SHARE))
    L.append("")
    if micro:
        L.append("## Rx microbenchmark (bench/micro: our batch receive on in-memory rings, refill included)")
        L.append("")
        L += micro_table(micro, meta.get("rx_build"))
        L.append("")
    elif meta.get("micro_note"):
        L.append("Rx microbenchmark: %s" % meta["micro_note"])
        L.append("")
    errs = [r for r in rows if r.get("error")]
    if errs:
        L.append("## Failed runs")
        L.append("")
        for r in errs:
            L.append("- run %s (%s, %s, %s, repeat %s): %s" % (r["seq"], r["config"], r["driver"],
                                                              r["placement"], r["repeat"], r["error"]))
        L.append("")
    if notes:
        L += notes
        L.append("")
    return L
