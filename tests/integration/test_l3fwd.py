#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""l3fwd: DPDK's examples/l3fwd, which asks for the Rx checksum offloads, starts on our ports and routes ping both ways.

    netns a: h0 198.18.0.1/24 == veth == p0 \\
                                             netns dut: dpdk-l3fwd (LPM)
    netns b: h1 198.18.1.1/24 == veth == p1 /

DPDK's example as released (built from the DPDK source tree,
tests/dpdk_examples), unchanged. It configures every port with
RTE_ETH_RX_OFFLOAD_CHECKSUM (IPv4, UDP and TCP) and exits when a port does
not offer them ("requested Rx offloads 0xe does not match Rx offloads
capabilities"): before the driver offered them it could not start on an
AF_XDP port, ours or DPDK's own. Its default LPM table sends 198.18.0.0/24
to port 0 and 198.18.1.0/24 to port 1; --eth-dest gives each port's next
hop, the host behind it; each host reaches the other through a gateway
address whose neighbour entry is the port's MAC. l3fwd decrements the TTL
and adjusts the IPv4 header checksum for it, so replies come back.

Checks: l3fwd reaches its main loop; each port's state block says the
checksum offload is in force (rx.cksum = ipv4) and the burst checks IPv4
headers; PINGS echo requests a -> b and b -> a are all answered (ping's own
count), the requests routed with their TTL decremented (the replies' TTL
as the receiving host's ping reports it is 63: one hop); a TCP transfer
each way (sha256 of what arrives; the hosts' checksum and segmentation
offloads off, as for every AF_XDP forwarder that completes no checksum:
hosts.py); SIGINT ends it with 0 and no XDP program is left.
"""

import re

from afxdp_test import env, hosts, l2fwd, runner, state, testpmd, topo

PINGS = 5
TCP_MB = 5
READY = re.compile(r"L3FWD: entering main loop on lcore", re.M)
HOSTS = [  # (netns role, address, gateway, the other's subnet)
    ("a", "198.18.0.1/24", "198.18.0.254", "198.18.1.0/24"),
    ("b", "198.18.1.1/24", "198.18.1.254", "198.18.0.0/24"),
]
REPLIES = re.compile(r"(\d+) packets transmitted, (\d+) received")
TTLS = re.compile(r"ttl=(\d+)")


def pinged(t, src, addr):
    """PINGS echo requests from src to addr, through l3fwd: all answered,
    one hop each way."""
    cp = src.ns.exec(hosts.ping_argv(PINGS) + [addr], check=False)
    env.log(cp.stdout)
    m = REPLIES.search(cp.stdout)
    t.equal((int(m.group(1)), int(m.group(2))) if m else None, (PINGS, PINGS),
            "ping %s -> %s through l3fwd: (sent, answered)" % (src, addr))
    t.equal(set(TTLS.findall(cp.stdout)), {"63"},
            "ping %s -> %s: the replies' TTL (one hop: l3fwd decremented it)" % (src, addr))


def main(t):
    prog = env.dpdk_example("AFXDP_L3FWD", "dpdk-l3fwd",
                            needs=", with DPDK's acl, fib and lpm libraries")
    with topo.Topology() as net:
        dut, ports, ifaces = hosts.routed_hosts(net, HOSTS, offloads_off=True)

        prefix = testpmd.new_file_prefix()
        vdevs = ["net_af_xdp%d,iface=%s" % (i, p.name) for i, p in enumerate(ports)]
        argv = ([prog] + testpmd.eal_args(dut, vdevs, file_prefix=prefix, lcores="1")
                + ["--", "-p", "0x3", "--config=(0,0,1),(1,0,1)", "--parse-ptype"]
                + ["--eth-dest=%d,%s" % (i, h.mac) for i, h in enumerate(ifaces)])
        fwd = l2fwd.Forwarder(dut, argv, "dpdk-l3fwd", file_prefix=prefix, ready=READY)
        with fwd:
            for i in range(2):
                st = state.read(fwd, port=i)
                t.equal((st.get("state"), st.get("rx.cksum")), ("started", "ipv4"),
                        "port %d: state and rx.cksum (l3fwd's Rx checksum offloads)" % i)
            for src, dst in ((0, 1), (1, 0)):
                pinged(t, ifaces[src], HOSTS[dst][1].split("/")[0])
            for src, dst in ((0, 1), (1, 0)):
                hosts.tcp_transfer(t, ifaces[src].ns, ifaces[dst].ns, mb=TCP_MB,
                                   addr=HOSTS[dst][1].split("/")[0])
            t.equal(fwd.stop(), 0, "l3fwd exit code after SIGINT")
        t.check(not net.check_no_xdp(), "no XDP program left attached")


if __name__ == "__main__":
    runner.run(main, "l3fwd", __doc__.splitlines()[0])
