#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""plot.py <runs.csv> <out.png>: the benchmark's plot, from its runs.csv.

Left: the delivered rate of every configuration (received for rxonly and
XDP_DROP, forwarded at the far end for io and the DEVMAP redirect), median
bar, min-max whisker, each run a dot. Right: the DUT's userspace
cycles/packet of the testpmd runs, each run a dot shaped by its placement
class (the cache-line round trip before and after it), log scale.

Runs on its own (bench/run.py starts it in an interpreter that has
matplotlib); exit 3 when matplotlib cannot be imported.
"""

import csv
import statistics
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
except ImportError as e:
    print("matplotlib cannot be imported: %s" % e, file=sys.stderr)
    sys.exit(3)

DELIVERED = {"rxonly": "received_mpps", "xdp-drop": "received_mpps",
             "io": "forwarded_mpps", "xdp-redirect": "forwarded_mpps",
             "l2fwd": "forwarded_mpps", "l2fwd-xdp": "forwarded_mpps",
             "dpdk-l2fwd": "forwarded_mpps", "io-1500": "forwarded_mpps",
             "io-jumbo": "forwarded_mpps", "xdp-redirect-jumbo": "forwarded_mpps"}
CONFIG_ORDER = ["rxonly", "io", "xdp-drop", "xdp-redirect", "l2fwd", "l2fwd-xdp", "dpdk-l2fwd",
                "io-1500", "io-jumbo", "xdp-redirect-jumbo"]
DRIVER_COLOUR = {"stock": "tab:blue", "ours": "tab:orange", "kernel": "tab:green"}
CLASS_MARKER = {"near": "o", "far": "s", "mixed": "^", "?": "x"}


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def main():
    runs_csv, png = sys.argv[1:3]
    with open(runs_csv) as f:
        rows = [r for r in csv.DictReader(f) if not r.get("error")]
    placements = [p for p in ("softirq", "threaded") if any(r["placement"] == p for r in rows)]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(14, 5.5))

    # Left: delivered Mpps per configuration.
    labels, x = [], 0
    for p in placements:
        for c in CONFIG_ORDER:
            drivers = [d for d in ("stock", "ours", "kernel")
                       if any(r["config"] == c and r["driver"] == d and r["placement"] == p for r in rows)]
            for d in drivers:
                vals = [num(r[DELIVERED[c]]) for r in rows
                        if r["config"] == c and r["driver"] == d and r["placement"] == p]
                vals = [v for v in vals if v is not None]
                if not vals:
                    continue
                med = statistics.median(vals)
                ax1.bar(x, med, color=DRIVER_COLOUR[d], alpha=0.6)
                ax1.errorbar(x, med, yerr=[[med - min(vals)], [max(vals) - med]], color="black",
                             capsize=3)
                ax1.scatter([x] * len(vals), vals, color="black", s=8, zorder=3)
                labels.append((x, "%s\n%s\n%s" % (c, d, p)))
                x += 1
            x += 0.5
        x += 0.5
    ax1.set_xticks([p for p, _ in labels])
    ax1.set_xticklabels([t for _, t in labels], fontsize=6)
    ax1.set_ylabel("Mpps delivered (rxonly/XDP_DROP: received; others: at the far end)")
    ax1.set_title("Rate per configuration: median, min-max, runs")
    ax1.legend(handles=[Patch(color=col, alpha=0.6, label=d) for d, col in DRIVER_COLOUR.items()],
               fontsize=8)

    # Right: cycles/packet, each run.
    labels, x = [], 0
    for p in placements:
        for c in ("rxonly", "io"):
            for d in ("stock", "ours"):
                sel = [r for r in rows if r["config"] == c and r["driver"] == d and r["placement"] == p
                       and num(r.get("cycles_per_packet"))]
                if not sel:
                    continue
                for cls, marker in CLASS_MARKER.items():
                    ys = [num(r["cycles_per_packet"]) for r in sel if (r.get("placement_class") or "?") == cls]
                    if ys:
                        ax2.scatter([x] * len(ys), ys, marker=marker, color=DRIVER_COLOUR[d], s=25)
                labels.append((x, "%s\n%s\n%s" % (c, d, p)))
                x += 1
            x += 0.5
        x += 0.5
    if labels:
        ax2.set_yscale("log")
        ax2.set_xticks([p for p, _ in labels])
        ax2.set_xticklabels([t for _, t in labels], fontsize=6)
    ax2.set_ylabel("DUT userspace cycles/packet (testpmd --record-core-cycles)")
    ax2.set_title("cycles/packet per run (marker: placement class)")
    for cls, marker in CLASS_MARKER.items():
        ax2.scatter([], [], marker=marker, color="grey", label=cls)
    ax2.legend(fontsize=8, title="round trip", title_fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
