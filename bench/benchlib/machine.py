# SPDX-License-Identifier: BSD-3-Clause
"""Where the work runs, and the state of the host.

On a veth the kernel's receive work (NAPI: the XDP program, the copy into an
AF_XDP socket) runs in softirq on the *sending* CPU. The benchmark runs each
configuration with two placements of it:

  softirq   veth's default: the receive runs on the generator's CPU, so it
            bounds the rate the DUT can be offered;
  threaded  threaded NAPI on the DUT's veth (/sys/class/net/<dev>/threaded),
            its kthread pinned to the DUT's CPU: the DUT's CPU pays for its
            own receive, sharing its time with testpmd's busy loop.

The placement indicator is a cache-line round trip between the two CPUs
(bench-pingpong), before and after each run: the host moves the vCPUs, and
testpmd's cycles/packet flips with that.
"""

import os
import re
import subprocess
import time

from . import parse

PLACEMENTS = {
    "softirq": "kernel receive in softirq on the generator's CPU (veth's default)",
    "threaded": "kernel receive in a threaded-NAPI kthread pinned to the DUT's CPU",
}


def set_threaded(env, ns, dev, on):
    """Threaded NAPI on or off for `dev` (inside network namespace `ns`). The
    device must have NAPI (veth: GRO on or an XDP program), else the kernel
    refuses (EOPNOTSUPP)."""
    path = "/sys/class/net/%s/threaded" % dev
    if not re.match(r"^[A-Za-z0-9_.-]+$", dev):
        raise ValueError("unexpected interface name %r" % dev)
    env.run(["sh", "-c", "echo %d > %s" % (1 if on else 0, path)], ns=ns)
    got = env.run(["cat", path], ns=ns).stdout.strip()
    if got != ("1" if on else "0"):
        raise env.HarnessError("%s reads %s after writing %d" % (path, got, 1 if on else 0))


def napi_threads(dev):
    """The kthreads of `dev`'s threaded NAPI: [(pid, name)]. They are named
    napi/<dev>-<napi id> (the name in /proc/<pid>/comm may be cut to 15
    characters, so the full one is read from status when the kernel has it)."""
    found = []
    want = "napi/" + dev
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/status" % entry) as f:
                name = f.readline().split(None, 1)[1].strip()
        except (OSError, IndexError):
            continue
        if name == want or name.startswith(want + "-"):
            found.append((int(entry), name))
    return sorted(found)


def pin_napi_threads(dev, cpu, wait=2.0):
    """Pin `dev`'s NAPI kthreads to `cpu`; returns [(pid, name)]. Waits up to
    `wait` seconds for them to appear (the kernel starts them on demand)."""
    deadline = time.monotonic() + wait
    threads = napi_threads(dev)
    while not threads and time.monotonic() < deadline:
        time.sleep(0.05)
        threads = napi_threads(dev)
    for pid, name in threads:
        os.sched_setaffinity(pid, {cpu})
        if os.sched_getaffinity(pid) != {cpu}:
            raise RuntimeError("%s (pid %d) did not take the affinity to CPU %d" % (name, pid, cpu))
    return threads


def schedstat(tid):
    """/proc/<tid>/schedstat: (ns on the CPU, ns runnable but waiting for it,
    time slices), or None if the thread is gone."""
    try:
        with open("/proc/%d/schedstat" % tid) as f:
            on, wait, slices = f.read().split()[:3]
        return int(on), int(wait), int(slices)
    except (OSError, ValueError):
        return None


def last_cpu(tid):
    try:
        with open("/proc/%d/stat" % tid) as f:
            return parse.parse_proc_stat(f.read())["processor"]
    except (OSError, ValueError, IndexError):
        return None


def threads_on(pid, cpu, name_prefix=None):
    """The threads of process `pid` allowed on `cpu` alone (a DPDK lcore
    pinned there), those named `name_prefix`* first: [tid]."""
    out = []
    try:
        tids = [int(t) for t in os.listdir("/proc/%d/task" % pid)]
    except OSError:
        return out
    for tid in tids:
        try:
            if os.sched_getaffinity(tid) != {cpu}:
                continue
            with open("/proc/%d/task/%d/comm" % (pid, tid)) as f:
                comm = f.read().strip()
        except OSError:
            continue
        out.append((0 if name_prefix and comm.startswith(name_prefix) else 1, tid))
    return [tid for _, tid in sorted(out)]


def psi_cpu_some():
    """Microseconds some task waited for a CPU (/proc/pressure/cpu), or None."""
    try:
        with open("/proc/pressure/cpu") as f:
            for line in f:
                if line.startswith("some "):
                    return int(line.rsplit("total=", 1)[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def net_rx_softirqs():
    with open("/proc/softirqs") as f:
        return parse.parse_softirqs(f.read(), "NET_RX")


def pingpong(binary, cpus, trials=9, round_trips=2000):
    """Median cache-line round trip between the two CPUs, in ns (None if the
    tool failed: the run goes on without its indicator)."""
    try:
        cp = subprocess.run([binary, "--cpus", "%d,%d" % cpus, "--trials", str(trials),
                             "--round-trips", str(round_trips), "--json"],
                            capture_output=True, text=True, timeout=30)
        if cp.returncode != 0:
            return None
        return parse.parse_json_line(cp.stdout)["median_ns"]
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


def classify(ns_before, ns_after, near_ns):
    """'near', 'far', 'mixed' (it moved during the run) or '?'."""
    if ns_before is None or ns_after is None:
        return "?"
    a, b = ns_before < near_ns, ns_after < near_ns
    if a and b:
        return "near"
    if not a and not b:
        return "far"
    return "mixed"


def loadavg():
    with open("/proc/loadavg") as f:
        return tuple(float(x) for x in f.read().split()[:3])


def _proc_ticks():
    ticks = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                st = parse.parse_proc_stat(f.read())
        except (OSError, ValueError, IndexError):
            continue
        ticks[int(entry)] = (st["comm"], st["utime"] + st["stime"])
    return ticks


def busy_processes(interval=1.0, threshold=0.1):
    """Processes that used more than `threshold` of a CPU over `interval`
    seconds: [(name, share of a CPU)], busiest first. Other people's work on
    a shared machine shows here."""
    hz = os.sysconf("SC_CLK_TCK")
    a = _proc_ticks()
    time.sleep(interval)
    b = _proc_ticks()
    me = os.getpid()
    out = []
    for pid, (comm, t) in b.items():
        if pid == me or pid not in a:
            continue
        share = (t - a[pid][1]) / hz / interval
        if share >= threshold:
            out.append((comm, share))
    return sorted(out, key=lambda x: -x[1])


def describe(dpdk_version=None):
    """The machine, for the report's header."""
    info = {"kernel": os.uname().release, "cpus": os.cpu_count(), "cpu_model": "?"}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu_model"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    if dpdk_version is None:
        try:
            dpdk_version = subprocess.run(["pkg-config", "--modversion", "libdpdk"],
                                          capture_output=True, text=True).stdout.strip()
        except OSError:
            dpdk_version = ""
    info["dpdk"] = dpdk_version or "?"
    return info
