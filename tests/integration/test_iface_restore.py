#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The interface gets back its MAC address, promiscuous and all-multicast state, at close and at exit without close.

1. testpmd (which turns promiscuous mode on) with two ports on one 2-queue
   veth (queues 0 and 1): `mac_addr set 0 NEW_MAC` changes the kernel
   interface's MAC; `port close 1` leaves it so (port 0 still uses the
   interface); `quit` gives back the MAC it had at probe and turns
   promiscuous mode off again.
2. A DPDK application that exits without closing its ports (Open vSwitch
   does): a Python process calls EAL and ethdev through ctypes, probes the
   port, turns promiscuous and all-multicast on, sets NEW_MAC, and returns
   from main. After its exit, the interface has its MAC, and neither flag.
   (Nothing can run on SIGKILL or _exit(): the README says so.)
"""

import ctypes
import os
import sys

from afxdp_test import env, runner, testpmd, topo

NEW_MAC = "02:00:00:fc:00:01"
CHILD_TIMEOUT = 60           # only against a hang


def state(ifc):
    """(MAC, promiscuous, all-multicast) as the kernel reports them."""
    link = ifc.link()
    f = set(link.get("flags", []))
    return link["address"], "PROMISC" in f, "ALLMULTI" in f


def child(plugin, iface, prefix):
    """Run in the namespace: probe, change, exit without closing (return from main)."""
    # The libraries of the DPDK the plugin was built for (22.11: .so.23).
    eal = ctypes.CDLL(env.linked_library(plugin, "librte_eal"), mode=ctypes.RTLD_GLOBAL)
    ethdev = ctypes.CDLL(env.linked_library(plugin, "librte_ethdev"), mode=ctypes.RTLD_GLOBAL)
    args = [sys.argv[0], "--no-pci", "--no-huge", "-m", "64", "--file-prefix", prefix,
            "-d", plugin, "--vdev", "net_af_xdp0,iface=%s" % iface,
            "--log-level=pmd.net.af_xdp:info"]
    argv = (ctypes.c_char_p * len(args))(*[a.encode() for a in args])
    if eal.rte_eal_init(len(args), argv) < 0:
        print("rte_eal_init failed")
        return 2
    mac = (ctypes.c_uint8 * 6)(*bytes.fromhex(NEW_MAC.replace(":", "")))
    rcs = [ethdev.rte_eth_promiscuous_enable(ctypes.c_uint16(0)),
           ethdev.rte_eth_allmulticast_enable(ctypes.c_uint16(0)),
           ethdev.rte_eth_dev_default_mac_addr_set(ctypes.c_uint16(0), mac)]
    print("promiscuous, all-multicast, MAC set: %s" % rcs, flush=True)
    return 0 if rcs == [0, 0, 0] else 3


def testpmd_close(t, net, dut, port):
    before = state(port)
    vdevs = ["net_af_xdp0,iface=%s,queue_count=1" % port.name,
             "net_af_xdp1,iface=%s,start_queue=1,queue_count=1" % port.name]
    with testpmd.TestPmd(dut, vdevs, fwd="rxonly") as tp:
        t.check(state(port)[1], "testpmd turned promiscuous mode on: %s" % (state(port),))
        tp.cmd("mac_addr set 0 %s" % NEW_MAC)
        t.equal(port.mac, NEW_MAC, "mac_addr set 0 changed the kernel interface's MAC")
        tp.cmd("port stop 1")
        tp.cmd("port close 1")
        t.equal(state(port), (NEW_MAC, True, False),
                "after closing port 1 (port 0 still open): MAC, promiscuous, all-multicast")
        t.quit_testpmd(tp, net)
    t.equal(state(port), before, "after quit: the MAC, promiscuous and all-multicast of probe")


def exit_without_close(t, dut, port):
    before = state(port)
    prefix = testpmd.new_file_prefix()
    try:
        cp = env.run([sys.executable, os.path.abspath(__file__), "--child", env.plugin(),
                      port.name, prefix], ns=dut.name, check=False, timeout=CHILD_TIMEOUT)
    finally:
        testpmd.remove_runtime_dir(prefix)
    out = cp.stdout + cp.stderr
    env.log(out[-3000:])
    t.equal(cp.returncode, 0, "the ctypes DPDK application set promiscuous, all-multicast and "
            "the MAC, and exited without closing its port")
    t.check("ports never closed got back" in out, "the driver says it gave the interface back "
            "at exit")
    t.equal(state(port), before, "after its exit: the MAC, promiscuous and all-multicast of probe")


def main(t):
    if env.is_stock():
        raise env.Skip("the stock driver restores neither the MAC nor anything at exit")
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, _ = net.veth(dut, "d0", gen, "g0", queues=2)
        testpmd_close(t, net, dut, port)
        exit_without_close(t, dut, port)
        t.check(not net.check_no_xdp(), "no XDP program left", "\n".join(net.check_no_xdp()))


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        sys.exit(child(*sys.argv[2:]))
    runner.run(main, "iface_restore", __doc__.splitlines()[0])
