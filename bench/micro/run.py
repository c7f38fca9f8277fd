#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Rx batch microbenchmark: instructions/packet (callgrind) and TSC cycles/packet.

    run.py <bench_rx binary> [--runs N] [--bursts N] [--burst B] [--builds B,...]

Instructions come from valgrind --tool=callgrind with collection only around
af_xdp_rx_burst() (fill-ring refill included): repeatable whatever else the
machine does.  Cycles come from native runs (median of --runs): noisy on a
shared machine, indicative only.  A benchmark: it prints, it asserts nothing.
"""
import argparse
import concurrent.futures
import os
import re
import statistics
import subprocess
import sys
import tempfile

# bench_rx --build: the builds of the burst, named as the driver's log names
# them, and the function each is.
BUILD_FUNCTIONS = {"baseline": "af_xdp_rx_burst_baseline",
                   "x86-64-v3": "af_xdp_rx_burst_x86_64_v3"}
# The multi-buffer burst (--multi-buffer), measured for frames of one
# descriptor and of several (9000 bytes: 5 with the 2176-byte mbufs).
MULTI_BUFFER_FRAMES = (64, 9000)

# Targets of the foundation issue, stated beside the figures, not asserted.
TARGET_MAX = 20.0
TARGET_AIM = 12.0


def mb_args(frame):
    return [] if frame is None else ["--multi-buffer", "--frame", str(frame)]


# The bursts of ports with Rx offloads: bench_rx's option --rx-<name> and
# the function's infix, and what the table calls them.
OFFLOADS = (("meta", "Rx offloads from the XDP metadata (RSS hash and VLAN strip)"),
            ("cksum", "the IPv4 header checksum checked (RTE_ETH_RX_OFFLOAD_IPV4_CKSUM)"),
            ("meta_cksum", "both (the metadata, then the IPv4 header checksum)"))


def offload_args(offload):
    return [] if offload is None else ["--rx-" + o for o in offload.split("_")]


def callgrind_ipp(binary, build, bursts, burst, frame=None, offload=None):
    """Instructions per packet inside the burst function (inclusive); with
    frame, of the multi-buffer burst for frames of that many bytes; with
    offload (an OFFLOADS name), of the burst of a port with those Rx
    offloads."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no",
               "--callgrind-out-file=" + out, binary, "--build", build,
               "--bursts", str(bursts), "--burst", str(burst)] + mb_args(frame)
        cmd += offload_args(offload)
        res = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if res.returncode != 0:
            sys.exit("callgrind run failed:\n" + res.stderr[-2000:])
        packets = int(re.search(r"^packets (\d+)", res.stdout, re.M).group(1))
        ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", out],
                             capture_output=True, text=True, check=True).stdout
        fn = BUILD_FUNCTIONS[build]
        if frame is not None:
            fn = fn.replace("af_xdp_rx_burst_", "af_xdp_rx_burst_multi_buffer_")
        if offload is not None:
            fn = fn.replace("af_xdp_rx_burst_", "af_xdp_rx_burst_%s_" % offload)
        m = re.search(r"^\s*([\d,]+) \([^)]*\)\s+\S*:%s\b" % fn, ann, re.M)
        if m is None:
            sys.exit("no %s in the callgrind profile" % fn)
        return int(m.group(1).replace(",", "")) / packets


def callgrind_all(binary, builds, bursts, burst, jobs=2):
    """Every callgrind figure the tables print, JOBS runs at a time (an
    instruction count does not depend on what else runs; valgrind's start
    is most of a run's time): {(build, frame, offload): instructions/packet}."""
    keys = [(b, None, None) for b in builds]
    keys += [(b, f, None) for b in builds for f in MULTI_BUFFER_FRAMES]
    keys += [(b, None, o) for b in builds for o, _ in OFFLOADS]
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {k: pool.submit(callgrind_ipp, binary, k[0], bursts, burst, k[1], k[2])
                   for k in keys}
        return {k: f.result() for k, f in futures.items()}


def native_cpp(binary, build, bursts, burst, huge_dir=None, frame=None, offload=None):
    cmd = [binary, "--build", build, "--bursts", str(bursts), "--burst", str(burst)]
    cmd += mb_args(frame) + offload_args(offload)
    if huge_dir:
        cmd += ["--huge-dir", huge_dir]
    res = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return float(re.search(r"^cycles_per_packet ([\d.]+)", res.stdout, re.M).group(1))


