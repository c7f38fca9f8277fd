# SPDX-License-Identifier: BSD-3-Clause
"""Guest instructions per frame, in the VM under qemu -icount (bench/icount.py).

The benchmark's topology (scenario.Bench), inside the VM on the patched
kernel, with everything that works on a frame on ONE vCPU (the DUT's, 1):

    afxdp-gen (CPU 1) -> g0 ==veth== d0 [DUT] d1 ==veth== s0 (bench_drop)

With -icount shift=0 guest time advances by 1 ns per guest instruction of
whichever vCPU runs. A time measured on CPU 1 while nothing else runs there
is the number of instructions CPU 1 executed in it. Each cycle of a row has
two phases, one after the other, never overlapping:

  generator   testpmd stopped (its lcore waits, off the CPU): afxdp-gen
              (pinned to CPU 1) sends CYCLE frames in one BPF_PROG_RUN
              live-frames call. The call's own time covers building each
              frame, the veth, and d0's NAPI poll, which runs inside it
              (softirq on the sending CPU): the XDP program, the redirect,
              the copy into the socket's UMEM (zero-copy: into the pool's
              buffer), the Rx ring. The frames wait in the Rx ring. Kernel
              rows: d0's program, the DEVMAP redirect to d1, s0's drop.
  DUT         testpmd `start` (with --no-flush-rx: the waiting frames are
              not thrown away), which takes them all in full bursts, then
              `stop`. Its --record-core-cycles busy cycles count the polls
              that returned frames, and the kernel's work inside them (the
              transmit's sendto, veth, s0's XDP_DROP; in zero-copy the Tx
              NAPI poll, which ndo_xsk_wakeup runs at its local_bh_enable).
              Nothing else runs on CPU 1 meanwhile, so no other work lands
              inside a counted poll. The guest's TSC counts icount time:
              1 cycle = 1 instruction at the 1000 MHz testpmd reports.

instructions/frame = generator ns/frame + DUT busy cycles / frames, the same
sum for every row (no DUT cycles in the kernel's rows). Not counted: the
DUT's empty polls (busy polling, not work per frame), what the generator's
process does around its call, and work deferred to other threads or CPUs
(the NET_RX softirqs run elsewhere than on CPU 1 are counted beside, to
show there are none).
"""

import json
import time

from afxdp_test import cleanup, dpdk_output, env, topo

from . import machine, parse, scenario

# Guest seconds between testpmd's start and stop: it takes a cycle's frames
# (1024 through io, ~3.4 M instructions) in a few ms.
DRAIN_S = 0.05

# The three ways of running the DPDK side. kernel/bench.sh --testpmd runs
# (a) on the unpatched build of the same kernel (its per-frame receive, what
# stock 6.12 does), (b) and (c) on the patched one (the batched receive of
# layer a, zero-copy of layer c).
VARIANTS = {
    "a": {"driver": "stock", "devargs": "force_copy=1",
          "what": "Debian's stock net_af_xdp, copy mode (unpatched kernel: receive per frame)"},
    "b": {"driver": "ours", "devargs": "force_copy=1",
          "what": "ours, copy mode, batched receive (driver and kernel)"},
    "c": {"driver": "ours", "devargs": "redirect=direct", "zero_copy": True,
          "what": "ours, zero-copy, redirect=direct"},
}

