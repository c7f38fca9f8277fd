#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Unit tests of the benchmark's parsing and arithmetic (no root, no traffic).

The testpmd outputs in data/ are transcripts recorded by bench/run.py from
Debian's dpdk-testpmd 22.11 with the stock net_af_xdp and with ours: start-up,
a warm-up `start`/`stop`, the measured `start`/`stop` with
--record-core-cycles and --record-burst-stats, `show port stats all`, `show port xstats all`, `quit`.
data/txonly.log and data/multiqueue.log are app/testpmd/run.sh's raw output
(through a pipe, not a terminal; ours). data/gen.out is afxdp-gen's with live frames,
data/gen-afxdp.out with AF_XDP where the kernel refused them (6.18, EPERM). data/micro.txt is
bench/micro/run.py's table.
"""

import os
import unittest

from afxdp_test import dpdk_output, l2fwd
from benchlib import parse, report, scenario, stats

HERE = os.path.dirname(os.path.abspath(__file__))


def data(name):
    with open(os.path.join(HERE, "data", name)) as f:
        return f.read()


class FwdStats(unittest.TestCase):
    def test_stock_rxonly_last_stop(self):
        f = dpdk_output.fwd_stats(data("stock-rxonly.txt"))
        # The measured stop, not the warm-up's (43.79 cycles/packet, 344270 packets).
        p0 = f["ports"][0]
        self.assertEqual({k: p0[k] for k in ("rx_packets", "rx_dropped", "rx_total", "tx_packets",
                                             "tx_dropped", "tx_total")},
                         {"rx_packets": 986802, "rx_dropped": 103886, "rx_total": 1090688,
                          "tx_packets": 0, "tx_dropped": 0, "tx_total": 0})
        # --record-burst-stats: every poll, empty or not.
        self.assertEqual(p0["rx_bursts"], 1726208)
        self.assertEqual(p0["rx_empty_pct"], 99)
        self.assertEqual(f["total"]["rx_packets"], 986802)
        self.assertEqual(f["cycles"], {"cycles_per_packet": 51.15, "total_cycles": 50474623,
                                       "mode": "rxonly", "packets": 986802, "mhz": 2600})

    def test_ours_rxonly(self):
        f = dpdk_output.fwd_stats(data("ours-rxonly.txt"))
        self.assertEqual(f["ports"][0]["rx_packets"], 956608)
        self.assertEqual(f["ports"][0]["rx_dropped"], 0)
        self.assertEqual(f["ports"][0]["rx_bursts"], 44273540)
        self.assertEqual(f["cycles"]["cycles_per_packet"], 44.58)
        self.assertEqual(f["cycles"]["total_cycles"], 42644807)

    def test_io_two_ports(self):
        for name, rx, tx, cpp in (("stock-io.txt", 81995, 81995, 3498.44),
                                  ("ours-io.txt", 129472, 129472, 5845.15)):
            f = dpdk_output.fwd_stats(data(name))
            self.assertEqual(sorted(f["ports"]), [0, 1], name)
            self.assertEqual(f["ports"][0]["rx_packets"], rx, name)
            self.assertEqual(f["ports"][1]["tx_packets"], tx, name)
            self.assertEqual(f["ports"][1]["rx_packets"], 0, name)
            self.assertEqual(f["ports"][1]["rx_empty_pct"], 100, name)
            self.assertGreater(f["ports"][1]["tx_bursts"], 0, name)
            self.assertEqual(f["cycles"]["mode"], "io", name)
            self.assertEqual(f["cycles"]["cycles_per_packet"], cpp, name)
            # The accumulated block is not mistaken for a port.
            self.assertEqual(f["total"]["tx_packets"], tx, name)

    def test_cycles_is_busy_over_packets(self):
        for name in ("stock-rxonly.txt", "ours-rxonly.txt", "stock-io.txt", "ours-io.txt"):
            c = dpdk_output.fwd_stats(data(name))["cycles"]
            self.assertAlmostEqual(c["cycles_per_packet"], c["total_cycles"] / c["packets"], places=1)

    def test_cycles_in_dpdk_24_11_words(self):
        # 23.03 and later say "busy cycles" where 22.11 says "total cycles".
        old = data("ours-rxonly.txt")
        new = old.replace("(total cycles=", "(busy cycles=")
        self.assertNotEqual(new, old)
        self.assertEqual(dpdk_output.fwd_stats(new), dpdk_output.fwd_stats(old))

    def test_txonly_counts_tx(self):
        f = dpdk_output.fwd_stats(data("txonly.log"))
        self.assertEqual(f["cycles"]["mode"], "txonly")
        self.assertEqual(f["cycles"]["packets"], f["total"]["tx_packets"])
        self.assertGreater(f["cycles"]["packets"], 0)

    def test_multiqueue_streams_are_not_ports(self):
        # Two streams (one per queue) print their own blocks before the port's.
        f = dpdk_output.fwd_stats(data("multiqueue.log"))
        self.assertEqual(list(f["ports"]), [0])
        self.assertEqual(f["ports"][0]["rx_packets"], 546048 + 206976)
        self.assertEqual(f["ports"][0]["rx_dropped"], 749248)
        self.assertEqual(f["cycles"]["packets"], 753024)

    def test_no_stop(self):
        f = dpdk_output.fwd_stats("testpmd> show port info 0\n")
        self.assertEqual(f, {"ports": {}, "total": None, "cycles": None})

    def test_escapes_and_carriage_returns(self):
        raw = data("stock-rxonly.txt").replace("\n", "\r\n").replace("testpmd> ", "\x1b[Ktestpmd> ")
        self.assertEqual(dpdk_output.fwd_stats(raw), dpdk_output.fwd_stats(data("stock-rxonly.txt")))


class PortStats(unittest.TestCase):
    def test_cumulative_since_port_start(self):
        # show port stats counts since the port started: warm-up + measured.
        st = dpdk_output.port_stats(data("stock-rxonly.txt"))
        self.assertEqual(st[0]["RX-packets"], 344270 + 986802)
        self.assertEqual(st[0]["RX-missed"], 107328)
        self.assertEqual(st[0]["RX-bytes"], 64 * st[0]["RX-packets"])
        self.assertNotIn("Rx-pps", st[0])

    def test_io_both_ports(self):
        st = dpdk_output.port_stats(data("ours-io.txt"))
        self.assertEqual(st[1]["TX-packets"], st[0]["RX-packets"])
        self.assertEqual(st[1]["TX-bytes"], 64 * st[1]["TX-packets"])


class XStats(unittest.TestCase):
    def test_stock(self):
        xs = dpdk_output.xstats(data("stock-io.txt"))
        self.assertEqual(sorted(xs), [0, 1])
        self.assertEqual(len(xs[0]), 13)
        self.assertEqual(xs[0]["rx_missed_errors"], 139840)
        self.assertNotIn("rx_q0_full_batches", xs[0])

    def test_ours(self):
        xs = dpdk_output.xstats(data("ours-rxonly.txt"))
        x = xs[0]
        for name in ("rx_q0_full_batches", "rx_q0_partial_batches", "rx_q0_wakeups",
                     "rx_q0_ring_full", "rx_q0_fill_ring_empty_descs", "tx_q0_wakeups"):
            self.assertIn(name, x)
        self.assertEqual(x["rx_q0_full_batches"], 14979)
        self.assertEqual(x["rx_missed_errors"], 406912)
        # The kernel's drops: no fill entry, not a full Rx ring.
        self.assertEqual(x["rx_q0_dropped"], x["rx_q0_fill_ring_empty_descs"])
        # The quit after the xstats is not read as a counter.
        self.assertNotIn("Bye...", x)


class Startup(unittest.TestCase):
    def test_ours(self):
        s = dpdk_output.startup(data("ours-io.txt"))
        self.assertEqual(s["driver"], "af_xdp_direct 0.1.0")
        self.assertEqual(s["redirect"], "map")
        self.assertEqual(s["rx_build"], "x86-64-v3")
        self.assertEqual(s["xdp_mode"], "native (drv)")
        self.assertEqual(s["copy"], "copy")
        self.assertIs(s["dispatcher"], False)

    def test_stock(self):
        s = dpdk_output.startup(data("stock-rxonly.txt"))
        self.assertEqual(s["driver"], "stock")
        self.assertIsNone(s["redirect"])
        self.assertIsNone(s["rx_build"])


class SocketModes(unittest.TestCase):
    def test_ours_io(self):
        self.assertEqual(dpdk_output.socket_modes(data("ours-io.txt")),
                         {"axc1faf0d0": [("copy", False)], "axc1faf0d1": [("copy", False)]})

    def test_in_order_with_multi_buffer(self):
        line = ("net_af_xdp0: queue 0: socket on p0 queue 0, %s; rings rx 2048, fill 2048, "
                "tx 2048, completion 2048 (97 KiB mapped)\n")
        text = line % "zero-copy mode" + line % "copy mode, multi-buffer"
        self.assertEqual(dpdk_output.socket_modes(text),
                         {"p0": [("zero-copy", False), ("copy", True)]})

    def test_stock_has_none(self):
        self.assertEqual(dpdk_output.socket_modes(data("stock-rxonly.txt")), {})


class Tools(unittest.TestCase):
    def test_gen_json_last_line(self):
        out = data("gen.out")
        g = parse.parse_gen_json(out)
        self.assertEqual(g["method"], "live")
        self.assertEqual(g["sent"] + g["dropped"], g["built"])
        with self.assertRaises(ValueError):
            parse.parse_gen_json("afxdp-gen: error\n")

    def test_gen_json_afxdp_says_why_not_live(self):
        g = parse.parse_gen_json(data("gen-afxdp.out"))
        self.assertEqual(g["method"], "afxdp")
        self.assertTrue(g["verified"])
        self.assertEqual(g["sent"] + g["dropped"], g["built"])
        self.assertIn("Operation not permitted", g["not_taken"]["live"])

    def test_micro(self):
        rows = parse.parse_micro(data("micro.txt"))
        self.assertEqual([r["build"] for r in rows], ["baseline", "x86-64-v3"])
        self.assertEqual(rows[1]["instructions"], 18.73)
        self.assertEqual(rows[1]["verdict"], "within the target")
        self.assertEqual(rows[0]["cycles_min"], rows[0]["cycles_max"])

    def test_softirqs(self):
        text = ("                    CPU0       CPU1\n"
                "          HI:          1          0\n"
                "      NET_TX:         10         20\n"
                "      NET_RX:   29840387   17829421\n")
        self.assertEqual(parse.parse_softirqs(text), [29840387, 17829421])
        self.assertEqual(parse.parse_softirqs(text, "NET_TX"), [10, 20])

    def test_proc_stat_name_with_spaces(self):
        fields = ["S"] + [str(i) for i in range(4, 53)]
        text = "1234 (napi/a b) c) %s\n" % " ".join(fields)
        st = parse.parse_proc_stat(text)
        self.assertEqual(st["comm"], "napi/a b) c")
        self.assertEqual((st["utime"], st["stime"], st["processor"]), (14, 15, 39))


def row(config, driver, placement, repeat, **kw):
    r = {"config": config, "driver": driver, "placement": placement, "repeat": repeat,
         "placement_class": "near", "gen_method": "live", "offered_mpps": 4.0}
    r.update(kw)
    return r


class Derive(unittest.TestCase):
    def test_rxonly_generator_bound(self):
        r = scenario.derive({"seconds": 2.0, "built": 8000000, "received": 7900000},
                            scenario.CONFIGS["rxonly"])
        self.assertEqual(r["offered_mpps"], 4.0)
        self.assertEqual(r["received_mpps"], 3.95)
        self.assertEqual(r["dropped_mpps"], 0.05)
        self.assertEqual(r["bound"], "generator")

    def test_io_dut_bound_counts_far_end(self):
        r = scenario.derive({"seconds": 2.0, "built": 8000000, "received": 7000000,
                             "forwarded": 2000000}, scenario.CONFIGS["io"])
        self.assertEqual(r["forwarded_mpps"], 1.0)
        self.assertEqual(r["dropped_mpps"], 3.0)
        self.assertEqual(r["bound"], "DUT")

    def test_failed_run_has_no_rates(self):
        r = scenario.derive({"error": "x", "seconds": 1.0, "built": 5}, scenario.CONFIGS["io"])
        self.assertNotIn("offered_mpps", r)

    def test_gbps_of_the_frames_sent(self):
        r = scenario.derive({"seconds": 2.0, "built": 400000, "received": 300000,
                             "forwarded": 250000, "frame_bytes": 9014}, scenario.CONFIGS["io-jumbo"])
        self.assertEqual(r["forwarded_gbps"], round(250000 * 9014 * 8 / 2.0 / 1e9, 3))

    def test_stock_refusal_is_the_result(self):
        text = ("Configuring Port 0 (socket 0)\n"
                "MTU (8996) > device max MTU (3542) for port_id 0\n"
                "Fail to configure port 0\nStart ports failed\n")
        self.assertIn(scenario.PORT_REFUSED, text)
        r = {}
        scenario.refused(r, text)
        self.assertEqual(r["unsupported"], "MTU (8996) > device max MTU (3542) for port_id 0")
        with self.assertRaises(scenario.RunError):
            scenario.refused({}, "Fail to configure port 0\n")


class Ratios(unittest.TestCase):
    def rows(self):
        rs = []
        for rep, (s_fwd, o_fwd, s_cpp, o_cpp) in enumerate([(1.0, 1.5, 50, 20), (1.1, 1.4, 40, 22),
                                                             (0.9, 1.0, 45, 30)], 1):
            rs.append(row("io", "stock", "softirq", rep, forwarded_mpps=s_fwd, bound="DUT"))
            rs.append(row("io", "ours", "softirq", rep, forwarded_mpps=o_fwd, bound="DUT"))
            rs.append(row("rxonly", "stock", "softirq", rep, cycles_per_packet=s_cpp))
            rs.append(row("rxonly", "ours", "softirq", rep, cycles_per_packet=o_cpp,
                          placement_class="far" if rep == 3 else "near"))
        return rs

    def test_pairs_by_repeat(self):
        rs = self.rows()
        rs.append(row("io", "ours", "softirq", 4, forwarded_mpps=9.0))       # no partner
        rs.append(row("io", "stock", "softirq", 5, forwarded_mpps=9.0, error="boom"))
        rs.append(row("io", "ours", "softirq", 5, forwarded_mpps=9.0))
        self.assertEqual(len(stats.pairs(rs, "io", "softirq")), 3)

    def test_forwarding_ratio_median_of_pairs(self):
        f = stats.ratio_figure(self.rows(), "io", "softirq", "forwarded_mpps",
                               stats.TARGET_FORWARDING, True)
        self.assertEqual(f["pairs"], 3)
        self.assertAlmostEqual(f["ratio"], 1.4 / 1.1)       # pairs: 1.5, 1.273, 1.111
        self.assertAlmostEqual(f["ratio_min"], 1.0 / 0.9)
        self.assertEqual(f["verdict"], "SHORT of the target")

    def test_cycles_ratio_lower_is_better(self):
        f = stats.ratio_figure(self.rows(), "rxonly", "softirq", "cycles_per_packet",
                               stats.TARGET_RX_CYCLES, False)
        self.assertAlmostEqual(f["ratio"], 0.55)             # 0.4, 0.55, 0.667
        self.assertEqual(f["verdict"], "SHORT of the target")
        self.assertEqual(f["same_class_pairs"], 2)
        f = stats.ratio_figure(self.rows(), "rxonly", "softirq", "cycles_per_packet", 0.6, False)
        self.assertEqual(f["verdict"], "met")

    def test_generator_bound_forwarding_is_not_a_verdict(self):
        rs = [row("io", d, "softirq", 1, forwarded_mpps=4.0, bound="generator")
              for d in ("stock", "ours")]
        f = stats.ratio_figure(rs, "io", "softirq", "forwarded_mpps", 1.3, True)
        self.assertEqual(f["verdict"], "no verdict: both drivers took all the generator offered "
                                       "(generator-bound: measures the generator) in 1 of 1 pairs")
        self.assertEqual(f["comparable_pairs"], 0)

    def test_generator_bound_cycles_compare_at_one_offered_load(self):
        # rxonly: both drivers take all; their cost per frame still compares
        rs = [row("rxonly", "stock", "softirq", 1, cycles_per_packet=50, bound="generator"),
              row("rxonly", "ours", "softirq", 1, cycles_per_packet=20, bound="generator")]
        f = stats.ratio_figure(rs, "rxonly", "softirq", "cycles_per_packet", 0.5, False)
        self.assertEqual(f["verdict"], "met")

    def test_unequal_offered_loads_no_verdict(self):
        # issue 43: AF_PACKET offered 1.01 to stock and 0.78 to ours; 1.05x was given a verdict
        rs = [row("rxonly", "stock", "softirq", 1, cycles_per_packet=40.0, offered_mpps=1.01,
                  gen_method="af_packet"),
              row("rxonly", "ours", "softirq", 1, cycles_per_packet=42.0, offered_mpps=0.78,
                  gen_method="af_packet")]
        f = stats.ratio_figure(rs, "rxonly", "softirq", "cycles_per_packet", 0.5, False)
        self.assertEqual(f["verdict"], "no verdict: offered loads more than 10% apart in 1 of 1 pairs")
        self.assertEqual(f["offered_stock"], (1.01, 1.01, 1.01))
        self.assertEqual(f["gen_methods"], ["af_packet"])
        self.assertAlmostEqual(f["ratio"], 1.05)        # the figure stays

    def test_offered_tolerance_edge(self):
        self.assertEqual(stats.OFFERED_TOLERANCE, 0.10)
        a = row("rxonly", "stock", "softirq", 1, offered_mpps=4.0)
        self.assertIsNone(stats.comparable(a, row("rxonly", "ours", "softirq", 1, offered_mpps=3.6),
                                           "cycles_per_packet"))
        self.assertEqual(stats.comparable(a, row("rxonly", "ours", "softirq", 1, offered_mpps=3.59),
                                          "cycles_per_packet"),
                         "offered loads differ (4.000, 3.590 Mpps)")

    def test_unequal_offered_loads_compare_when_both_duts_are_saturated(self):
        # io on a quiet machine (live frames): offered 4.75 and 4.04, both DUTs forwarding ~0.92
        rs = [scenario.derive({"config": "io", "driver": d, "placement": "softirq", "repeat": 1,
                               "gen_method": "live", "seconds": 1.0, "built": int(off * 1e6),
                               "received": int(off * 1e6), "forwarded": int(fwd * 1e6)},
                              scenario.CONFIGS["io"])
              for d, off, fwd in (("stock", 4.75, 0.92), ("ours", 4.04, 0.93))]
        f = stats.ratio_figure(rs, "io", "softirq", "forwarded_mpps", 1.3, True)
        self.assertEqual(f["verdict"], "SHORT of the target")
        # a busy machine (AF_XDP): 0.24 and 0.74 offered, 0.13 and 0.28 forwarded, both
        # DUT-bound, but ours forwarded more than the stock driver was offered
        for r, off, fwd in zip(rs, (0.24, 0.74), (0.13, 0.28)):
            r.update(built=int(off * 1e6), received=int(off * 1e6), forwarded=int(fwd * 1e6),
                     gen_method="afxdp")
            scenario.derive(r, scenario.CONFIGS["io"])
        self.assertEqual([r["bound"] for r in rs], ["DUT", "DUT"])
        f = stats.ratio_figure(rs, "io", "softirq", "forwarded_mpps", 1.3, True)
        self.assertTrue(f["verdict"].startswith("no verdict: offered loads"), f["verdict"])

    def test_generators_differ_no_verdict(self):
        rs = [row("io", "stock", "softirq", 1, forwarded_mpps=1.0, bound="DUT"),
              row("io", "ours", "softirq", 1, forwarded_mpps=2.0, bound="DUT", gen_method="afxdp")]
        f = stats.ratio_figure(rs, "io", "softirq", "forwarded_mpps", 1.3, True)
        self.assertTrue(f["verdict"].startswith("no verdict: the generator's method differed"),
                        f["verdict"])

    def test_verdict_from_the_comparable_pairs_when_they_are_most(self):
        rs = []
        for rep, (s_fwd, o_fwd, s_off, s_bound) in enumerate([(1.0, 1.5, 4.0, "DUT"),
                                                              (1.0, 1.4, 4.0, "DUT"),
                                                              (1.0, 1.0, 1.0, "generator")], 1):
            rs.append(row("io", "stock", "softirq", rep, forwarded_mpps=s_fwd, bound=s_bound,
                          offered_mpps=s_off))
            rs.append(row("io", "ours", "softirq", rep, forwarded_mpps=o_fwd, bound="DUT"))
        f = stats.ratio_figure(rs, "io", "softirq", "forwarded_mpps", 1.3, True)
        self.assertEqual((f["pairs"], f["comparable_pairs"]), (3, 2))
        self.assertAlmostEqual(f["ratio"], 1.4)                 # all pairs: 1.5, 1.4, 1.0
        self.assertAlmostEqual(f["comparable_ratio"], 1.45)     # the two that compare
        self.assertEqual(f["verdict"], "met")
        # one comparable pair of three: no verdict
        rs[0].update(offered_mpps=1.5, forwarded_mpps=1.5, bound="generator")
        f = stats.ratio_figure(rs, "io", "softirq", "forwarded_mpps", 1.3, True)
        self.assertTrue(f["verdict"].startswith("no verdict: offered loads more than 10% apart in "
                                                "2 of 3 pairs"), f["verdict"])

    def test_summary_spreads(self):
        g = {(x["config"], x["driver"]): x for x in stats.summarise(self.rows())}
        self.assertEqual(g[("io", "stock")]["forwarded_mpps"], (0.9, 1.0, 1.1))
        self.assertEqual(g[("io", "stock")]["bound"], {"DUT": 3})
        self.assertEqual(g[("rxonly", "ours")]["classes"], {"near": 2, "far": 1})
        self.assertIsNone(g[("rxonly", "ours")]["forwarded_mpps"])


class Jumbo(unittest.TestCase):
    def rows(self):
        rs = []
        for rep, (g1500, g9000) in enumerate([(2.0, 7.0), (2.5, 6.0), (1.0, 4.0)], 1):
            rs.append(row("io-1500", "ours", "softirq", rep, forwarded_gbps=g1500,
                          forwarded_mpps=0.1, frame_bytes=1514))
            rs.append(row("io-jumbo", "stock", "softirq", rep,
                          unsupported="MTU (8996) > device max MTU (3542) for port_id 0",
                          frame_bytes=9014))
            rs.append(row("io-jumbo", "ours", "softirq", rep, forwarded_gbps=g9000,
                          forwarded_mpps=0.05, frame_bytes=9014))
        return rs

    def test_gain_per_repeat(self):
        f = stats.jumbo(self.rows())
        self.assertEqual(f["pairs"], 3)
        self.assertAlmostEqual(f["ratio"], 3.5)         # 3.5, 2.4, 4.0
        self.assertAlmostEqual(f["ratio_min"], 2.4)
        self.assertEqual(f["verdict"], "met")
        self.assertEqual(stats.jumbo([])["verdict"], "no data")

    def test_section_says_not_supported(self):
        rs = self.rows()
        lines = report.jumbo_section(stats.summarise(rs), stats.jumbo(rs))
        stock = [x for x in lines if x.startswith("| io-jumbo | stock |")]
        self.assertEqual(len(stock), 1)
        self.assertIn("not supported", stock[0])
        self.assertTrue(any("`MTU (8996) > device max MTU (3542) for port_id 0`" in x
                            for x in lines))
        self.assertTrue(any(x.startswith("- Ours at MTU 9000 over ours at MTU 1500") and "3.50x" in x
                            for x in lines))
        self.assertEqual(report.jumbo_section(stats.summarise(Ratios().rows()),
                                              stats.jumbo(Ratios().rows())), [])


class Report(unittest.TestCase):
    def test_spread_format(self):
        self.assertEqual(report.fmt_spread((1.0, 2.0, 3.0)), "2.00 (1.00-3.00)")
        self.assertEqual(report.fmt_spread((2.0, 2.0, 2.0), 1), "2.0")
        self.assertEqual(report.fmt_spread(None), "-")

    def test_tables_render(self):
        rs = Ratios().rows()
        figs = stats.headline(rs, ["softirq"])
        lines = report.headline_table(figs, {"softirq": "softirq"})
        self.assertTrue(lines[0].startswith("| placement | figure | stock | ours |"))
        self.assertIn("| offered Mpps, stock / ours (generator) |", lines[0])
        self.assertEqual(len(lines), 2 + len(figs))
        self.assertTrue(all("| 4.00 / 4.00 (live) |" in x for x in lines[2:]), lines)
        short = report.shortfalls(figs, {"softirq": "softirq"})
        self.assertTrue(any("io forwarding" in s for s in short))
        lines = report.config_table(stats.summarise(rs))
        self.assertEqual(len(lines), 2 + 4)
        self.assertTrue(all(x.split(" | ")[4] == "live 3" for x in lines[2:]), lines)

    def test_no_verdict_is_said_with_its_figures(self):
        rs = [row("io", "stock", "softirq", 1, forwarded_mpps=1.01, offered_mpps=1.01,
                  bound="generator", gen_method="af_packet"),
              row("io", "ours", "softirq", 1, forwarded_mpps=0.78, offered_mpps=0.78,
                  bound="generator", gen_method="af_packet")]
        figs = stats.headline(rs, ["softirq"])
        lines = report.headline_table(figs, {"softirq": "softirq"})
        self.assertIn("| 1.01 / 0.78 (af_packet) | at least 1.3x | no verdict: offered loads "
                      "more than 10% apart in 1 of 1 pairs |", lines[2])
        short = report.shortfalls(figs, {"softirq": "softirq"})
        self.assertEqual(short, ["- **No verdict**: io forwarding, Mpps at the far end, softirq: "
                                 "ours/stock 0.77x, offered 1.01 / 0.78 (af_packet) Mpps; offered "
                                 "loads more than 10% apart in 1 of 1 pairs."])

    def test_generator_lines(self):
        rs = [row("rxonly", "stock", "softirq", 1, gen_method="afxdp",
                  gen_not_taken="live: BPF_PROG_RUN with BPF_F_TEST_XDP_LIVE_FRAMES failed: "
                                "Operation not permitted"),
              row("io-jumbo", "ours", "softirq", 1, gen_method="af_packet"),
              row("io", "ours", "softirq", 1, error="boom", gen_method=None)]
        lines = report.generator_lines(rs)
        self.assertEqual(len(lines), 1)
        self.assertIn("AF_XDP copy mode in 1 run, AF_PACKET in 1 run", lines[0])
        self.assertIn("Not taken: live: BPF_PROG_RUN with BPF_F_TEST_XDP_LIVE_FRAMES failed: "
                      "Operation not permitted.", lines[0])
        self.assertEqual(report.generator_lines([row("io", "ours", "softirq", 1, gen_method=None)]),
                         [])

    def test_two_builds_have_no_target(self):
        # --against: the "stock" runs are ours from another build
        rs = Ratios().rows()
        figs = stats.headline(rs, ["softirq"], targets=False)
        self.assertTrue(figs)
        self.assertTrue(all(f["target"] is None and f["verdict"] == "(no target)" for f in figs))
        self.assertEqual(report.shortfalls(figs, {"softirq": "softirq"}, "before"), [])
        lines = report.headline_table(figs, {"softirq": "softirq"}, "before")
        self.assertIn("| before | ours | ours/before:", lines[0])
        lines = report.config_table(stats.summarise(rs), "before")
        self.assertTrue(any(x.split(" | ")[1] == "before" for x in lines[2:]))


class L2fwd(unittest.TestCase):
    # Recorded from examples/l2fwd-af-xdp (-T 0 --json, stopped by SIGINT).
    OUT = (
        "l2fwd-af-xdp: port 0 net_af_xdp0 (d0): link up, 10000 Mbps; forwards to port 1\n"
        "l2fwd-af-xdp: forwarding\n"
        '{"program":"l2fwd-af-xdp","final":false,"time_s":1.000,"interval_s":1.000,"ports":'
        '[{"port":0,"rx":10,"tx":0,"dropped":0},{"port":1,"rx":0,"tx":10,"dropped":0}]}\n'
        "l2fwd-af-xdp: stopped by SIGINT\n"
        '{"program":"l2fwd-af-xdp","final":true,"time_s":3.214,"interval_s":3.214,"ports":'
        '[{"port":0,"rx":2700000,"tx":5,"dropped":0,"mpps":0.84},'
        '{"port":1,"rx":5,"tx":2690000,"dropped":10000,"mpps":0.0}]}\n')

    def test_final_line(self):
        f = l2fwd.final_totals(self.OUT)
        self.assertEqual(f["program"], "l2fwd-af-xdp")
        self.assertEqual((f["rx"], f["tx"], f["dropped"]), (2700005, 2690005, 10000))

    def test_no_final_line(self):
        self.assertIsNone(l2fwd.final_totals(self.OUT.split("stopped")[0]))
        self.assertIsNone(l2fwd.final_totals('{"program":"x","final":true,'))


class Schedule(unittest.TestCase):
    def test_interleaved_and_alternating(self):
        import run
        a = run.options(["--repeats", "4"])
        items = run.schedule(a)
        per_repeat = len(items) // 4
        # per placement: rxonly, io, l2fwd twice (stock, ours); xdp-drop,
        # xdp-redirect, l2fwd-xdp once (the kernel); softirq only:
        # dpdk-l2fwd and io-jumbo twice, io-1500 (ours) and
        # xdp-redirect-jumbo once
        self.assertEqual(per_repeat, 2 * (3 * 2 + 3) + 2 + 2 + 1 + 1)
        self.assertEqual({it["driver"] for it in items if it["config"] == "io-1500"}, {"ours"})
        self.assertEqual({it["placement"] for it in items if it["config"] == "io-jumbo"},
                         {"softirq"})
        firsts = []
        for i, it in enumerate(items):
            if it["order"] == "A":
                nxt = items[i + 1]
                # The pair runs back to back: same configuration, repeat, placement.
                self.assertEqual((nxt["config"], nxt["repeat"], nxt["placement"], nxt["order"]),
                                 (it["config"], it["repeat"], it["placement"], "B"))
                self.assertNotEqual(nxt["driver"], it["driver"])
                if it["config"] == "io" and it["placement"] == "softirq":
                    firsts.append(it["driver"])
        self.assertEqual(firsts, ["stock", "ours", "stock", "ours"])
        self.assertEqual([it["seq"] for it in items], list(range(1, len(items) + 1)))


class IcountSlowPeer(unittest.TestCase):
    """bench/icount.py's slow-peer rows: frames not delivered are no error,
    and the table puts the baseline kernel's row beside the patched one's."""

    def row(self, delivered, veth_dropped, testpmd_dropped):
        from benchlib import icount
        r = {"row": "io-slow (b)", "config": "io-slow", "sent": 4096, "delivered": delivered,
             "gen_ipf": 870.0, "dut_busy_ns": 4096 * 400.0, "slow_peer": True,
             "veth_dropped": veth_dropped, "testpmd_dropped": testpmd_dropped,
             "left": 4096 - delivered - veth_dropped - testpmd_dropped}
        icount.finish(r)
        return r

    def test_rows_known_not_default(self):
        import importlib.util
        from benchlib import icount
        spec = importlib.util.spec_from_file_location("icount_main", os.path.join(
            HERE, "..", "icount.py"))
        main = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(main)
        self.assertEqual(main.selected("io-slow (b),io-slow-wmem (b)"),
                         [("io-slow", "b"), ("io-slow-wmem", "b")])
        self.assertNotIn(("io-slow", "b"), main.selected(""))
        self.assertTrue(icount.config_of("io-slow")["slow_peer"])
        self.assertEqual(icount.config_of("io-slow-wmem")["wmem_default"], 4194304)
        self.assertNotIn("slow_peer", icount.config_of("io"))
        self.main = main

    def test_frames_lost_are_figures_not_errors(self):
        r = self.row(1024, 0, 2560)
        self.assertNotIn("error", r)
        self.assertEqual(r["left"], 512)
        self.assertAlmostEqual(r["dut_ipf"], 1600.0)          # per frame delivered
        self.assertAlmostEqual(r["dut_ipf_offered"], 400.0)   # per frame offered

    def test_table_both_kernels(self):
        self.test_rows_known_not_default()
        base = self.main.summarize([[self.row(1024, 0, 2560)], [self.row(1024, 0, 2560)]])
        patched = self.main.summarize([[self.row(2048, 16, 1024)], [self.row(2048, 16, 1024)]])
        lines = self.main.slow_table(patched, [("io-slow", "b")], base).splitlines()
        self.assertEqual(len(lines), 4)
        self.assertEqual([c.strip() for c in lines[2].split("|")[1:8]],
                         ["io-slow (b)", "baseline", "4096", "1024", "0", "2560", "512"])
        self.assertEqual([c.strip() for c in lines[3].split("|")[1:10]],
                         ["io-slow (b)", "patched", "4096", "2048", "16", "1024", "1008",
                          "**800.0**", "400.0"])
        # no slow-peer row asked: no table
        self.assertEqual(self.main.slow_table(patched, [("io", "b")], base), "")


if __name__ == "__main__":
    unittest.main(verbosity=2)
