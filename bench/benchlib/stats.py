# SPDX-License-Identifier: BSD-3-Clause
"""From runs to figures: min/median/max per configuration, ours/stock ratios
from interleaved pairs, and the verdicts against the project's targets.
Pure functions on the rows bench/run.py collects (dicts, as in runs.csv)."""

import statistics

# The targets the project holds itself to (issue 5), stated beside the
# figures, never asserted.
TARGET_FORWARDING = 1.3        # ours/stock io forwarding Mpps, at least
TARGET_RX_CYCLES = 0.5         # ours/stock rxonly cycles/packet, at most
TARGET_JUMBO_GAIN = 3.0        # ours' Gbit/s at MTU 9000 over ours' at 1500, at least (issue 11)

# A pair compares two drivers only at one offered load: the two runs' offered
# Mpps may differ by this share of the larger at most (unless each DUT was
# offered more than it could take: comparable() says why). Within it: the
# drivers' own receive, which in the softirq placement runs on the
# generator's CPU, moves the offered load by up to ~5% (the rxonly pairs of
# doc/guides/benchmark.rst); beyond it the per-poll costs are shared by
# different numbers of frames, and rates differ because the generator did.
OFFERED_TOLERANCE = 0.10
# ... unless both DUTs were saturated: each delivered at most this share of
# the smaller of the two offered loads, so that neither was near what either
# side was offered, and a different surplus did not set its figure (io on a
# quiet machine: 0.92 Mpps forwarded of 4.75 and 4.04 offered). DUT-bound by
# GEN_BOUND_SHARE alone is not enough: a DUT that lost 10% of a small load
# may take much more of a larger one.
SATURATED_SHARE = 0.5

# The jumbo comparison: what is forwarded at MTU 9000 and, as the reference,
# at MTU 1500, with frames of the whole MTU.
JUMBO_CONFIGS = ("io-1500", "io-jumbo", "xdp-redirect-jumbo")

METRICS = ("offered_mpps", "received_mpps", "forwarded_mpps", "forwarded_gbps", "dropped_mpps",
           "cycles_per_packet", "pkts_per_poll", "pp_before_ns", "pp_after_ns", "dut_oncpu_share",
           "napi_cpu_share", "psi_cpu_some")


def _num(v):
    if v is None or v == "":
        return None
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def spread(values):
    """(min, median, max) of the numbers among `values`, or None."""
    xs = [x for x in (_num(v) for v in values) if x is not None]
    if not xs:
        return None
    return (min(xs), statistics.median(xs), max(xs))


def ok(row):
    return not row.get("error")


def summarise(rows, order=None):
    """One entry per (config, driver, placement): runs, errors, spreads of
    METRICS, how often the DUT was the bound, placement classes."""
    groups = {}
    for r in rows:
        key = (r["config"], r["driver"], r["placement"])
        groups.setdefault(key, []).append(r)
    out = []
    for key, rs in groups.items():
        good = [r for r in rs if ok(r)]
        g = {"config": key[0], "driver": key[1], "placement": key[2], "runs": len(good),
             "errors": len(rs) - len(good)}
        for m in METRICS:
            g[m] = spread(r.get(m) for r in good)
        g["unsupported"] = sorted({r["unsupported"] for r in good if r.get("unsupported")})
        g["frame_bytes"] = sorted({int(_num(r["frame_bytes"])) for r in good
                                   if _num(r.get("frame_bytes"))})
        g["bound"] = {}
        g["classes"] = {}
        g["gen_methods"] = {}
        for r in good:
            if r.get("gen_method"):
                g["gen_methods"][r["gen_method"]] = g["gen_methods"].get(r["gen_method"], 0) + 1
            if r.get("bound"):
                g["bound"][r["bound"]] = g["bound"].get(r["bound"], 0) + 1
            c = r.get("placement_class") or "?"
            g["classes"][c] = g["classes"].get(c, 0) + 1
        out.append(g)
    if order:
        out.sort(key=lambda g: order(g["config"], g["driver"], g["placement"]))
    return out


