#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""counters: the port's statistics and xstats, read and reset by testpmd and by secondaries, in one testpmd session.

One testpmd (rxonly, on hugepages: secondaries join it) on one veth serves
every check below, each reported as a TAP line (`counters/<check>`), as
four tests did before issue 22, each with its own namespaces and testpmd
(test_xstats, test_stats_reset, test_proc_info, test_proc_info_reset).
Between checks what a check left in the rings is received, forwarding is
stopped and the counters are cleared (`clear port stats all`, `clear port
xstats 0`): each check starts from zero, which is checked first (a failed reset fails the check that follows it, as well
as the checks of the reset themselves).

xstats (`show port xstats 0`): after N frames, the generic counters
(rx_good_packets/bytes) equal what was sent; every name of
EXPECTED_PER_QUEUE (the kernel's AF_XDP counters, XDP_STATISTICS) appears
in at least QUEUES xstat names, one per queue; each of EXPECTED_DRIVER (the
driver's own: batches, wakeups) appears; after a burst with nobody polling,
one of the OVERFLOW_COUNTERS is non-zero (the counters are live); after
`clear port xstats 0` every counter reads 0. Debian's stock driver lists
only ethdev's generic counters: it fails the name checks, for that reason.

proc_info: `dpdk-proc-info --stats` and `--xstats` as a secondary (same
plugin, same --file-prefix) exit 0 and report RX-packets == N, RX-bytes ==
their sizes and rx_good_packets == N; after N more, 2N (live counters). The
kernel's counters (XDP_STATISTICS: KERNEL_XSTATS, imissed among them) are
read through the sockets, whose descriptors the primary passes to the
secondary: without them every one reads 0. So, with forwarding stopped, a
burst far larger than the rings makes the kernel drop frames; then each
kernel counter the secondary reads equals the primary's (nothing moves in
between), and rx_missed_errors is non-zero. The primary still answers and
counts correctly after the secondaries have come and gone.

stats_reset: `clear port stats all` zeroes every counter, and counting restarts:
  1. N1 frames received: RX-packets == N1.
  2. Forwarding stopped, a burst far larger than the socket's rings: the
     kernel drops what does not fit, so RX-missed > 0 (XDP_STATISTICS).
  3. Forwarding restarted (the queued frames are received), then `clear
     port stats all`: RX/TX packets, bytes, missed, errors and nombuf all
     read 0, and still 0 a moment later (the missed count comes from the
     kernel and must be reset by an offset, not re-read).
  4. N2 frames: RX-packets == N2, RX-bytes == their sizes, RX-missed == 0.

proc_info_reset (host only, DPDK 22.11, as before: skipped in the VM, where
zero-copy's idle polls count wakeups, and on the other lines):
`dpdk-proc-info --stats-reset` and `--xstats-reset`, run through
scripts/afxdp-secondary.sh as the README shows, reset the primary's
counters:
  1. stats_reset's scenario with `dpdk-proc-info -- --stats-reset` as the
     reset (it exits 0 and reports no error).
  2. The kernel made to drop again; `dpdk-proc-info -- --xstats-reset`
     exits 0 without an error, and every xstat testpmd shows reads 0
     (xstats are counters only), and a second later too.

secondary_cycles: secondaries ask for the sockets while the port stops and
starts (issue 26: the primary answered from EAL's multi-process thread
with the sockets a stop was closing and freeing). A loop of `dpdk-proc-info
--xstats` runs beside batches of `port stop 0`/`port start 0` until
CYCLE_SECONDARIES of them have run: each exits 0 and prints port 0's
xstats, none says the primary did not pass the descriptors (a stopped
port's request is refused cleanly, a started one's answered with its
sockets), every start succeeds, and testpmd still receives. Then, the port
stopped, a secondary reads the kernel's counters the stop kept, as the
primary does (nothing is lent by a stopped port; nothing is needed). The
race itself is too narrow to be hit on demand: the unit test `lend`
hammers the lending table. Host and the other DPDK lines only (a TAP skip
in the VM).

session: testpmd quits with 0, no XDP program is left, nothing of the run.
"""

import contextlib
import os
import re
import threading
import time

from afxdp_test import cycles, dpdk_output, env, hugepages, runner, testpmd, topo, traffic

SIZES = traffic.SIZES
# Far more than the Rx and fill rings hold (2048 descriptors by default each).
OVERFLOW = 12000
HUGEPAGES = 192          # 2 MiB each: testpmd's -m 256 plus EAL's own
MEM_MB = 256
SECONDARY_TIMEOUT = 60   # only against a hang
SETTLE = 0.5             # after a burst: the last frames reach the socket
DRAIN_QUIET = 0.3        # between checks: the rings are empty once RX-packets stays put
WRAPPER = os.path.join(os.path.dirname(runner.LIB_DIR), "scripts", "afxdp-secondary.sh")

# --- xstats: what the driver must list: adjust to the driver's names ---------
# The kernel's per-socket counters (struct xdp_statistics), each expected once
# per queue: a name containing the counter (e.g. q0_rx_ring_full), or ethdev's
# per-queue form, the queue after the direction (rx_q0_ring_full).
EXPECTED_PER_QUEUE = [
    "rx_dropped",
    "rx_invalid_descs",
    "tx_invalid_descs",
    "rx_ring_full",
    "rx_fill_ring_empty_descs",
    "tx_ring_empty_descs",
]
# The driver's own counters (batches received full/partial, wakeups), matched
# the same way; each expected in at least one name.
EXPECTED_DRIVER = [
    "rx_full_batches",
    "rx_partial_batches",
    "rx_wakeups",
]
# At least one of these is non-zero after frames were sent with nobody
# polling (the socket's rings overflow).
OVERFLOW_COUNTERS = ["rx_dropped", "rx_ring_full"]
# In zero-copy mode the kernel driver drops a frame for an empty fill ring
# without rx_dropped (vm-zc/counters): that counter shows it.
if env.socket_mode() == "zero-copy":
    OVERFLOW_COUNTERS.append("rx_fill_ring_empty_descs")
# Queues of the port under test.
QUEUES = 1
X_FRAMES = 300
# --- proc_info ----------------------------------------------------------------
P_FRAMES = 300
# The kernel's per-socket counters among the xstats (struct xdp_statistics).
KERNEL_XSTATS = ["rx_q0_dropped", "rx_q0_invalid_descs", "rx_q0_ring_full",
                 "rx_q0_fill_ring_empty_descs", "tx_q0_invalid_descs", "tx_q0_ring_empty_descs",
                 "rx_missed_errors"]     # imissed: the socket's drops
# --- stats_reset ----------------------------------------------------------------
FIRST = 300
SECOND = 240
COUNTERS = ["RX-packets", "RX-missed", "RX-bytes", "RX-errors", "RX-nombuf",
            "TX-packets", "TX-errors", "TX-bytes"]


class Session:
    def __init__(self, net, dut, port, peer, tp):
        self.net, self.dut, self.port, self.peer, self.tp = net, dut, port, peer, tp


# === xstats ======================================================================

def names_with(xs, counter):
    """xstat names for `counter` ("rx_dropped"): containing it, or in the
    per-queue form rx_q<N>_dropped."""
    direction, _, rest = counter.partition("_")
    per_queue = re.compile(r"(^|_)%s_q\d+_%s$" % (re.escape(direction), re.escape(rest)))
    return [n for n in xs if counter in n or per_queue.search(n)]


def check_xstats(t, s):
    tp, port, peer = s.tp, s.port, s.peer
    tp.cmd("start")
    traffic.send(peer, port.mac, X_FRAMES, SIZES)
    tp.wait_rx(0, X_FRAMES)
    xs = tp.xstats(0)
    t.require(bool(xs), "show port xstats 0 lists counters (%d)" % len(xs))
    env.log("xstats listed: %s" % ", ".join(xs))
    t.equal(xs.get("rx_good_packets"), X_FRAMES, "rx_good_packets")
    t.equal(xs.get("rx_good_bytes"), traffic.expected_bytes(X_FRAMES, SIZES), "rx_good_bytes")

    missing = []
    for frag in EXPECTED_PER_QUEUE:
        found = names_with(xs, frag)
        if len(found) < QUEUES:
            missing.append("%s (%d of %d queues: %s)" % (frag, len(found), QUEUES,
                                                         ", ".join(found) or "none"))
    t.check(not missing, "the kernel's counters listed per queue: %s"
            % ", ".join(EXPECTED_PER_QUEUE) + (
                "" if not missing else "; missing: %s" % "; ".join(missing)
                + t.stock_note("it lists only ethdev's generic counters")))
    absent = [frag for frag in EXPECTED_DRIVER if not names_with(xs, frag)]
    t.check(not absent, "the driver's own counters listed: %s" % (
        ", ".join(EXPECTED_DRIVER) or "(none expected)") + (
            "; missing: %s" % ", ".join(absent) + t.stock_note("it has none")
            if absent else ""))

    tp.cmd("stop")
    traffic.send(peer, port.mac, OVERFLOW, [60], stream="overflow")
    xs = tp.xstats(0)
    watched = [n for frag in OVERFLOW_COUNTERS for n in names_with(xs, frag)]
    if watched:
        t.check(any(xs[n] > 0 for n in watched),
                "after %d frames with nobody polling, a drop counter moved: %s"
                % (OVERFLOW, {n: xs[n] for n in watched}))
    else:
        env.log("no xstat named after %s: the overflow check is left to the name "
                "check above" % " or ".join(OVERFLOW_COUNTERS))
    tp.cmd("start")
    tp.wait_rx(0, X_FRAMES + OVERFLOW)
    tp.cmd("stop")

    tp.cmd("clear port xstats 0")
    xs = tp.xstats(0)
    nonzero = {n: v for n, v in xs.items() if v}
    t.check(not nonzero, "every xstat reads 0 after clear port xstats 0",
            "non-zero: %s" % nonzero)


# === proc_info ===================================================================

def secondary(ns, tp, what, eal_extra=()):
    """Run dpdk-proc-info -- <what>; it shows one of --stats, --xstats per run
    (an else-if chain) and adds -c1 and --proc-type=secondary itself."""
    argv = ([env.proc_info_path()] + testpmd.secondary_eal_args(tp.file_prefix)
            + list(eal_extra) + ["--", what])
    env.log("secondary: ip netns exec %s %s" % (ns.name, " ".join(argv)))
    return testpmd.run_secondary(ns, argv, timeout=SECONDARY_TIMEOUT)


def secondary_counters(t, ns, tp, round_):
    """Port 0's stats and xstats as the secondary reads them."""
    counters = {}
    for what, parse in (("--stats", dpdk_output.port_stats), ("--xstats", dpdk_output.xstats)):
        rc, out = secondary(ns, tp, what)
        got = parse(out).get(0, {})
        ok = t.equal(rc, 0, "dpdk-proc-info %s (%s) exit code" % (what, round_))
        ok &= t.check(bool(got), "dpdk-proc-info %s (%s) printed port 0's counters"
                      % (what, round_))
        if not ok:
            env.log(out[-3000:])
        counters[what] = got
    return counters["--stats"], counters["--xstats"]


def check_secondary(t, ns, tp, frames, round_):
    stats, xstats = secondary_counters(t, ns, tp, round_)
    t.equal(stats.get("RX-packets"), frames, "RX-packets seen by the secondary (%s)" % round_)
    t.equal(stats.get("RX-bytes"), traffic.expected_bytes(frames, SIZES),
            "RX-bytes seen by the secondary (%s)" % round_)
    t.equal(xstats.get("rx_good_packets"), frames,
            "rx_good_packets seen by the secondary (%s)" % round_)


def check_kernel_counters(t, ns, tp, peer, port):
    """The kernel's counters, made to move, read alike by both processes."""
    tp.cmd("stop")
    traffic.send(peer, port.mac, OVERFLOW, [60], stream="overflow")
    time.sleep(SETTLE)
    primary_x = tp.xstats(0)
    _, xstats = secondary_counters(t, ns, tp, "after the overflow")
    missing = [n for n in KERNEL_XSTATS if n not in primary_x]
    t.check(not missing, "the kernel's counters listed by the primary: %s"
            % ", ".join(KERNEL_XSTATS), "missing: %s" % missing + t.stock_note(
                "it lists only ethdev's generic counters"))
    primary = {n: primary_x[n] for n in KERNEL_XSTATS if n in primary_x}
    t.check(any(primary.values()), "after %d frames with nobody polling, a kernel counter "
            "read by the primary is non-zero: %s" % (OVERFLOW, primary))
    t.equal({n: xstats.get(n) for n in primary}, primary,
            "the kernel's counters read by the secondary == the primary's")
    t.check(primary.get("rx_missed_errors", 0) > 0, "rx_missed_errors (RX-missed, from the "
            "kernel) read by the primary after the overflow: %s" % primary.get("rx_missed_errors"))


def check_proc_info(t, s):
    tp, dut, port, peer = s.tp, s.dut, s.port, s.peer
    tp.cmd("start")
    traffic.send(peer, port.mac, P_FRAMES, SIZES, stream="first")
    st = tp.wait_rx(0, P_FRAMES)
    t.equal(st["RX-packets"], P_FRAMES, "RX-packets seen by testpmd")
    check_secondary(t, dut, tp, P_FRAMES, "first")

    # Sizes cycle with the sequence number: a second stream of P_FRAMES
    # frames has the same byte count.
    traffic.send(peer, port.mac, P_FRAMES, SIZES, stream="second")
    st = tp.wait_rx(0, 2 * P_FRAMES)
    t.equal(st["RX-packets"], 2 * P_FRAMES, "RX-packets seen by testpmd after more frames")
    check_secondary(t, dut, tp, 2 * P_FRAMES, "second")

    check_kernel_counters(t, dut, tp, peer, port)

    st = tp.port_stats(0)
    t.equal(st["RX-packets"], 2 * P_FRAMES, "testpmd still answers, same count")


# === secondary_cycles ============================================================

CYCLE_SECONDARIES = 6    # dpdk-proc-info runs beside the cycles (about a second each)
CYCLE_BATCH = 10         # stop/start cycles per call of the cycle engine
CYCLE_STARTED = 0.3      # seconds started in each: back to back, a port is mostly stopping or starting
CYCLE_MAX = 400          # only against a secondary that never finishes
NOT_PASSED = "did not pass the socket descriptors"
# Only counted for the log (how often a request met a stopped port), never asserted.
REFUSED_STOPPED = "is stopped in the primary process"


def check_secondary_cycles(t, s):
    if env.TIME_SCALE > 1:
        raise env.Skip("not in the VM: what a port lends its secondaries and when is the "
                       "driver's, whatever the socket mode (host and the other DPDK lines run "
                       "it), and a secondary's EAL start under TCG takes seconds")
    tp, dut, port, peer = s.tp, s.dut, s.port, s.peer
    runs = []
    done = threading.Event()

    def ask():
        while not done.is_set() and len(runs) < CYCLE_SECONDARIES:
            runs.append(secondary(dut, tp, "--xstats", ["--log-level=8", "--log-level=pmd.net.af_xdp:debug"]))

    asker = threading.Thread(target=ask, name="proc-info loop")
    asker.start()
    total = cycles.Result()
    try:
        while asker.is_alive() and total.cycles < CYCLE_MAX:
            res = cycles.run(tp, CYCLE_BATCH, hooks=cycles.Hooks(
                started=lambda i: time.sleep(CYCLE_STARTED)))
            for k in ("cycles", "stops", "starts", "failed", "seconds"):
                setattr(total, k, getattr(total, k) + getattr(res, k))
    finally:
        done.set()
        asker.join()
    env.log("secondary_cycles: %r; %d secondaries, %d of their requests refused as stopped"
            % (total, len(runs), sum(out.count(REFUSED_STOPPED) for _, out in runs)))
    t.check(total.all_ok() and total.cycles > 0, "every stop and start of the cycles beside "
            "the secondaries succeeded", repr(total))
    t.equal(len(runs), CYCLE_SECONDARIES, "secondaries run beside the cycles")
    bad = [(rc, out[-1500:]) for rc, out in runs
           if rc != 0 or 0 not in dpdk_output.xstats(out) or NOT_PASSED in out]
    t.check(not bad, "each secondary beside the cycles exited 0 with port 0's xstats, "
            "given the sockets or refused as stopped", "%d bad: %s" % (len(bad), bad[:2]))

    tp.cmd("start")
    traffic.send(peer, port.mac, P_FRAMES, SIZES, stream="after cycles")
    st = tp.wait_rx(0, P_FRAMES)
    t.equal(st["RX-packets"], P_FRAMES, "RX-packets after the cycles")

    # Stopped: nothing lent, and nothing needed for the counters the stop kept.
    tp.cmd("stop")
    traffic.send(peer, port.mac, OVERFLOW, [60], stream="overflow before the stop")
    time.sleep(SETTLE)
    tp.cmd("port stop 0")
    primary_x = tp.xstats(0)
    rc, out = secondary(dut, tp, "--xstats")
    xstats = dpdk_output.xstats(out).get(0, {})
    t.check(rc == 0 and NOT_PASSED not in out, "a secondary of the stopped port exits 0, "
            "refused the sockets without a warning", out[-1500:])
    primary = {n: primary_x.get(n) for n in KERNEL_XSTATS}
    t.check(primary.get("rx_missed_errors", 0) > 0, "the overflow counted before the stop: %s"
            % primary)
    t.equal({n: xstats.get(n) for n in primary}, primary,
            "the stopped port's kernel counters read by the secondary == the primary's")
    tp.cmd("port start 0")


# === stats_reset =================================================================

def reset_scenario(t, tp, peer, port, reset, who):
    """Steps 1-4 with `reset()` as the reset, by `who`; forwarding stopped at the end.
    Returns the stats after step 4."""
    tp.cmd("start")
    traffic.send(peer, port.mac, FIRST, SIZES, stream="first")
    st = tp.wait_rx(0, FIRST)
    t.equal(st["RX-packets"], FIRST, "RX-packets before the reset")

    tp.cmd("stop")
    traffic.send(peer, port.mac, OVERFLOW, [60], stream="overflow")
    time.sleep(0.5)
    st = tp.port_stats(0)
    t.check(st["RX-missed"] > 0, "RX-missed after %d frames with nobody polling: %d"
            % (OVERFLOW, st["RX-missed"]))
    tp.cmd("start")
    # Drained once every frame sent is either received or missed.
    st = tp.wait_rx(0, FIRST + OVERFLOW)
    t.equal(st["RX-packets"] + st["RX-missed"], FIRST + OVERFLOW,
            "RX-packets + RX-missed once the queued frames are drained")
    tp.cmd("stop")

    reset()
    st = tp.port_stats(0)
    t.equal({k: st.get(k) for k in COUNTERS}, {k: 0 for k in COUNTERS},
            "all counters right after %s" % who)
    tp.cmd("start")
    time.sleep(1)
    st = tp.port_stats(0)
    t.equal({k: st.get(k) for k in COUNTERS}, {k: 0 for k in COUNTERS},
            "all counters 1 s after %s (nothing sent)" % who)

    traffic.send(peer, port.mac, SECOND, SIZES, stream="second")
    st = tp.wait_rx(0, SECOND)
    t.equal(st["RX-packets"], SECOND, "RX-packets after the reset")
    t.equal(st["RX-bytes"], traffic.expected_bytes(SECOND, SIZES), "RX-bytes after the reset")
    t.equal(st["RX-missed"], 0, "RX-missed after the reset")
    tp.cmd("stop")
    return st


def check_stats_reset(t, s):
    reset_scenario(t, s.tp, s.peer, s.port, lambda: s.tp.cmd("clear port stats all"),
                   "`clear port stats all`")


# === proc_info_reset =============================================================

def reset_secondary(t, ns, tp, what):
    argv = [WRAPPER, env.proc_info_path(), "--no-pci", "--file-prefix", tp.file_prefix,
            "--", what]
    env.log("secondary: ip netns exec %s %s" % (ns.name, " ".join(argv)))
    rc, out = testpmd.run_secondary(ns, argv, timeout=SECONDARY_TIMEOUT)
    ok = t.equal(rc, 0, "dpdk-proc-info %s exit code" % what)
    ok &= t.check("Error clearing" not in out, "dpdk-proc-info %s reports no error" % what,
                  "\n".join(ln for ln in out.splitlines() if "Error" in ln))
    if not ok:
        env.log(out[-3000:])


def nonzero_xstats(tp):
    xs = tp.xstats(0)
    return {n: v for n, v in xs.items() if v != 0}, len(xs)


def xstats_reset(t, ns, tp, peer, port):
    tp.cmd("stop")
    traffic.send(peer, port.mac, OVERFLOW, [60], stream="overflow2")
    time.sleep(SETTLE)
    tp.cmd("start")
    st = tp.wait_rx(0, SECOND + OVERFLOW)
    tp.cmd("stop")
    t.check(st["RX-missed"] > 0, "RX-missed after %d more frames with nobody polling: %d"
            % (OVERFLOW, st["RX-missed"]))
    nonzero, _ = nonzero_xstats(tp)
    t.check(nonzero, "some xstats non-zero before --xstats-reset: %s" % nonzero)
    reset_secondary(t, ns, tp, "--xstats-reset")
    nonzero, listed = nonzero_xstats(tp)
    t.check(listed > 0 and not nonzero, "all %d xstats read 0 in testpmd after the secondary's "
            "--xstats-reset; non-zero: %s" % (listed, nonzero))
    tp.cmd("start")
    time.sleep(1)
    nonzero, _ = nonzero_xstats(tp)
    t.check(not nonzero, "and 1 s later (nothing sent); non-zero: %s" % nonzero)
    tp.cmd("stop")


def check_proc_info_reset(t, s):
    if env.TIME_SCALE > 1 or os.environ.get("AFXDP_DPDK_VERSION"):
        raise env.Skip("host only, DPDK 22.11 (as test_proc_info_reset was): in the VM's "
                       "zero-copy mode idle polls count rx_q0_wakeups, so 'every xstat 0 a "
                       "second later, forwarding on' does not hold there; the reset the "
                       "secondary asks for is the primary's code, which counters/stats_reset "
                       "and counters/xstats run everywhere")
    reset_scenario(t, s.tp, s.peer, s.port,
                   lambda: reset_secondary(t, s.dut, s.tp, "--stats-reset"),
                   "the secondary's --stats-reset")
    xstats_reset(t, s.dut, s.tp, s.peer, s.port)


# === the session ===================================================================

class setup:
    """The one testpmd of the checks, and the clean slate before each."""

    def __init__(self, t):
        self.t = t
        self.stack = None

    def __enter__(self):
        env.proc_info_path()        # SKIP at once if it is missing
        self.stack = contextlib.ExitStack()
        net = self.stack.enter_context(topo.Topology())
        hp = self.stack.enter_context(hugepages.HugePages(HUGEPAGES))
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0", queues=QUEUES)
        vdev = "net_af_xdp0,iface=%s" % port.name
        if QUEUES > 1:
            vdev += ",queue_count=%d" % QUEUES
        tp = self.stack.enter_context(testpmd.TestPmd(dut, [vdev], fwd="rxonly", queues=QUEUES,
                                                      huge_dir=hp.mount, mem_mb=MEM_MB))
        self.session = Session(net, dut, port, peer, tp)
        return self.session

    def __exit__(self, exc_type, *exc):
        try:
            if exc_type is None:
                self.t.quit_testpmd(self.session.tp, self.session.net)
        finally:
            self.stack.close()
        return False


def clean_slate(fn):
    """A check run from zero: what the last one left in the rings received
    (until RX-packets stays put for DRAIN_QUIET), forwarding stopped, every
    counter cleared (and checked)."""
    def run(t, s):
        s.tp.cmd("start")
        s.tp.wait_rx_quiet(quiet=DRAIN_QUIET)
        s.tp.cmd("stop")
        s.tp.cmd("clear port stats all")
        s.tp.cmd("clear port xstats 0")
        st = s.tp.port_stats(0)
        nonzero = {k: st.get(k) for k in COUNTERS if st.get(k)}
        t.require(not nonzero, "counters cleared before the check", "non-zero: %s" % nonzero)
        fn(t, s)
    return run


CHECKS = [
    ("xstats", check_xstats),           # first: a fresh port
    ("proc_info", clean_slate(check_proc_info)),
    ("stats_reset", clean_slate(check_stats_reset)),
    ("proc_info_reset", clean_slate(check_proc_info_reset)),
    ("secondary_cycles", clean_slate(check_secondary_cycles)),
]


if __name__ == "__main__":
    runner.run_session("counters", __doc__.splitlines()[0], setup, CHECKS)