def spread(xs):
    return "%.2f (%.2f..%.2f)" % (statistics.median(xs), min(xs), max(xs))


def available_builds(binary):
    """Implementations built in and runnable on this CPU, best last."""
    builds = []
    for build in BUILD_FUNCTIONS:
        res = subprocess.run([binary, "--build", build, "--bursts", "1"],
                             capture_output=True, text=True, check=False)
        if res.returncode == 0:
            builds.append(build)
    return builds


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--bursts", type=int, default=200000)
    ap.add_argument("--burst", type=int, default=64)
    ap.add_argument("--huge-dir",
                    help="a hugetlbfs mount: cycles also with the mempool on hugepages")
    ap.add_argument("--builds",
                    help="only these builds, comma-separated (default: every one this CPU runs)")
    args = ap.parse_args()

    builds = available_builds(args.binary)
    if args.builds:
        wanted = args.builds.split(",")
        unknown = [b for b in wanted if b not in BUILD_FUNCTIONS]
        if unknown:
            ap.error("--builds: unknown %s (known: %s)" % (", ".join(unknown),
                                                           ", ".join(BUILD_FUNCTIONS)))
        builds = [b for b in builds if b in wanted]
        if not builds:
            sys.exit("none of --builds %s runs on this CPU" % args.builds)
    # Instructions first, all of them (the native runs after: cycles are
    # measured with nothing of ours beside them).
    ipps = callgrind_all(args.binary, builds, min(args.bursts, 20000), args.burst)
    huge = " | TSC cycles/packet on hugepages" if args.huge_dir else ""
    print("Rx batch path on in-memory rings, bursts of %d, fill-ring refill included"
          % args.burst)
    print("(the driver uses the last row this CPU supports; cycles: median (min..max) of %d runs)"
          % args.runs)
    print()
    print("| build | instructions/packet (callgrind) | TSC cycles/packet on 4 KB pages%s "
          "| vs target %.0f (aim %.0f) |" % (huge, TARGET_MAX, TARGET_AIM))
    print("| --- | --- | --- |%s --- |" % (" --- |" if huge else ""))
    for build in builds:
        ipp = ipps[(build, None, None)]
        cells = [spread([native_cpp(args.binary, build, args.bursts, args.burst)
                         for _ in range(args.runs)])]
        if args.huge_dir:
            cells.append(spread([native_cpp(args.binary, build, args.bursts, args.burst,
                                            args.huge_dir) for _ in range(args.runs)]))
        verdict = ("within the aim" if ipp <= TARGET_AIM else "within the target"
                   if ipp <= TARGET_MAX else "ABOVE the target")
        print("| %s | %.2f | %s | %s |" % (build, ipp, " | ".join(cells),
                                           verdict))
    print()
    print("The multi-buffer burst (ports with the scatter offload), per frame:")
    print()
    print("| build | frame | instructions/frame (callgrind) | TSC cycles/frame on 4 KB pages |")
    print("| --- | --- | --- | --- |")
    for build in builds:
        for frame in MULTI_BUFFER_FRAMES:
            ipp = ipps[(build, frame, None)]
            cpp = spread([native_cpp(args.binary, build, args.bursts // 10, args.burst,
                                     frame=frame) for _ in range(args.runs)])
            print("| %s, multi-buffer | %d bytes | %.2f | %s |" % (build, frame, ipp, cpp))
    print()
    print("The bursts of ports with Rx offloads, per packet, against the burst without:")
    print()
    print("| build | Rx offloads | instructions/packet (callgrind) | more than without | TSC cycles/packet on 4 KB pages |")
    print("| --- | --- | --- | --- | --- |")
    for build in builds:
        plain = ipps[(build, None, None)]
        for offload, what in OFFLOADS:
            ipp = ipps[(build, None, offload)]
            cpp = spread([native_cpp(args.binary, build, args.bursts, args.burst,
                                     offload=offload) for _ in range(args.runs)])
            print("| %s | %s | %.2f | %+.2f | %s |" % (build, what, ipp, ipp - plain, cpp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