# The slow peer (issue 24's backpressure rows): io forwarding as the io
# rows, but the far end drains its veth ring only when its NAPI's timer
# fires, once per tick (no high-resolution timers in the test kernel, HZ
# 250: every 4 ms, 4 M instructions under -icount), never at the sender's
# request: s0's NAPI defers for ever (napi_defer_hard_irqs at its maximum,
# gro_flush_timeout set), so after its first poll veth's xmit no longer
# schedules it (rx_notify_masked stays set) and only the timer polls it.
# The DUT forwards more than that in a tick, so its transmit meets a full
# peer. What stops it first: the socket's send buffer (sk_sndbuf, 212992
# bytes by default, about 220 skbs of 64-byte frames in flight, 90 of
# 1500-byte ones; those in the peer's ring are still charged), below the
# ring's 256 entries: sendto() says EAGAIN and the frames stay in the Tx
# ring (io-slow). With the default send buffer raised to 4 MB
# (net.core.wmem_default, for the row only) the peer's ring fills first
# and veth, without a qdisc, drops the frame it cannot queue, ending the
# sendto() with EBUSY (io-slow-wmem). All on the DUT's CPU: deterministic
# under -icount. The far end's drains run at ticks, mostly in the DUT's
# empty polls, which are not counted. Not in the default rows.
# (napi_defer_hard_irqs, gro_flush_timeout in ns)
SLOW_PEER = (2 ** 31 - 1, 1000000)
EXTRA_CONFIGS = {
    "io-slow": dict(scenario.CONFIGS["io"], slow_peer=SLOW_PEER,
                    what="testpmd io d0 -> d1, the far end drains once per tick (slow peer)"),
    "io-slow-wmem": dict(scenario.CONFIGS["io"], slow_peer=SLOW_PEER, wmem_default=4194304,
                         what="testpmd io d0 -> d1, the far end drains once per tick "
                              "(slow peer), send buffers of 4 MB"),
}

# (configuration of scenario.CONFIGS or EXTRA_CONFIGS, variant or None for
# the kernel's rows): the default rows, then those run only when asked for
ROWS = [("xdp-drop", None)] + [(c, v) for c in ("rxonly", "io") for v in "abc"] + \
    [("xdp-redirect", None)]
EXTRA_ROWS = [(c, v) for c in ("io-slow", "io-slow-wmem") for v in "abc"]


def config_of(name):
    """The configuration a row runs: scenario.CONFIGS or EXTRA_CONFIGS"""
    return EXTRA_CONFIGS.get(name) or scenario.CONFIGS[name]


def row_name(config, variant):
    return config if variant is None else "%s (%s)" % (config, variant)


