# SPDX-License-Identifier: BSD-3-Clause
"""The benchmark's topology, and one run of one configuration in it.

    netns gen   g0 ==veth== d0   netns dut   (d0: GRO on, so it always has NAPI)
    netns dut   d1 ==veth== s0   netns sink  (s0: bench_drop, the far end)

afxdp-gen sends 64-byte frames into g0 from the generator's CPU (0); they
arrive at d0. The device under test (DUT) is on d0 (and d1):

  rxonly        testpmd, port 0 on d0, forwarding lcore on the DUT's CPU (1)
  io            testpmd, port 0 on d0 and port 1 on d1: frames in at d0, out
                at d1, counted at the far end (s0's rx_packets)
  xdp-drop      the kernel: bench_drop on d0
  xdp-redirect  the kernel: bench_redirect on d0, DEVMAP to d1, counted at s0
  l2fwd         examples/l2fwd-af-xdp on d0 and d1 (MAC rewrite, lcore on the
                DUT's CPU), counted at s0
  l2fwd-xdp     examples' kernel twin, l2fwd-xdp: the same forwarding by XDP
                through a DEVMAP, counted at s0
  dpdk-l2fwd    DPDK's own examples/l2fwd (scripts/dpdk-l2fwd.sh), one lcore
                per port: port 0's (d0 -> d1) on the DUT's CPU, port 1's on
                the generator's; counted at s0 (softirq placement only)
  io-1500       io with full 1514-byte frames at MTU 1500, ours only
  io-jumbo      io with 9014-byte frames, every interface at MTU 9000
                (AF_XDP multi-buffer: testpmd --enable-scatter); the stock
                driver refuses the MTU, and its refusal is the result
  xdp-redirect-jumbo  the kernel's DEVMAP redirect (xdp.frags) at MTU 9000

The full-size frames come from afxdp-gen's AF_PACKET method (live frames
cannot exceed a page), at 1500 and 9000 alike; these runs report Gbit/s too.

testpmd runs with Debian's stock net_af_xdp or, with -d, ours; nothing else
differs between the two. The namespaces, veths, XDP programs and processes
are removed when the Bench ends, however it ends (afxdp_test's clean-up
stack).
"""

import json
import os
import re
import signal
import time

# The tests' library: namespaces and veths (topo), testpmd on a
# pseudo-terminal (testpmd) and its output (dpdk_output), the l2fwd example's
# programs (l2fwd), the clean-up stack (cleanup), commands (env).
from afxdp_test import cleanup, dpdk_output, env, l2fwd, testpmd, topo

from . import machine, parse