def comparable(a, b, metric):
    """Why the pair (a, b) gives no verdict on `metric`, or None.

    - The two runs had different generator methods.
    - Their offered loads are more than OFFERED_TOLERANCE apart, and the two
      DUTs were not both saturated. They were when each delivered at most
      SATURATED_SHARE of the smaller offered load: each figure is then the
      DUT's own limit, far below what either side was offered, and a larger
      surplus would not have changed it.
    - A rate, and the generator bound both: each DUT delivered all it was
      offered, and the generator, which always sends as fast as it can, set
      the rate: a ratio of the generator with itself. Cycles per packet at
      one offered load compare even then: the DUT's cost of the same frames."""
    ma, mb = a.get("gen_method") or "?", b.get("gen_method") or "?"
    if ma != mb:
        return "generators differ (%s, %s)" % (ma, mb)
    oa, ob = _num(a.get("offered_mpps")), _num(b.get("offered_mpps"))
    if not oa or not ob:
        return "no offered load"
    if abs(oa - ob) > OFFERED_TOLERANCE * max(oa, ob) and not saturated(a, b):
        return "offered loads differ (%.3f, %.3f Mpps)" % (oa, ob)
    if metric.endswith("_mpps") and a.get("bound") == "generator" and b.get("bound") == "generator":
        return "generator-bound"
    return None


def saturated(a, b):
    """Whether both runs' DUTs delivered at most SATURATED_SHARE of the
    smaller of their offered loads (scenario.derive's delivered_share)."""
    oa, ob = _num(a.get("offered_mpps")), _num(b.get("offered_mpps"))
    da, db = _num(a.get("delivered_share")), _num(b.get("delivered_share"))
    if not oa or not ob or da is None or db is None:
        return False
    return max(da * oa, db * ob) <= SATURATED_SHARE * min(oa, ob)


def pairs(rows, config, placement):
    """(stock row, ours row) of each repeat in which both ran without error:
    the two runs of a pair ran back to back (the interleaved A/B)."""
    by = {}
    for r in rows:
        if r["config"] == config and r["placement"] == placement and ok(r):
            by.setdefault(r["repeat"], {})[r["driver"]] = r
    return [(d["stock"], d["ours"]) for _, d in sorted(by.items(), key=lambda kv: int(kv[0]))
            if "stock" in d and "ours" in d]


def ratio_figure(rows, config, placement, metric, target=None, higher_is_better=True):
    """ours/stock for one figure: medians of each driver, the median and
    range of the per-pair ratios, and the verdict against `target`."""
    ps = [(a, b) for a, b in pairs(rows, config, placement)
          if (_num(a.get(metric)) or 0) > 0 and _num(b.get(metric)) is not None]
    f = {"config": config, "placement": placement, "metric": metric, "pairs": len(ps),
         "target": target, "higher_is_better": higher_is_better}
    if not ps:
        f["verdict"] = "no data"
        return f
    stock = [_num(a[metric]) for a, _ in ps]
    ours = [_num(b[metric]) for _, b in ps]
    ratios = [o / s for s, o in zip(stock, ours)]
    f.update({"stock": statistics.median(stock), "ours": statistics.median(ours),
              "ratio": statistics.median(ratios), "ratio_min": min(ratios),
              "ratio_max": max(ratios),
              "same_class_pairs": sum(1 for a, b in ps
                                      if a.get("placement_class") == b.get("placement_class")
                                      and a.get("placement_class") in ("near", "far"))})
    gen_bound = sum(1 for a, b in ps if a.get("bound") == "generator" and b.get("bound") == "generator")
    f["gen_bound_pairs"] = gen_bound
    # The generator: its methods, and the offered loads of each driver's runs.
    f["gen_methods"] = sorted({r.get("gen_method") or "?" for p in ps for r in p})
    f["offered_stock"] = spread(a.get("offered_mpps") for a, _ in ps)
    f["offered_ours"] = spread(b.get("offered_mpps") for _, b in ps)
    # Which pairs compare, and why the others do not.
    why = [comparable(a, b, metric) for a, b in ps]
    good = [r for r, w in zip(ratios, why) if w is None]
    f["comparable_pairs"] = len(good)
    f["not_comparable"] = {}
    for w in why:
        if w is not None:
            # "offered loads differ (1.010, 0.780 Mpps)" counts as "offered loads differ"
            key = w.split(" (")[0]
            f["not_comparable"][key] = f["not_comparable"].get(key, 0) + 1
    f["comparable_ratio"] = statistics.median(good) if good else None
    if len(good) * 2 <= len(ps):
        f["verdict"] = "no verdict: %s" % no_verdict_reason(f)
    elif target is None:
        f["verdict"] = "(no target)"
    else:
        r = f["comparable_ratio"]
        met = r >= target if higher_is_better else r <= target
        f["verdict"] = "met" if met else "SHORT of the target"
    return f


