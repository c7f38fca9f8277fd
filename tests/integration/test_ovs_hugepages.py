#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""ovs_hugepages: Open vSwitch on the system's hugepages as a user has them (1,024 free 2 MB pages on /dev/hugepages) carries full-size DF pings and TCP at MTU 1500, 3000 and 9000, and says whose the UMEM is at each.

    netns a: h0 == p0 (net_af_xdp0) [OVS, netns dut] p1 (net_af_xdp1) == h1 :netns b

test_ovs gives OVS a private hugetlbfs of 300 pages and 512 MB of socket
memory, which forces small pools that happen to be one area. A user runs
OVS on the system's hugetlbfs with whatever is free, and OVS's default
memory (no dpdk-socket-mem, no per-port memory: one mempool per MTU, grown
page by page), whose pools spread over pages far apart (issue 26: "spans
372 virtually discontiguous memory chunks" at MTU 3000, the port refused).
Here: 1,024 pages added to the 2 MB pool (vm.nr_hugepages, given back
after, also on failure), /dev/hugepages as systemd mounts it (mounted for
the test if nothing is there), OVS with only dpdk-init, a PMD core and our
ports. At each MTU (1500 at start, then mtu_request=3000 and 9000 on both
ports, and the hosts at the MTU):
  - the ports up at the MTU, no error (the Interface's mtu column);
  - a full-size ping with DF (`ping -M do -s MTU-28`), every one answered;
  - a TCP transfer a -> b (sha256);
  - the state blocks (OVS's DPDK telemetry): queue.0.umem.owner (mempool:
    the mempool is the UMEM; driver: the driver's UMEM, one copy per
    frame) and its reason, one consistent with the other; logged for each
    MTU, and in the test's summary line.
Host only: the hugepages and OVS's memory are this machine's; the kernel's
part is any veth's (the VM runs test_ovs).
"""

import types

from afxdp_test import cleanup, env, hosts, hugepages, ovs, runner, state, testpmd, topo

PAGES = 1024
MTUS = (1500, 3000, 9000)
TCP_MB = 4                   # a few thousand segments: seconds, not minutes
WAIT = 60                    # only against a hang
NAMES = ("p0", "p1")


def port_ok(o, name):
    return o.get("Interface", name, "error") == "[]"


def wait_ports(t, o, mtu):
    for n in NAMES:
        got = o.wait_for("Interface", n, "mtu", str(mtu), timeout=WAIT)
        t.check(got == str(mtu) and port_ok(o, n), "MTU %d: %s's mtu %s, error %s"
                % (mtu, n, got, o.get("Interface", n, "error")), o.log_tail())
        st = o.wait_for("Interface", n, "link_state", "up", timeout=WAIT)
        t.check(st == "up", "MTU %d: %s link_state %s" % (mtu, n, st), o.log_tail())


def umem_owners(t, prefix, ports, mtu):
    """Each port's queue 0 UMEM owner and reason, from its state block."""
    dpdk = types.SimpleNamespace(file_prefix=prefix)
    seen = []
    for i, p in enumerate(ports):
        q = state.queue_keys(state.read(dpdk, i), 0)
        owner, reason = q.get("umem.owner"), q.get("umem.owner.reason")
        env.log("MTU %d: %s: queue.0.umem.owner = %s (reason %s), pool %s, mode %s, "
                "multi_buffer %s, gap_bytes %s" % (mtu, p.name, owner, reason,
                                                   q.get("umem.pool"), q.get("mode"),
                                                   q.get("multi_buffer"), q.get("umem.gap_bytes")))
        t.check((owner, reason == "none") in (("mempool", True), ("driver", False)),
                "MTU %d: %s's UMEM owner %s, reason %s (mempool with none, or the driver's "
                "with a reason)" % (mtu, p.name, owner, reason))
        seen.append("%s %s%s" % (p.name, owner, "" if reason == "none" else " (%s)" % reason))
    return "MTU %d: %s" % (mtu, ", ".join(seen))


def full_size_ping(t, o, a, b, mtu, prefix):
    size = mtu - 28                  # IPv4 and ICMP headers
    hosts.ping(t, a, size=size, count=3, what="MTU %d" % mtu,
               where_lost=lambda: o.where_lost((a, b), prefix))


def main(t):
    if env.is_stock():
        raise env.Skip("the OVS test runs OVS over our plugin (AFXDP_PLUGIN)")
    ovs.check_installed()
    prefix = testpmd.new_file_prefix()
    with topo.Topology() as net, hugepages.HugePages(PAGES, system=True, prefix=prefix):
        dut, a, b, p0, h0, p1, h1 = hosts.two_hosts(net)
        vdevs = ["net_af_xdp%d,iface=%s" % (i, p.name) for i, p in enumerate((p0, p1))]
        cleanup.push("DPDK runtime directory of %s" % prefix,
                     lambda: testpmd.remove_runtime_dir(prefix))
        extra = ("--no-pci -d %s --vdev %s --vdev %s --file-prefix %s"
                 % (env.plugin(), vdevs[0], vdevs[1], prefix))
        # What a user sets: DPDK on, a PMD core, the ports; OVS's defaults
        # for the rest (its memory from the system's hugetlbfs, on demand).
        config = {"dpdk-init": "true", "pmd-cpu-mask": "0x2", "dpdk-extra": '"%s"' % extra}
        summary = []
        with ovs.Ovs(dut, config) as o:
            o.add_dpdk_ports(NAMES)
            for mtu in MTUS:
                if mtu != 1500:
                    for n in NAMES:
                        o.vsctl("set", "Interface", n, "mtu_request=%d" % mtu)
                    for h in (h0, h1):
                        h.set_mtu(mtu)
                wait_ports(t, o, mtu)
                summary.append(umem_owners(t, prefix, (p0, p1), mtu))
                full_size_ping(t, o, a, b, mtu, prefix)
                hosts.tcp_transfer(t, a, b, mb=TCP_MB)
            t.equal(o.exit(), 0, "ovs-vswitchd's exit code after `ovs-appctl exit`")
        env.log("UMEM owners: %s" % "; ".join(summary))


if __name__ == "__main__":
    runner.run(main, "ovs_hugepages", __doc__.splitlines()[0])