CONFIGS = {
    "rxonly": {"kind": "afxdp", "fwd": "rxonly", "delivered": "received",
               "what": "testpmd rxonly on d0"},
    "io": {"kind": "afxdp", "fwd": "io", "delivered": "forwarded",
           "what": "testpmd io d0 -> d1, counted at the far end"},
    "xdp-drop": {"kind": "kernel", "prog": "drop", "delivered": "received",
                 "what": "kernel XDP_DROP on d0"},
    "xdp-redirect": {"kind": "kernel", "prog": "redirect", "delivered": "forwarded",
                     "what": "kernel XDP DEVMAP redirect d0 -> d1, counted at the far end"},
    "l2fwd": {"kind": "l2fwd", "delivered": "forwarded",
              "what": "examples/l2fwd-af-xdp d0 -> d1, counted at the far end"},
    "l2fwd-xdp": {"kind": "l2fwd-xdp", "delivered": "forwarded",
                  "what": "examples' l2fwd-xdp (XDP, DEVMAP) d0 -> d1, counted at the far end"},
    "dpdk-l2fwd": {"kind": "dpdk-l2fwd", "delivered": "forwarded", "placements": ("softirq",),
                   "what": "DPDK's examples/l2fwd d0 -> d1, an lcore per port, counted at the far end"},
    # Frames of the whole MTU, through AF_PACKET (live frames stop at a
    # page). These and dpdk-l2fwd run in the softirq placement only, to keep
    # the default run short.
    "io-1500": {"kind": "afxdp", "fwd": "io", "delivered": "forwarded", "mtu": 1500,
                "size": 1514, "gen_method": "packet", "drivers": ("ours",),
                "placements": ("softirq",),
                "what": "testpmd io, 1514-byte frames at MTU 1500, counted at the far end"},
    "io-jumbo": {"kind": "afxdp", "fwd": "io", "delivered": "forwarded", "mtu": 9000,
                 "size": 9014, "gen_method": "packet", "placements": ("softirq",),
                 "app_extra": ["--enable-scatter", "--max-pkt-len=9014", "--tx-offloads=0x8000"],
                 "what": "testpmd io, 9014-byte frames at MTU 9000, counted at the far end"},
    "xdp-redirect-jumbo": {"kind": "kernel", "prog": "redirect", "delivered": "forwarded",
                           "mtu": 9000, "size": 9014, "gen_method": "packet",
                           "placements": ("softirq",),
                           "what": "kernel XDP DEVMAP redirect (xdp.frags), 9014-byte frames "
                                   "at MTU 9000, counted at the far end"},
}
# Configurations run with each DPDK driver (stock and ours); the others run once.
DPDK_KINDS = ("afxdp", "l2fwd", "dpdk-l2fwd")
DRIVERS = ("stock", "ours")
# The interfaces' MTU where a configuration says none.
DEFAULT_MTU = 1500
# testpmd's words when a port cannot be configured, and the driver's reason.
PORT_REFUSED = "Fail to configure port"
MTU_REFUSAL = re.compile(r"^.*MTU \(\d+\) > device max MTU \(\d+\).*$", re.M)


def frame_size(cfg, s):
    """Bytes of each frame (without FCS) the generator sends in `cfg`."""
    return cfg.get("size", s.size)


def drivers_of(cfg):
    """Who runs `cfg`: each DPDK driver its kind runs with, or the kernel."""
    if cfg["kind"] not in DPDK_KINDS:
        return ("kernel",)
    return cfg.get("drivers", DRIVERS)

# A DUT that delivers at least this share of what was offered kept up: the
# figure is the generator's rate, not the DUT's.
GEN_BOUND_SHARE = 0.97


class Settings:
    """What every run shares (bench/run.py fills it from the command line)."""

    def __init__(self, **kw):
        self.seconds = 3.0          # measured traffic per run
        self.warmup = 0.3           # traffic before the measured window (not counted)
        self.settle = 0.3           # after the generator stops, before counting
        self.size = 64
        self.gen_cpu = 0
        self.dut_cpu = 1
        self.rxd = 2048
        self.txd = 2048
        self.burst = 64
        self.mbufs = 16384
        self.near_ns = 200.0        # placement indicator: round trip below = near
        self.devargs = {"stock": "", "ours": ""}    # appended to each port's --vdev
        self.gen = self.bench_xdp = self.pingpong = self.plugin = None
        self.against = None         # ours from another build, run in the stock driver's place
        self.l2fwd = self.l2fwd_xdp = None     # examples/l2fwd-af-xdp
        self.dpdk_l2fwd = None      # DPDK's examples/l2fwd (scripts/dpdk-l2fwd.sh)
        self.huge_dir = None        # a hugetlbfs for the DPDK processes; None: --no-huge
        self.mem_mb = 256           # their memory with hugepages
        self.logs = None            # directory for each run's transcript
        for k, v in kw.items():
            if not hasattr(self, k):
                raise AttributeError(k)
            setattr(self, k, v)

    def plugin_of(self, driver):
        """The plugin EAL loads (-d) for `driver`'s runs; None: Debian's stock
        net_af_xdp, built into its DPDK."""
        return {"ours": self.plugin, "stock": self.against}.get(driver)

    def driver_probed(self, driver):
        """How testpmd names the driver that must probe `driver`'s ports."""
        return "af_xdp_direct" if self.plugin_of(driver) else "stock"


