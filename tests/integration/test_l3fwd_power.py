#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""l3fwd_power: DPDK's examples/l3fwd-power, asleep on our ports' Rx interrupts, routes ping between two hosts and idles under 2 % of a core.

    netns a: h0 1.1.1.1/24 == veth == p0 \\
                                          netns dut: dpdk-l3fwd-power
    netns b: h1 2.1.1.1/24 == veth == p1 /          --interrupt-only

DPDK's example as released (built from the DPDK source tree, tests/dpdk_examples),
unchanged: its LPM table sends 1.1.1.0/24 to port 0 and 2.1.1.0/24 to port
1, and it writes 02:00:00:00:00:<port> as the destination MAC, so h0 and
h1 carry those addresses and reach each other through a gateway address
whose neighbour entry is the port's MAC. One lcore serves both ports'
Rx queues and sleeps in rte_epoll_wait() when they are idle.

Checks: l3fwd-power registers the queues' interrupts (no "RX interrupt
won't enable"); PINGS echo requests a -> b, and b -> a, each arrive at the
other host (its kernel's IpInReceives) with a right IPv4 header checksum
(no IpExtInCsumErrors), and all are answered (ping's count); the
application says it was woken by an Rx interrupt on each port; idle, its
process uses under 2 % of a core over IDLE_S seconds (/proc/<pid>/stat, all
threads); SIGINT ends it with 0 and no XDP program is left.

The checksum: l3fwd-power 22.11 checks the IPv4 header checksum in software
on ports without the Rx checksum offload, and that check leaves the field
zeroed (the example's own bug) before it adjusts it for the TTL, so the
receiving kernel would drop every request. Our ports offer the offload
(the driver checks the header): the example trusts the flags, and replies
come back.
"""

import json
import os
import re
import time

from afxdp_test import env, hosts, l2fwd, runner, testpmd, topo

PINGS = 5
IDLE_S = 2.0                # 200 ticks of /proc (0.6 % seen: its timers)
IDLE_CPU_MAX = 0.02
CLK_TCK = os.sysconf("SC_CLK_TCK")
READY = re.compile(r"entering main interrupt loop on lcore", re.M)
WOKEN = r"is waked up from rx interrupt on port %d queue 0"
HOSTS = [  # (netns role, address, gateway, the other's subnet)
    ("a", "1.1.1.1/24", "1.1.1.254", "2.1.1.0/24"),
    ("b", "2.1.1.1/24", "2.1.1.254", "1.1.1.0/24"),
]


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def ip_counters(host):
    """The kernel's IP counters in the host's namespace (nstat)."""
    cp = host.ns.exec(["nstat", "-asz", "--json"])
    return json.loads(cp.stdout)["kernel"]


def routed(t, src, dst, addr):
    """PINGS echo requests from src to dst (at addr) arrive through
    l3fwd-power, with right header checksums, and are answered."""
    before = ip_counters(dst)
    cp = src.ns.exec(hosts.ping_argv(PINGS) + ["-q", addr], check=False)
    after = ip_counters(dst)
    delta = {k: after.get(k, 0) - before.get(k, 0)
             for k in ("IpInReceives", "IpExtInCsumErrors")}
    t.equal(delta["IpInReceives"], PINGS, "echo requests %s -> %s routed by l3fwd-power "
            "(IpInReceives at %s)" % (src, addr, dst))
    t.equal(delta["IpExtInCsumErrors"], 0, "echo requests %s -> %s: no IPv4 header checksum "
            "error at %s (the example trusts our Rx checksum offload)" % (src, addr, dst))
    m = re.search(r"(\d+) packets transmitted, (\d+) received", cp.stdout)
    t.equal((int(m.group(1)), int(m.group(2))) if m else None, (PINGS, PINGS),
            "echo requests %s -> %s: (sent, answered) (ping's count)" % (src, addr))


def main(t):
    prog = env.dpdk_example("AFXDP_L3FWD_POWER", "dpdk-l3fwd-power")
    with topo.Topology() as net:
        dut, ports, ifaces = hosts.routed_hosts(
            net, HOSTS, host_macs=["02:00:00:00:00:%02x" % i for i in range(len(HOSTS))])

        prefix = testpmd.new_file_prefix()
        vdevs = ["net_af_xdp%d,iface=%s" % (i, p.name) for i, p in enumerate(ports)]
        argv = ([prog] + testpmd.eal_args(dut, vdevs, file_prefix=prefix, lcores="1")
                + ["--", "-p", "0x3", "-P", "--config=(0,0,1),(1,0,1)", "--interrupt-only",
                   "--parse-ptype"])
        fwd = l2fwd.Forwarder(dut, argv, "dpdk-l3fwd-power", file_prefix=prefix, ready=READY)
        with fwd:
            t.check("RX interrupt won't enable" not in fwd.output(),
                    "l3fwd-power registered the Rx queues' interrupts", fwd.tail())
            for src, dst in ((0, 1), (1, 0)):
                routed(t, ifaces[src], ifaces[dst], HOSTS[dst][1].split("/")[0])
            for i in range(2):
                t.check(re.search(WOKEN % i, fwd.output()) is not None,
                        "l3fwd-power woken by an Rx interrupt on port %d" % i)
            time.sleep(0.5)
            c0, t0 = cpu_seconds(fwd.proc.pid), time.monotonic()
            time.sleep(IDLE_S)
            share = (cpu_seconds(fwd.proc.pid) - c0) / (time.monotonic() - t0)
            t.check(share < IDLE_CPU_MAX, "l3fwd-power idle: %.2f %% of a core over %.0f s "
                    "(under %.0f %%)" % (share * 100, IDLE_S, IDLE_CPU_MAX * 100))
            rc = fwd.stop()
            t.equal(rc, 0, "l3fwd-power exit code after SIGINT")
        t.check(not net.check_no_xdp(), "no XDP program left attached")


if __name__ == "__main__":
    runner.run(main, "l3fwd_power", __doc__.splitlines()[0])
