#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tx checksums on the host: TCP through testpmd's csum engine, the L4
checksums completed by the kernel (AF_XDP Tx metadata) against computed by
our driver and computed by testpmd itself (issue 27).

    netns a: h0 10.99.0.1 == veth == p0 (net_af_xdp0)  netns dut: testpmd csum
    netns b: h1 10.99.0.2 == veth == p1 (net_af_xdp1)

The hosts keep their tx checksumming on (segmentation off, as
tests/integration/test_tx_csum.py): the frames they send carry only the
pseudo-header's sum, so every forwarded frame needs its TCP checksum
completed. A TCP transfer of --mb MB from h0 to h1 (nc) crosses a fresh
testpmd (--record-core-cycles) per variant:

  kernel       `csum set ip|tcp hw`, tx_csum=auto: the driver hands the TCP
               checksum to the kernel in the descriptor's Tx metadata; the
               DUT's veths keep tx checksumming, so the frame leaves
               CHECKSUM_PARTIAL and no one on the DUT sums the payload (a
               NIC would, in hardware)
  driver       `csum set ip|tcp hw`, tx_csum=sw: our driver sums each frame
  testpmd sw   `csum set ip|tcp sw`: testpmd sums each frame itself, as an
               application does over a port without the offload

Every veth's receive runs in a threaded-NAPI kthread pinned to CPU
NAPI_CPU, with nc and testpmd's main lcore; the forwarding lcore has CPU
DUT_CPU to itself. So its busy TSC cycles (testpmd's --record-core-cycles,
sendto() included: the copy-mode transmit builds each skb and hands it to
the peer veth's ring) are the forwarder's alone, not the hosts' TCP
stacks, which a veth would otherwise run in the sender's softirq. The
variants are interleaved, their order rotating with the repeat. Per run:
those cycles per byte the two ports received, and the transfer's rate. The machine may be shared: the ratios of the
medians are the result, not the rates.

    bench/csum.py --build BUILD [--repeats N] [--mb MB] [--out DIR] [--smoke]

Prints a Markdown table; report.md and runs.csv go into
results/csum-<date>-<time>/ (or --out DIR).
"""

import argparse
import csv
import datetime
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)

from afxdp_test import dpdk_output, env, hosts, testpmd, topo  # noqa: E402
from benchlib import harness, machine              # noqa: E402
from run import plugin_in                          # noqa: E402

# (name, devargs added to each port, testpmd's `csum set` mode)
VARIANTS = (("kernel", "", "hw"), ("driver", ",tx_csum=sw", "hw"), ("testpmd sw", "", "sw"))
TCP_PORT = 5003
NAPI_CPU, DUT_CPU = 0, 1
TRANSFER_TIMEOUT = 300      # only against a hang


def options(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.environ.get("BUILD_DIR", os.path.join(TOP, "build")))
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--mb", type=int, default=200, help="MB per transfer")
    ap.add_argument("--out", help="results directory (default results/csum-<date>-<time>)")
    ap.add_argument("--quick", action="store_true", help="3 repeats of 100 MB")
    ap.add_argument("--smoke", action="store_true", help="1 repeat of 10 MB: does it run?")
    a = ap.parse_args(argv)
    if a.quick:
        a.repeats, a.mb = 3, 100
    if a.smoke:
        a.repeats, a.mb = 1, 10
    return a


def transfer(a_ns, b_ns, src, size):
    """src's bytes from host a to host b over TCP; returns the seconds it took."""
    server = env.popen(["taskset", "-c", str(NAPI_CPU), "sh", "-c",
                        "nc -4 -n -d -l %s %d | wc -c" % (hosts.ADDR_B, TCP_PORT)],
                       ns=b_ns.name, stdout=subprocess.PIPE, text=True)
    client = None
    try:
        if not hosts.wait_listening(b_ns, TCP_PORT):
            raise env.HarnessError("nc is not listening on %s:%d" % (hosts.ADDR_B, TCP_PORT))
        start = time.monotonic()
        with open(src, "rb") as inp:
            client = env.popen(["taskset", "-c", str(NAPI_CPU), "nc", "-4", "-n", "-N", "-w", "30", hosts.ADDR_B, str(TCP_PORT)],
                               ns=a_ns.name, stdin=inp)
            rc = client.wait(TRANSFER_TIMEOUT)
        out, _ = server.communicate(timeout=30)
        seconds = time.monotonic() - start
    except subprocess.TimeoutExpired:
        raise env.HarnessError("TCP: %d bytes not sent within %d s" % (size, TRANSFER_TIMEOUT))
    finally:
        for p in (client, server):
            if p is not None:
                env.end_process(p)
    got = int(out.strip() or 0)
    if rc != 0 or got != size:
        raise env.HarnessError("TCP: %d of %d bytes arrived (nc exit code %d)" % (got, size, rc))
    return seconds


def csum_set(tp, mode):
    """`csum set ip|tcp <mode>` on both ports, applied at port start."""
    tp.cmd("port stop all")
    for port in (0, 1):
        for proto in ("ip", "tcp"):
            tp.cmd("csum set %s %s %d" % (proto, mode, port))
    tp.cmd("port start all")


def receive_in_threads(hs):
    """Every veth's NAPI threaded and pinned to NAPI_CPU: the hosts' (GRO
    gives them NAPI) and, once the ports started, the DUT's (their XDP
    program does)."""
    for dev in hs[3:]:
        machine.set_threaded(env, dev.ns.name, dev.name, True)
        if not machine.pin_napi_threads(dev.name, NAPI_CPU):
            raise env.HarnessError("no NAPI thread of %s to pin" % dev.name)


def run_variant(hs, variant, src, size):
    dut, a, b, p0, h0, p1, h1 = hs
    name, devargs, mode = variant
    vdevs = ["net_af_xdp0,iface=%s%s" % (p0.name, devargs),
             "net_af_xdp1,iface=%s%s" % (p1.name, devargs)]
    with testpmd.TestPmd(dut, vdevs, fwd="csum", app_extra=["--record-core-cycles"],
                         lcores="%d,%d" % (NAPI_CPU, DUT_CPU),
                         label="testpmd[csum %s]" % name) as tp:
        tp.report = False
        csum_set(tp, mode)
        receive_in_threads(hs)
        tp.cmd("set eth-peer 0 %s" % h0.mac)
        tp.cmd("set eth-peer 1 %s" % h1.mac)
        tp.cmd("clear port stats all")
        tp.cmd("start")
        seconds = transfer(a, b, src, size)
        stop = tp.cmd("stop")
        stats = dpdk_output.port_stats(tp.cmd("show port stats all"))
        xs = {p: tp.xstats(p) for p in (0, 1)}
        tp.quit()
    c = dpdk_output.fwd_stats(stop)["cycles"]
    if not c:
        raise env.HarnessError("%s: no busy cycles at stop" % name)
    rx_bytes = sum(stats.get(p, {}).get("RX-bytes", 0) for p in (0, 1))
    return {"variant": name, "seconds": round(seconds, 3),
            "gbit_s": round(size * 8 / seconds / 1e9, 3),
            "busy_cycles": c["total_cycles"], "tsc_mhz": c["mhz"], "rx_bytes": rx_bytes,
            "cycles_per_kbyte": round(c["total_cycles"] * 1024.0 / rx_bytes, 1),
            "cycles_per_packet": c["cycles_per_packet"], "packets": c["packets"],
            "csum_kernel": sum(xs[p].get("tx_q0_csum_kernel", 0) for p in (0, 1)),
            "csum_sw": sum(xs[p].get("tx_q0_csum_sw", 0) for p in (0, 1))}


def measure(a, out, rows):
    src = os.path.join(env.run_dir(), "csum-src.bin")
    size = a.mb << 20
    with open(src, "wb") as f:
        for _ in range(a.mb):
            f.write(os.urandom(1 << 20))
    try:
        with topo.Topology() as net:
            hs = hosts.two_hosts(net, gro=True, tx_csum=True)
            for p in (hs[3], hs[5]):        # the DUT's veths: tx checksumming on (the default)
                env.run(["ethtool", "-K", p.name, "tx", "on"], ns=hs[0].name)
            for r in range(a.repeats):
                k = r % len(VARIANTS)
                for v in VARIANTS[k:] + VARIANTS[:k]:
                    row = run_variant(hs, v, src, size)
                    row["repeat"] = r
                    rows.append(row)
                    print("csum: repeat %d %-10s %6.1f cycles/KB %6.0f cycles/packet %.2f Gbit/s"
                          % (r, v[0], row["cycles_per_kbyte"], row["cycles_per_packet"],
                             row["gbit_s"]), flush=True)
    finally:
        os.unlink(src)
    with open(os.path.join(out, "runs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def report(a, rows, meta):
    med = {}
    for name, _, _ in VARIANTS:
        sel = [r for r in rows if r["variant"] == name]
        med[name] = {k: statistics.median(r[k] for r in sel)
                     for k in ("cycles_per_kbyte", "cycles_per_packet", "gbit_s",
                               "csum_kernel", "csum_sw")}
    sw = med["testpmd sw"]["cycles_per_kbyte"]
    drv = med["driver"]["cycles_per_kbyte"]
    lines = ["# Tx checksums: TCP through testpmd's csum engine (%s)" % meta["date"], "",
             "%s; load %s at start, %s at end; %d repeats of %d MB, variants interleaved."
             % (meta["machine"], meta["load_start"], meta["load_end"], a.repeats, a.mb), "",
             "| TCP checksums | DUT cycles/KB | vs testpmd sw | vs driver | cycles/packet "
             "| Gbit/s | csum by kernel | by driver |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, _, _ in VARIANTS:
        m = med[name]
        lines.append("| %s | %.1f | %.2fx | %.2fx | %.0f | %.2f | %d | %d |"
                     % (name, m["cycles_per_kbyte"], m["cycles_per_kbyte"] / sw,
                        m["cycles_per_kbyte"] / drv, m["cycles_per_packet"], m["gbit_s"],
                        m["csum_kernel"], m["csum_sw"]))
    lines += ["", "Medians. DUT cycles: the forwarding lcore's busy TSC cycles "
              "(--record-core-cycles, its sendto() calls included) per KB the two ports "
              "received; csum counters: the ports' tx_q0_csum_kernel and tx_q0_csum_sw."]
    return "\n".join(lines) + "\n"


def main(argv):
    a = options(argv)
    if os.geteuid() != 0:
        sys.exit("csum: run as root (network namespaces, veths, XDP programs, AF_XDP sockets)")
    plugin = plugin_in(a.build)
    if not plugin:
        sys.exit("csum: no plugin built in %s (ninja -C %s)" % (a.build, a.build))
    os.environ["AFXDP_PLUGIN"] = plugin
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = os.path.abspath(a.out or os.path.join(TOP, "results", "csum-" + stamp))
    os.makedirs(out, exist_ok=True)
    meta = {"date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
            "machine": "%(cpus)s CPUs, %(cpu_model)s, Linux %(kernel)s" % machine.describe(),
            "load_start": machine.loadavg()}
    rows = []
    print("csum: run id %s, results in %s" % (env.run_id(), out), flush=True)
    if harness.run_measured("csum", lambda: measure(a, out, rows)) != 0:
        return 1
    meta["load_end"] = machine.loadavg()
    text = report(a, rows, meta)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(text)
    print(text + "\ncsum: results in %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