class RunError(Exception):
    """One run could not be done; the benchmark records it and goes on."""


class Bench:
    def __init__(self, s, log=print):
        self.s = s
        self.log = log
        self.net = None
        self._sink_undo = None
        self.cfg = {}               # the configuration of the run under way

    # --- topology ---------------------------------------------------------------

    def __enter__(self):
        self.net = topo.Topology()
        try:
            self._build()
        except BaseException:
            self.net.close()
            raise
        return self

    def __exit__(self, *exc):
        self.net.close()
        return False

    def _build(self):
        net = self.net
        self.gen_ns, self.dut_ns, self.sink_ns = net.netns("gen"), net.netns("dut"), net.netns("sink")
        self.g0, self.d0 = net.veth(self.gen_ns, "g0", self.dut_ns, "d0")
        self.d1, self.s0 = net.veth(self.dut_ns, "d1", self.sink_ns, "s0")
        # NAPI on d0 whatever is attached: threaded NAPI can only be set on a
        # device that has it, and its kthread then outlives XDP attachments.
        env.run(["ethtool", "-K", self.d0.name, "gro", "on"], ns=self.dut_ns.name)
        # The far end drops at XDP: cheap, counted in s0's rx_packets, and a
        # DEVMAP redirect into d1 needs s0 to have NAPI.
        self._sink_undo = self._attach(self.s0, "drop")
        self.log("topology: %s %s <-> %s %s; %s %s <-> %s %s (bench_drop)" % (
            self.gen_ns, self.g0.name, self.d0.name, self.dut_ns, self.dut_ns, self.d1.name,
            self.s0.name, self.sink_ns))

    def _attach(self, ifc, prog, to=None):
        args = [self.s.bench_xdp, "attach", ifc.name, prog] + ([to.name] if to else [])
        with env.signals_deferred():
            cp = env.run(args, ns=ifc.ns.name, check=False)
            if cp.returncode != 0:
                raise env.HarnessError("bench-xdp attach %s %s: %s" % (ifc.name, prog, cp.stderr.strip()))
            undo = cleanup.push("XDP %s on %s" % (prog, ifc.name), lambda: self._detach(ifc))
        self.log(cp.stdout.strip())
        return undo

    def _detach(self, ifc):
        cp = env.run([self.s.bench_xdp, "detach", ifc.name], ns=ifc.ns.name, check=False)
        self.log((cp.stdout + cp.stderr).strip())

    def _set_mtu(self, mtu):
        """Every interface of the path at `mtu` (the DUT's driver may have
        changed its own two: set them all, each run)."""
        for ifc in (self.g0, self.d0, self.d1, self.s0):
            ifc.set_mtu(mtu)

    # --- placement ----------------------------------------------------------------

    def _place(self, placement):
        machine.set_threaded(env, self.dut_ns.name, self.d0.name, placement == "threaded")
        if placement != "threaded":
            time.sleep(0.05)
            left = machine.napi_threads(self.d0.name)
            if left:
                raise RunError("threaded NAPI off on %s, yet its kthreads run: %s" % (self.d0.name, left))

    def _pin(self, placement):
        """After the DUT attached its program: pin d0's NAPI kthread(s)."""
        if placement != "threaded":
            return []
        threads = machine.pin_napi_threads(self.d0.name, self.s.dut_cpu)
        if not threads:
            raise RunError("threaded NAPI on %s, but no napi/%s-* kthread found"
                           % (self.d0.name, self.d0.name))
        return [pid for pid, _ in threads]

    # --- counters -------------------------------------------------------------------

    def _counters(self, napi_pids, dut_tids):
        return {"t": time.monotonic(), "sink_rx": self.s0.rx_packets(),
                "d0_rx": self.d0.rx_packets(), "net_rx": machine.net_rx_softirqs(),
                "napi": {p: machine.schedstat(p) for p in napi_pids},
                "dut": {t: machine.schedstat(t) for t in dut_tids},
                "psi": machine.psi_cpu_some()}

    def _gen(self, seconds):
        s, cfg = self.s, self.cfg
        args = [s.gen, "--dev", self.g0.name, "--size", str(frame_size(cfg, s)), "--duration",
                "%.3f" % seconds, "--cpus", str(s.gen_cpu), "--json", "--quiet"]
        if cfg.get("gen_method"):
            args += ["--method", cfg["gen_method"]]
        cp = env.run(args, ns=self.gen_ns.name, check=False, timeout=seconds + 60)
        if cp.returncode != 0:
            raise RunError("afxdp-gen failed (exit %d): %s" % (cp.returncode,
                                                                (cp.stderr or cp.stdout).strip()[-500:]))
        return parse.parse_gen_json(cp.stdout)

    def _measure(self, row, napi_pids, dut_tids=(), start=None, stop=None):
        """Warm-up traffic (not counted), then the measured window. With
        testpmd, `start`/`stop` bracket the warm-up, and forwarding starts
        again (testpmd zeroes its forward statistics at start)."""
        s = self.s
        if start:
            start()
        if s.warmup > 0:
            self._gen(s.warmup)
            time.sleep(s.settle)
            if stop:
                stop()
                start()
        c0 = self._counters(napi_pids, dut_tids)
        g = self._gen(s.seconds)
        time.sleep(s.settle)
        c1 = self._counters(napi_pids, dut_tids)
        secs = g["seconds"] or s.seconds
        window_ns = (c1["t"] - c0["t"]) * 1e9
        row.update({
            "seconds": round(secs, 4), "built": g["built"], "sent": g["sent"],
            "gen_ring_drops": g.get("dropped", 0) or 0, "gen_method": g.get("method"),
            "gen_not_taken": "; ".join("%s: %s" % kv for kv in sorted((g.get("not_taken") or {}).items())),
            "kernel_rx": c1["d0_rx"] - c0["d0_rx"], "sink_rx": c1["sink_rx"] - c0["sink_rx"],
        })
        gcpu, dcpu = s.gen_cpu, s.dut_cpu
        row["net_rx_gen_cpu"] = c1["net_rx"][gcpu] - c0["net_rx"][gcpu]
        row["net_rx_dut_cpu"] = c1["net_rx"][dcpu] - c0["net_rx"][dcpu]
        if c0["psi"] is not None and c1["psi"] is not None:
            row["psi_cpu_some"] = round((c1["psi"] - c0["psi"]) * 1e3 / window_ns, 3)

        def share(key, ids, field):
            vals = [(c1[key].get(i), c0[key].get(i)) for i in ids]
            vals = [(b[field] - a[field]) for b, a in vals if a and b]
            return round(sum(vals) / window_ns, 3) if vals else None
        if dut_tids:
            row["dut_oncpu_share"] = share("dut", dut_tids, 0)
            row["dut_wait_share"] = share("dut", dut_tids, 1)
            # Times the lcore was put back on its CPU: each one after
            # something else ran there.
            slices = [c1["dut"][i][2] - c0["dut"][i][2] for i in dut_tids
                      if c1["dut"].get(i) and c0["dut"].get(i)]
            if slices:
                row["dut_slices"] = sum(slices)
        if napi_pids:
            row["napi_cpu_share"] = share("napi", napi_pids, 0)
            row["napi_cpu"] = ",".join(sorted({str(machine.last_cpu(p)) for p in napi_pids}))
        return g

    # --- runs -----------------------------------------------------------------------------

    def run(self, item):
        """One run: item has config, driver, placement, repeat. Returns a row."""
        cfg = self.cfg = CONFIGS[item["config"]]
        row = dict(item)
        row["started"] = time.strftime("%H:%M:%S")
        row["loadavg1"] = machine.loadavg()[0]
        row["frame_bytes"] = frame_size(cfg, self.s)
        pp = (self.s.gen_cpu, self.s.dut_cpu)
        try:
            self._set_mtu(cfg.get("mtu", DEFAULT_MTU))
            self._place(item["placement"])
            row["pp_before_ns"] = machine.pingpong(self.s.pingpong, pp)
            if cfg["kind"] == "afxdp":
                self._run_testpmd(item, cfg, row)
            elif cfg["kind"] in ("l2fwd", "l2fwd-xdp", "dpdk-l2fwd"):
                self._run_l2fwd(item, cfg, row)
            else:
                self._run_kernel(item, cfg, row)
            row["pp_after_ns"] = machine.pingpong(self.s.pingpong, pp)
        except (RunError, env.Failure, env.HarnessError, ValueError, KeyError) as e:
            row["error"] = str(e).splitlines()[0][:300]
            self.log("run %s failed: %s" % (run_name(item), e))
        row["placement_class"] = machine.classify(row.get("pp_before_ns"), row.get("pp_after_ns"),
                                                  self.s.near_ns)
        derive(row, cfg)
        return row

    def _testpmd(self, item, cfg):
        s = self.s
        extra = s.devargs.get(item["driver"]) or ""
        extra = ("," + extra) if extra else ""
        vdevs = ["net_af_xdp0,iface=%s%s" % (self.d0.name, extra)]
        if cfg["fwd"] == "io":
            vdevs.append("net_af_xdp1,iface=%s%s" % (self.d1.name, extra))
        app = ["--rxd=%d" % s.rxd, "--txd=%d" % s.txd, "--burst=%d" % s.burst,
               "--record-core-cycles", "--record-burst-stats"] + list(cfg.get("app_extra", ()))
        eal = ["--main-lcore", str(s.gen_cpu), testpmd.LOG_INFO]
        if s.plugin_of(item["driver"]):
            eal += ["-d", s.plugin_of(item["driver"])]
        return testpmd.TestPmd(self.dut_ns, vdevs, fwd=cfg["fwd"], total_mbufs=s.mbufs,
                               huge_dir=s.huge_dir, mem_mb=s.mem_mb if s.huge_dir else None,
                               lcores="%d,%d" % (s.gen_cpu, s.dut_cpu), eal_extra=eal,
                               app_extra=app, label="testpmd[%s %s]" % (item["driver"], cfg["fwd"]))

    def _run_testpmd(self, item, cfg, row):
        tp = self._testpmd(item, cfg)
        tp.report = False
        try:
            with tp:
                info = probed_by(tp, item["driver"], self.s.driver_probed(item["driver"]))
                row.update({"redirect": info["redirect"], "rx_build": info["rx_build"],
                            "xdp_mode": info["xdp_mode"]})
                if PORT_REFUSED in tp.startup_output:
                    refused(row, tp.startup_output)
                    tp.quit()
                    return
                napi = self._pin(item["placement"])
                lcores = machine.threads_on(tp.proc.pid, self.s.dut_cpu, "rte-worker")[:1]
                g = self._measure(row, napi, lcores, start=lambda: tp.cmd("start"),
                                  stop=lambda: tp.cmd("stop"))
                stop = tp.cmd("stop")
                stats = tp.cmd("show port stats all")
                xstats = tp.cmd("show port xstats all")
                tp.quit()
        finally:
            self._save(item, tp.transcript)
        fwd = dpdk_output.fwd_stats(stop)
        if 0 not in fwd["ports"]:
            raise RunError("cannot read the forward statistics at stop:\n%s" % stop[-800:])
        p0 = fwd["ports"][0]
        row.update({"received": p0["rx_packets"], "rx_missed": p0["rx_dropped"]})
        if p0.get("rx_bursts"):
            # Port 0's polls, empty or not (testpmd --record-burst-stats).
            row["rx_polls"] = p0["rx_bursts"]
            row["pkts_per_poll"] = round(p0["rx_packets"] / p0["rx_bursts"], 3)
        if cfg["fwd"] == "io":
            p1 = fwd["ports"].get(1, {})
            row.update({"tx_packets": p1.get("tx_packets", 0), "tx_dropped": p1.get("tx_dropped", 0),
                        "forwarded": row["sink_rx"]})
        if fwd["cycles"]:
            c = fwd["cycles"]
            row.update({"cycles_per_packet": c["cycles_per_packet"], "busy_cycles": c["total_cycles"],
                        "cycles_packets": c["packets"], "tsc_mhz": c["mhz"]})
        xs = dpdk_output.xstats(xstats)
        ps = dpdk_output.port_stats(stats)
        self._save(item, json.dumps({"gen": g, "fwd": fwd, "port_stats": ps, "xstats": xs},
                                    indent=1, sort_keys=True), suffix=".json")

    def _run_kernel(self, item, cfg, row):
        to = self.d1 if cfg["prog"] == "redirect" else None
        undo = self._attach(self.d0, cfg["prog"], to)
        try:
            napi = self._pin(item["placement"])
            g = self._measure(row, napi)
        finally:
            cleanup.release(undo)
        row["received"] = row["kernel_rx"]
        if cfg["prog"] == "redirect":
            row["forwarded"] = row["sink_rx"]
        self._save(item, json.dumps({"gen": g}, indent=1, sort_keys=True), suffix=".json")

    def _l2fwd(self, item, cfg):
        s = self.s
        ports = [self.d0, self.d1]
        if cfg["kind"] == "l2fwd-xdp":
            # The bare fast path: no tracing program at each DEVMAP flush.
            return l2fwd.Forwarder.xdp(self.dut_ns, ports, ["-T", "0", "--json", "--no-tracing"],
                                       path=s.l2fwd_xdp)
        eal = [testpmd.LOG_INFO]        # our driver's choices, for the report
        if s.plugin_of(item["driver"]):
            eal += ["-d", s.plugin_of(item["driver"])]
        if cfg["kind"] == "dpdk-l2fwd":
            # As its guide runs it: an lcore per port (-q 1), statistics
            # off. lcore 0 (the main one) takes port 0, the one that
            # forwards, on the DUT's CPU; port 1 receives nothing.
            if not s.dpdk_l2fwd:
                raise RunError("DPDK's l2fwd is not built (scripts/dpdk-l2fwd.sh builds it)")
            return l2fwd.Forwarder.dpdk_example(
                self.dut_ns, ports, ["-p", "0x3", "-q", "1", "-T", "0"],
                lcores="0@%d,1@%d" % (s.dut_cpu, s.gen_cpu), eal_extra=eal,
                devargs=s.devargs.get(item["driver"]) or "", huge_dir=s.huge_dir,
                mem_mb=s.mem_mb if s.huge_dir else None, path=s.dpdk_l2fwd)
        app = ["-q", "2", "-T", "0", "--json", "--burst", str(min(s.burst, 64)),
               "--rxd", str(s.rxd), "--txd", str(s.txd)]
        return l2fwd.Forwarder.dpdk(self.dut_ns, ports, app, lcores=str(s.dut_cpu), eal_extra=eal,
                                    devargs=s.devargs.get(item["driver"]) or "",
                                    huge_dir=s.huge_dir, mem_mb=s.mem_mb if s.huge_dir else None,
                                    path=s.l2fwd, wrapper=["taskset", "-c", str(s.dut_cpu)])

    def _run_l2fwd(self, item, cfg, row):
        """The l2fwd example (or its kernel twin, or DPDK's l2fwd) forwarding
        d0 -> d1 while afxdp-gen sends: started, waited for (ready), measured,
        then stopped with SIGINT; the example's final JSON line is its own
        count, DPDK's l2fwd must exit 0."""
        fwd = self._l2fwd(item, cfg)
        try:
            fwd.start()
            napi = self._pin(item["placement"])
            tids = machine.threads_on(fwd.proc.pid, self.s.dut_cpu, "") \
                if cfg["kind"] != "l2fwd-xdp" else ()
            g = self._measure(row, napi, tids[:1])
            fwd.stop(signal.SIGINT)
            text = fwd.output()
        finally:
            self._save(item, fwd.output())
            fwd.close()     # ended if still running; EAL's runtime directory removed
        if cfg["kind"] != "l2fwd-xdp":
            info = dpdk_output.startup(text)
            want = self.s.driver_probed(item["driver"])
            if not (info["driver"] or "").startswith(want):
                raise RunError("%s probed the ports with %s, not the %s driver" % (
                    cfg["kind"], info["driver"] or "an unknown driver", item["driver"]))
            row.update({"redirect": info["redirect"], "rx_build": info["rx_build"],
                        "xdp_mode": info["xdp_mode"]})
        if cfg["kind"] == "dpdk-l2fwd":
            # DPDK's l2fwd prints no statistics with -T 0; it must end well.
            final = {"exit": fwd.returncode}
            if fwd.returncode != 0:
                raise RunError("dpdk-l2fwd exited with %s at SIGINT" % fwd.returncode)
        else:
            final = l2fwd.final_totals(text)
        if final is None:
            raise RunError("no final statistics from %s (exit %s)" % (cfg["kind"], fwd.returncode))
        # The program's own totals include the warm-up: the window's figures
        # come from the interfaces (d0 received, s0 at the far end).
        row["received"] = row["kernel_rx"]
        row["forwarded"] = row["sink_rx"]
        self._save(item, json.dumps({"gen": g, "final": final}, indent=1, sort_keys=True),
                   suffix=".json")

    def _save(self, item, text, suffix=".txt"):
        if not self.s.logs:
            return
        path = os.path.join(self.s.logs, "%03d-%s%s" % (item["seq"], run_name(item), suffix))
        with open(path, "w") as f:
            f.write(text)


