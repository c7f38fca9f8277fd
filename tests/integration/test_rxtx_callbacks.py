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

Checks: it reaches its forwarding loop; the clock it measured ticks at
1 GHz, within CLOCK_TOLERANCE (read_clock is CLOCK_TAI in nanoseconds); each
port's state block says the timestamp offload is in force
(rx.offloads = timestamp); PINGS pings a -> b are all answered through it.
The example has no signal handler: SIGINT's default action ends it, and no
clean-up runs, so each port's built-in program stays, marked with the dead
process's pid (bpftool's metadata). A testpmd on the same interfaces then
starts, having removed those orphans, and forwards ping; when it quits no
XDP program is left.
"""

import re
import signal

from afxdp_test import bpf, env, hosts, l2fwd, runner, state, testpmd, topo

READY = re.compile(r"Core \d+ forwarding packets", re.M)
CLOCK = re.compile(r"HW Freq ~= (\d+)")
# The two reads are 100 ms of TSC apart, each a moment after its TSC read:
# under load a few percent off. A clock in TSC cycles (GHz of the CPU) or
# in microseconds would be far outside.
CLOCK_TOLERANCE = 0.2


def main(t):
    if env.is_stock():
        raise env.Skip("Debian's stock net_af_xdp offers no Rx timestamp: the example refuses it")
    prog = env.dpdk_example("AFXDP_RXTX_CALLBACKS", "dpdk-rxtx_callbacks")
    with topo.Topology() as net:
        dut, a, b, p0, h0, p1, h1 = hosts.two_hosts(net)
        ports = (p0, p1)
        prefix = testpmd.new_file_prefix()
        vdevs = ["net_af_xdp%d,iface=%s" % (i, p.name) for i, p in enumerate(ports)]
        # Its printf()s into a file: line-buffered, to be read as they come.
        argv = (["stdbuf", "-oL", prog] + testpmd.eal_args(dut, vdevs, file_prefix=prefix, lcores="1")
                + ["--", "-t"])
        fwd = l2fwd.Forwarder(dut, argv, "dpdk-rxtx_callbacks", file_prefix=prefix, ready=READY)
        with fwd:
            m = CLOCK.search(fwd.output())
            hz = int(m.group(1)) if m else None
            t.check(hz is not None and abs(hz - 1e9) <= CLOCK_TOLERANCE * 1e9,
                    "the port clock (read_clock) ticks at 1 GHz, as measured by the example: %s"
                    % hz, fwd.tail())
            for i in range(2):
                st = state.read(fwd, port=i)
                t.equal((st.get("state"), st.get("rx.offloads")), ("started", "timestamp"),
                        "port %d: state and rx.offloads (the example's -t)" % i)
            hosts.ping(t, a)
            ids = {p.name: bpf.attached_prog_id(p) for p in ports}
            t.equal(fwd.stop(signal.SIGINT), -signal.SIGINT,
                    "the example ends on SIGINT's default action (it handles none)")
        marked = {m["id"]: m["pid"] for m in bpf.marked_programs()}
        t.equal({n: marked.get(i) for n, i in ids.items()}, {p.name: fwd.proc.pid for p in ports},
                "each port's program stays, marked with the dead example's pid")
        with testpmd.TestPmd(dut, vdevs, fwd="io") as tp:
            tp.cmd("start")
            t.equal([state.read(tp, port=i).get("state") for i in range(2)], ["started"] * 2,
                    "testpmd on the same interfaces starts both ports (the orphans removed)")
            t.check(all(bpf.attached_prog_id(p) not in ids.values() for p in ports),
                    "the example's programs are no longer attached")
            hosts.ping(t, a)
            t.quit_testpmd(tp, net)
        t.check(not net.check_no_xdp(), "no XDP program left attached")


if __name__ == "__main__":
    runner.run(main, "rxtx_callbacks", __doc__.splitlines()[0])