class IcountBench(scenario.Bench):
    """scenario.Bench in alternating phases, everything on the DUT's CPU."""

    def __init__(self, s, cycle, cycles, warmup, same_veths=False, log=print, size=64):
        super().__init__(s, log=log)
        self.size = size            # frame size, without FCS
        self.same_veths = same_veths
        self.cycle = cycle          # frames per cycle
        self.cycles = cycles        # measured cycles
        self.warmup = warmup        # cycles before, not counted
        self.round = 0
        self._seq = 0

    def _send(self, count):
        """afxdp-gen: `count` frames in one call, on the DUT's CPU."""
        s = self.s
        args = [s.gen, "--dev", self.g0.name, "--method", "live", "--count", str(count),
                "--cpus", str(s.dut_cpu), "--size", str(self.size), "--json", "--quiet"]
        cp = env.run(args, ns=self.gen_ns.name, check=False, timeout=600)
        if cp.returncode != 0:
            raise scenario.RunError("afxdp-gen failed (exit %d): %s" % (
                cp.returncode, (cp.stderr or cp.stdout).strip()[-500:]))
        g = parse.parse_gen_json(cp.stdout)
        if g.get("ns_per_frame") is None:
            raise scenario.RunError("afxdp-gen timed no call: %s" % cp.stdout.strip()[-300:])
        return g

    def _snap(self):
        return {"sink_rx": self.s0.rx_packets(), "d0_rx": self.d0.rx_packets(),
                "net_rx": machine.net_rx_softirqs()}

    def _cycle(self, tp=None):
        """One cycle: the generator's phase, then (with testpmd) the DUT's.
        Returns (the generator's JSON, testpmd's forward statistics or None)."""
        g = self._send(self.cycle)
        if tp is None:
            return g, None
        tp.cmd("start")
        time.sleep(DRAIN_S)
        return g, dpdk_output.fwd_stats(tp.cmd("stop"))

    def _window(self, row, tp=None):
        """Warm-up cycles (not counted), then the measured ones."""
        for _ in range(self.warmup):
            self._cycle(tp)
        if tp is not None:
            # the xstats then count the measured frames only
            tp.cmd("clear port xstats all")
        c0 = self._snap()
        sent = gen_ns = busy_ns = taken = 0
        for _ in range(self.cycles):
            g, fwd = self._cycle(tp)
            sent += g["sent"]
            gen_ns += g["ns_per_frame"] * g["sent"]
            if fwd is not None:
                c = fwd["cycles"]
                if not c or 0 not in fwd["ports"]:
                    raise scenario.RunError("no forward statistics or busy cycles at stop")
                busy_ns += c["total_cycles"] * 1000.0 / c["mhz"]
                taken += fwd["ports"][0]["rx_packets"]
                if 1 in fwd["ports"]:
                    row["fwd_tx_dropped"] = row.get("fwd_tx_dropped", 0) + \
                        fwd["ports"][1].get("tx_dropped", 0)
                row["tsc_mhz"] = c["mhz"]
                row["rx_empty_pct"] = fwd["ports"][0].get("rx_empty_pct")
        c1 = self._snap()
        row.update({"sent": sent, "gen_ipf": gen_ns / sent, "dut_busy_ns": busy_ns,
                    "taken": taken, "sink_rx": c1["sink_rx"] - c0["sink_rx"],
                    "d0_rx": c1["d0_rx"] - c0["d0_rx"]})
        # NET_RX softirqs elsewhere than on the DUT's CPU: work this count misses
        row["net_rx_elsewhere"] = sum(c1["net_rx"]) - sum(c0["net_rx"]) - (
            c1["net_rx"][self.s.dut_cpu] - c0["net_rx"][self.s.dut_cpu])
        self.log("%s: %d frames sent" % (row["row"], sent))

    # Each row on veths of its own (built in measure()), so that no row
    # inherits another's state (before layer c's patch 2 zero-copy transmit
    # stalled on a veth that had a socket before). same_veths builds them
    # once, for all rows, as a user restarting testpmd on one veth would.
    def __enter__(self):
        return super().__enter__() if self.same_veths else self

    def __exit__(self, *exc):
        return super().__exit__(*exc) if self.same_veths else False

    def measure(self, config, variant):
        cfg = config_of(config)
        row = {"config": config, "variant": variant or "", "row": row_name(config, variant)}
        if not self.same_veths:
            self.net = topo.Topology()
        try:
            if not self.same_veths:
                self._build()
            if cfg.get("slow_peer"):
                # s0's NAPI polled once per tick while it finds frames
                self.s0.set_napi_deferral(*cfg["slow_peer"])
            wmem = None
            if cfg.get("wmem_default"):
                wmem = set_wmem_default(cfg["wmem_default"])
            try:
                if variant is None:
                    self._kernel_row(cfg, row)
                else:
                    self._testpmd_row(config, cfg, variant, row)
            finally:
                if wmem is not None:
                    set_wmem_default(wmem)
        except (scenario.RunError, env.Failure, env.HarnessError, ValueError, KeyError) as e:
            row["error"] = str(e).splitlines()[0][:300]
            self.log("%s failed: %s" % (row["row"], e))
            return row
        finally:
            if not self.same_veths:
                self.net.close()
        finish(row)
        return row

    def _kernel_row(self, cfg, row):
        to = self.d1 if cfg["prog"] == "redirect" else None
        undo = self._attach(self.d0, cfg["prog"], to)
        try:
            self._window(row)
        finally:
            cleanup.release(undo)
        row["delivered"] = row["sink_rx"] if to else row["d0_rx"]
        row["dut_busy_ns"] = 0.0

    def _testpmd_row(self, config, cfg, variant, row):
        var = VARIANTS[variant]
        self.s.devargs = {var["driver"]: var["devargs"]}
        self._seq += 1
        # run_name(): <config>-<driver>-<placement>-r<round>; the variant as placement
        item = {"driver": var["driver"], "config": config, "placement": "icount-" + variant,
                "seq": self._seq, "repeat": self.round}
        # the frames wait in the Rx ring while testpmd is stopped: keep them at start
        cfg = dict(cfg, app_extra=list(cfg.get("app_extra", ())) + ["--no-flush-rx"])
        tp = self._testpmd(item, cfg)
        tp.report = False
        try:
            with tp:
                info = scenario.probed_by(tp, var["driver"])
                if var["driver"] == "ours":
                    mode = "zero-copy" if var.get("zero_copy") else "copy"
                    if info["copy"] != mode:
                        raise scenario.RunError("the socket is in %s mode, not %s"
                                                % (info["copy"], mode))
                row["redirect"] = info["redirect"] or ""
                self.log("%s: testpmd ready" % row["row"])
                veth0 = {i.name: i.ethtool_stats() for i in (self.d0, self.d1)}
                d1_dropped0 = self.d1.sysfs_stat("tx_dropped")
                self._window(row, tp)
                veth1 = {i.name: i.ethtool_stats() for i in (self.d0, self.d1)}
                d1_dropped1 = self.d1.sysfs_stat("tx_dropped")
                stats = tp.cmd("show port stats all")
                xstats = dpdk_output.xstats(tp.cmd("show port xstats all"))
                self.log("%s: measured" % row["row"])
                tp.quit()
                self.log("%s: testpmd ended" % row["row"])
        finally:
            self._save(item, tp.transcript)
        row["delivered"] = row["taken"] if cfg["fwd"] == "rxonly" else row["sink_rx"]
        if cfg.get("slow_peer"):
            # where the frames not delivered went: veth's drops at the full
            # ring (d1's tx_dropped), testpmd's when the Tx ring had no
            # room; the rest waits in the Tx ring (or its skb, lost nowhere)
            row["slow_peer"] = True
            row["veth_dropped"] = d1_dropped1 - d1_dropped0
            row["testpmd_dropped"] = row.get("fwd_tx_dropped", 0)
            row["left"] = row["sent"] - row["delivered"] - row["veth_dropped"] - \
                row["testpmd_dropped"]
        # our driver's kernel calls and Tx copies, in the measured cycles
        for what in ("rx_q0_wakeups", "tx_q0_wakeups", "tx_q0_copies"):
            vals = [x[what] for x in xstats.values() if what in x]
            if vals:
                row[what[:2] + what[5:]] = sum(vals)
        # the veths' own counters over the row's cycles (which path the kernel took)
        veth = {n: {k: v - veth0[n].get(k, 0) for k, v in c.items() if v != veth0[n].get(k, 0)}
                for n, c in veth1.items()}
        self._save(item, json.dumps({"port_stats": dpdk_output.port_stats(stats),
                                     "xstats": xstats, "veth": veth, "row": row}, indent=1,
                                    sort_keys=True),
                   suffix=".json")


WMEM_DEFAULT = "/proc/sys/net/core/wmem_default"


def set_wmem_default(value):
    """net.core.wmem_default (the send buffer of sockets created after,
    testpmd's AF_XDP sockets among them) set to `value`; returns the old one"""
    with open(WMEM_DEFAULT) as f:
        old = int(f.read())
    with open(WMEM_DEFAULT, "w") as f:
        f.write("%d\n" % value)
    with open(WMEM_DEFAULT) as f:
        if int(f.read()) != value:
            raise scenario.RunError("%s did not take %d" % (WMEM_DEFAULT, value))
    return old


def finish(row):
    """The row's figures, and why not when frames were lost."""
    row["dut_ipf"] = row["dut_busy_ns"] / max(row["delivered"], 1)
    row["ipf"] = row["gen_ipf"] + row["dut_ipf"]
    if row.get("slow_peer"):
        # frames are lost by design: per frame delivered (above) and offered
        row["dut_ipf_offered"] = row["dut_busy_ns"] / max(row["sent"], 1)
        return
    if row["delivered"] != row["sent"]:
        row["error"] = "%d frames sent, %d delivered" % (
            row["sent"], row["delivered"])