def probed_by(tp, driver, want=None):
    """What testpmd's start-up says of the AF_XDP driver (dpdk_output.startup),
    or RunError if `driver` ("stock" or "ours") did not take the port: the
    driver testpmd names `want` (default: ours' name for "ours", else "stock")."""
    info = dpdk_output.startup(tp.startup_output)
    want = want or ("af_xdp_direct" if driver == "ours" else "stock")
    if not (info["driver"] or "").startswith(want):
        raise RunError("testpmd probed the port with %s, not the %s driver"
                       % (info["driver"] or "an unknown driver", driver))
    return info


def refused(row, text):
    """testpmd could not configure a port: the driver's reason becomes the
    run's result ("not supported"), or, without one, its error."""
    m = MTU_REFUSAL.search(text)
    if not m:
        raise RunError("testpmd could not configure a port:\n%s"
                       % "\n".join(dpdk_output.problem_lines(text)))
    row["unsupported"] = m.group(0).strip()


def run_name(item):
    return "%s-%s-%s-r%d" % (item["config"], item["driver"], item["placement"], item["repeat"])


def derive(row, cfg):
    """Rates and the bound of one run, from its counts (in place)."""
    secs = row.get("seconds")
    if not secs or "built" not in row or "error" in row:
        return row
    mpps = lambda n: round(n / secs / 1e6, 4)  # noqa: E731
    row["offered_mpps"] = mpps(row["built"])
    if "received" in row:
        row["received_mpps"] = mpps(row["received"])
    if "forwarded" in row:
        row["forwarded_mpps"] = mpps(row["forwarded"])
        if row.get("frame_bytes"):
            # Ethernet frames without FCS, as sent.
            row["forwarded_gbps"] = round(row["forwarded"] * row["frame_bytes"] * 8 / secs / 1e9, 3)
    delivered = row.get(cfg["delivered"])
    if delivered is None:
        return row
    dropped = max(row["built"] - delivered, 0)
    row["dropped_mpps"] = mpps(dropped)
    row["delivered_share"] = round(delivered / row["built"], 4) if row["built"] else 0
    row["bound"] = "generator" if row["delivered_share"] >= GEN_BOUND_SHARE else "DUT"
    return row
