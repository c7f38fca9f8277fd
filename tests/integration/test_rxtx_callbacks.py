#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rxtx_callbacks: DPDK's examples/rxtx_callbacks -t takes our ports' Rx timestamps and read_clock, and forwards ping; killed, it leaves programs the next start removes.

    netns a: h0 10.99.0.1/24 == veth == p0 (net_af_xdp0) \\
                                                          netns dut: dpdk-rxtx_callbacks -t
    netns b: h1 10.99.0.2/24 == veth == p1 (net_af_xdp1) /

DPDK's example as released (built from the DPDK source tree,
tests/dpdk_examples), unchanged. With -t it asks each port for
RTE_ETH_RX_OFFLOAD_TIMESTAMP (it exits when a port does not offer it),
registers the timestamp dynamic field, and measures the port clock against
the TSC with two rte_eth_read_clock() calls 100 ms apart, printing the
clock's rate ("HW Freq ~= ...", ten times the ticks seen). Then it forwards
port 0 <-> port 1 unchanged, a wire between the hosts, timing each frame
from the Rx timestamp to its Tx.

Checks, a TAP line each (`rxtx_callbacks/<check>`):
  refused    the stamp's program refused on demand (faults.Refusal:
             bpf_xdp_adjust_meta, on every kernel): the ports do not offer
             the timestamp, so -t makes the example exit at its port set-up
             (code 1, "does not support hardware timestamping"), before
             any port starts: no XDP program left.
  timestamp  where the kernel loads the stamp's program (asked of it by
             the test: kernel.helper_refusal), -t: it reaches its
             forwarding loop; the clock it measured ticks at 1 GHz, within
             CLOCK_TOLERANCE (read_clock is CLOCK_TAI in nanoseconds); each
             port's state block says the timestamp offload is in force
             (rx.offloads = timestamp); PINGS pings a -> b are all answered
             through it. Where the kernel refuses it: as `refused`, then a
             SKIP with the kernel's words.
  orphans    the example (with -t where the stamp is offered, without
             elsewhere) has no signal handler: SIGINT's default action ends
             it, and no clean-up runs, so each port's built-in program
             stays, marked with the dead process's pid (bpftool's
             metadata). A testpmd on the same interfaces then starts,
             having removed those orphans, and forwards ping; when it quits
             no XDP program is left.
"""

import contextlib
import re
import signal

from afxdp_test import bpf, env, faults, hosts, kernel, l2fwd, runner, state, testpmd, topo

READY = re.compile(r"Core \d+ forwarding packets", re.M)
CLOCK = re.compile(r"HW Freq ~= (\d+)")
# The two reads are 100 ms of TSC apart, each a moment after its TSC read:
# under load a few percent off. A clock in TSC cycles (GHz of the CPU) or
# in microseconds would be far outside.
CLOCK_TOLERANCE = 0.2
ADJUST_META = "bpf_xdp_adjust_meta"
NO_STAMP = "does not support hardware timestamping"      # the example's words


class Context:
    """The two hosts and the forwarder's namespace, the example, and whether
    this kernel loads the stamp's program (asked of it, not of the driver)."""

    def __init__(self, net):
        self.net = net
        self.dut, self.a, self.b, self.p0, self.h0, self.p1, self.h1 = hosts.two_hosts(net)
        self.ports = (self.p0, self.p1)
        self.prog = env.dpdk_example("AFXDP_RXTX_CALLBACKS", "dpdk-rxtx_callbacks")
        self.meta_refusal = kernel.helper_refusal(ADJUST_META)

    def example(self, stamps, wrapper=()):
        """The example on both ports (not started), -t with `stamps`."""
        prefix = testpmd.new_file_prefix()
        vdevs = ["net_af_xdp%d,iface=%s" % (i, p.name) for i, p in enumerate(self.ports)]
        # Its printf()s into a file: line-buffered, to be read as they come.
        argv = (list(wrapper) + ["stdbuf", "-oL", self.prog]
                + testpmd.eal_args(self.dut, vdevs, file_prefix=prefix, lcores="1")
                + ["--"] + (["-t"] if stamps else []))
        return l2fwd.Forwarder(self.dut, argv, "dpdk-rxtx_callbacks", file_prefix=prefix,
                               ready=READY)