def no_verdict_reason(f):
    """Why a figure's pairs do not compare, in words, from the counts of
    ratio_figure's not_comparable."""
    n = f["pairs"]
    words = {"generator-bound": "both drivers took all the generator offered (generator-bound: "
                                "measures the generator)",
             "offered loads differ": "offered loads more than %d%% apart"
                                     % round(100 * OFFERED_TOLERANCE),
             "generators differ": "the generator's method differed within the pair",
             "no offered load": "no offered load recorded"}
    parts = ["%s in %d of %d pairs" % (words.get(k, k), v, n)
             for k, v in sorted(f["not_comparable"].items(), key=lambda kv: -kv[1])]
    return "; ".join(parts)


def headline(rows, placements, targets=True):
    """The figures the project is judged by, per placement; `targets` False:
    the same figures without the stock driver's targets (two builds of ours)."""
    fwd, rx = (TARGET_FORWARDING, TARGET_RX_CYCLES) if targets else (None, None)
    out = []
    for p in placements:
        out.append(ratio_figure(rows, "io", p, "forwarded_mpps", fwd, True))
        # The l2fwd example is held to the same forwarding target (issue 6).
        out.append(ratio_figure(rows, "l2fwd", p, "forwarded_mpps", fwd, True))
        # DPDK's own l2fwd: what an unmodified application sees (issue 10).
        out.append(ratio_figure(rows, "dpdk-l2fwd", p, "forwarded_mpps", None, True))
        out.append(ratio_figure(rows, "rxonly", p, "cycles_per_packet", rx, False))
        out.append(ratio_figure(rows, "io", p, "cycles_per_packet", None, False))
        out.append(ratio_figure(rows, "rxonly", p, "received_mpps", None, True))
    return [f for f in out if f["verdict"] != "no data"]


def jumbo(rows, placement="softirq"):
    """Ours at MTU 9000 against ours at MTU 1500 on the same topology: the
    ratio of forwarded Gbit/s per repeat (the two runs close in time), its
    median and range, and the verdict against TARGET_JUMBO_GAIN."""
    by = {}
    for r in rows:
        if r["config"] in ("io-1500", "io-jumbo") and r["driver"] == "ours" \
                and r["placement"] == placement and ok(r) and _num(r.get("forwarded_gbps")):
            by.setdefault(r["repeat"], {})[r["config"]] = _num(r["forwarded_gbps"])
    ratios = [d["io-jumbo"] / d["io-1500"] for d in by.values() if len(d) == 2]
    f = {"placement": placement, "pairs": len(ratios), "target": TARGET_JUMBO_GAIN}
    if not ratios:
        f["verdict"] = "no data"
        return f
    f.update({"ratio": statistics.median(ratios), "ratio_min": min(ratios),
              "ratio_max": max(ratios)})
    f["verdict"] = "met" if f["ratio"] >= TARGET_JUMBO_GAIN else "SHORT of the aim"
    return f