def example_exits(fwd):
    """Run fwd, which must exit before it forwards: (its exit code, its output)."""
    try:
        fwd.start()
    except env.Failure:
        if fwd.returncode is None:
            raise
    out = fwd.output()
    fwd.close()
    return fwd.returncode, out


def check_refused(t, ctx):
    with faults.Refusal("helper:" + ADJUST_META) as r:
        rc, out = example_exits(ctx.example(True, r.wrapper()))
        t.check(r.seen("helper", ADJUST_META), "refused: the driver's probe met the refusal "
                "(the fault library's log)", str(r.refused()))
        t.equal(rc, 1, "refused: the example's exit code at its port set-up")
        t.check(NO_STAMP in out, "refused: the example says a port lacks the timestamp", out)
        t.check(not ctx.net.check_no_xdp(), "refused: no XDP program left attached")


def check_timestamp(t, ctx):
    if ctx.meta_refusal is not None:
        rc, out = example_exits(ctx.example(True))
        t.equal(rc, 1, "timestamp: the example's exit code at its port set-up "
                "(the kernel refuses the stamp's program)")
        t.check(NO_STAMP in out, "timestamp: the example says a port lacks the timestamp", out)
        raise env.Skip("the kernel refuses the stamp's program (%s: %s): no Rx timestamp "
                       "to check here" % (ADJUST_META, ctx.meta_refusal))
    with ctx.example(True) as fwd:
        m = CLOCK.search(fwd.output())
        hz = int(m.group(1)) if m else None
        t.check(hz is not None and abs(hz - 1e9) <= CLOCK_TOLERANCE * 1e9,
                "the port clock (read_clock) ticks at 1 GHz, as measured by the example: %s"
                % hz, fwd.tail())
        for i in range(2):
            st = state.read(fwd, port=i)
            t.equal((st.get("state"), st.get("rx.offloads")), ("started", "timestamp"),
                    "port %d: state and rx.offloads (the example's -t)" % i)
        hosts.ping(t, ctx.a)
        ids = [bpf.attached_prog_id(p) for p in ctx.ports]
    # It handles no signal: its programs stay (`orphans` checks that the
    # next start removes them); a check run alone (the vm suite's) removes
    # them itself.
    for p, prog_id in zip(ctx.ports, ids):
        bpf.detach_if(p, prog_id)


def check_orphans(t, ctx):
    with ctx.example(ctx.meta_refusal is None) as fwd:
        hosts.ping(t, ctx.a)
        ids = {p.name: bpf.attached_prog_id(p) for p in ctx.ports}
        t.equal(fwd.stop(signal.SIGINT), -signal.SIGINT,
                "the example ends on SIGINT's default action (it handles none)")
    marked = {m["id"]: m["pid"] for m in bpf.marked_programs()}
    t.equal({n: marked.get(i) for n, i in ids.items()}, {p.name: fwd.proc.pid for p in ctx.ports},
            "each port's program stays, marked with the dead example's pid")
    vdevs = ["net_af_xdp%d,iface=%s" % (i, p.name) for i, p in enumerate(ctx.ports)]
    with testpmd.TestPmd(ctx.dut, vdevs, fwd="io") as tp:
        tp.cmd("start")
        t.equal([state.read(tp, port=i).get("state") for i in range(2)], ["started"] * 2,
                "testpmd on the same interfaces starts both ports (the orphans removed)")
        t.check(all(bpf.attached_prog_id(p) not in ids.values() for p in ctx.ports),
                "the example's programs are no longer attached")
        hosts.ping(t, ctx.a)
        t.quit_testpmd(tp, ctx.net)
    t.check(not ctx.net.check_no_xdp(), "no XDP program left attached")


@contextlib.contextmanager
def setup(t):
    if env.is_stock():
        raise env.Skip("Debian's stock net_af_xdp offers no Rx timestamp: the example refuses it")
    with topo.Topology() as net:
        yield Context(net)


CHECKS = [
    ("refused", check_refused),
    ("timestamp", check_timestamp),
    ("orphans", check_orphans),
]


if __name__ == "__main__":
    runner.run_session("rxtx_callbacks", __doc__.splitlines()[0], setup, CHECKS)
