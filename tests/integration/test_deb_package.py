#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""deb_package: installed from its Debian package, our driver is the system's net_af_xdp, used by DPDK's tools with no -d; removing the package gives the stock driver back.

scripts/deb.sh builds the package for the installed DPDK (or, after
test_deb_build, which checks the package itself beside other tests, gives
that build again); `apt-get install ./<deb>` installs it; at the end, also
on failure, `apt-get remove` takes it away again (and the test checks that).

    netns a: h0 10.99.0.1/24 == veth == p0 (net_af_xdp0)  netns dut: testpmd io
    netns b: h1 10.99.0.2/24 == veth == p1 (net_af_xdp1)     (on hugepages)

Installed:
- `dpkg-divert --list` shows the stock plugin file diverted to *.distrib, and
  the plugin directory's file of that name is ours (its SONAME, readelf);
- dpdk-testpmd with no -d: the programs attached to p0 and p1 carry our
  owner mark with testpmd's pid (bpftool); ping and exact counts of raw
  frames a -> b;
- dpdk-proc-info --xstats with no -d (a secondary): our xstats
  (rx_q0_fill_ring_empty_descs, a name of the kernel's counters that only
  ours publishes);
- dpdk-dumpcap -i net_af_xdp0 with no -d and no plugin preloaded (the
  wrapper, scripts/afxdp-secondary.sh, then preloads only the mempool
  drivers Debian's testpmd links; see dumpcap()): captures the ping, read
  back with tcpdump;
- a -d of the installed file on top of the directory's copy is harmless:
  one driver, one marked program per port, traffic counted exactly;
- Open vSwitch: a type=dpdk port per interface with no -d in dpdk-extra,
  ping through the bridge.
Removed: no diversion of ours is left, the directory's file is DPDK's again
(its SONAME), and testpmd with no -d drives the ports with the stock driver
(no program with our mark).
"""

import os
import subprocess

from afxdp_test import (bpf, cleanup, debpkg, env, hosts, hugepages, ovs, runner, testpmd, topo,
                        traffic)
from afxdp_test.debpkg import sh, soname

WRAPPER = os.path.join(debpkg.SCRIPTS, "afxdp-secondary.sh")
HUGEPAGES = 320          # testpmd's -m 256 and dumpcap's pool; then OVS's 512 MB socket memory
FRAMES = 300
PINGS = hosts.PINGS
TOOL_TIMEOUT = 60        # only against a hang
OUR_XSTAT = "rx_q0_fill_ring_empty_descs"


class Package:
    """The package built, installed, and removed again at the end."""

    def __init__(self, t):
        self.t = t
        self.deb, _ = debpkg.build()
        self.name = os.path.basename(self.deb).split("_")[0]
        env.log("package %s (%s)" % (self.name, self.deb))
        self.stock = None
        self._undo = None

    def install(self):
        self._undo = cleanup.push("package %s" % self.name, lambda: self.remove(purge=True))
        rc, out = sh(["apt-get", "install", "-y", "--no-install-recommends", self.deb])
        self.t.require(rc == 0, "apt-get install ./%s" % os.path.basename(self.deb), out[-2000:])
        rc, out = sh(["dpkg-query", "-L", self.name])
        self.stock = [p for p in out.split() if "/pmds-" in p and ".so" in p][0]

    def remove(self, purge=False):
        rc, out = sh(["apt-get", "purge" if purge else "remove", "-y", self.name])
        if rc != 0:
            env.log("apt-get remove %s failed:\n%s" % (self.name, out))
        return rc

    def removed(self):
        rc = self.remove()
        self.t.equal(rc, 0, "apt-get remove %s: exit code" % self.name)


def diversions(path):
    """`dpkg-divert --list` lines about `path`."""
    rc, out = sh(["dpkg-divert", "--list", path])
    return [ln for ln in out.splitlines() if ln.strip()]


def marked(ifaces, tp):
    """For each interface: whether the program attached carries our owner
    mark with testpmd's pid."""
    progs = {p["id"]: p["pid"] for p in bpf.marked_programs()}
    return [progs.get(bpf.attached_prog_id(i)) == tp.proc.pid for i in ifaces]


def raw_frames(t, src, dst, tp, what):
    base = tp.port_stats(1)["TX-packets"]
    with traffic.Capture(dst, src=src.mac, dst=dst.mac, count=FRAMES, sizes=[64],
                         stream=what) as cap:
        traffic.send(src, dst.mac, FRAMES, [64], stream=what)
    t.check(traffic.all_intact(cap.result), "%s: %s" % (what, traffic.summary(cap.result)))
    t.equal(tp.port_stats(1)["TX-packets"] - base, FRAMES, "%s: port 1 TX-packets" % what)


def proc_info(t, dut, tp):
    argv = [env.proc_info_path(), "--file-prefix", tp.file_prefix, "--no-pci", "--",
            "--xstats"]
    rc, out = testpmd.run_secondary(dut, argv, timeout=TOOL_TIMEOUT)
    t.check(rc == 0 and OUR_XSTAT in out,
            "dpdk-proc-info --xstats, no -d: exit 0 and our xstats (%s)" % OUR_XSTAT, out[-2000:])


def dumpcap(t, dut, a, tp):
    """dpdk-dumpcap, no -d: its probe takes our driver from the plugin
    directory. Run through scripts/afxdp-secondary.sh all the same, which
    then preloads only the mempool drivers testpmd links: without that,
    dumpcap's capture pool names its mempool driver by another number than
    testpmd's and nothing is captured, whatever the net driver (README,
    Capturing)."""
    pcap = os.path.join(env.run_dir(), "plain.pcapng")
    argv = ["env", "-u", "AFXDP_PLUGIN", WRAPPER, env.tool("AFXDP_DUMPCAP", "dpdk-dumpcap"),
            "--file-prefix=%s" % tp.file_prefix,
            "-i", "net_af_xdp0", "-p", "-q", "-c", str(2 * PINGS),
            "-a", "duration:%d" % env.scaled(TOOL_TIMEOUT / 2), "-w", pcap]
    ping = env.popen(["ping", "-n", "-q", "-i", "0.2", hosts.ADDR_B], ns=a.name,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        rc, out = testpmd.run_secondary(dut, argv, timeout=TOOL_TIMEOUT)
    finally:
        env.end_process(ping)
    lines = []
    if os.path.exists(pcap):
        lines = env.run(["tcpdump", "-n", "-r", pcap], check=False).stdout.splitlines()
    echo = [ln for ln in lines if "ICMP echo" in ln]
    t.check(rc == 0 and len(echo) >= PINGS and "LD_PRELOAD=/" in out and "af_xdp" not in
            out.split("LD_PRELOAD=", 1)[1].split("\n", 1)[0],
            "dpdk-dumpcap -i net_af_xdp0, no -d and no plugin preloaded: exit %d, %d echo "
            "requests/replies read back by tcpdump" % (rc, len(echo)), out[-2000:])


def testpmd_session(t, dut, a, hosts_ifc, ports, hp, plugin, what):
    vdevs = ["net_af_xdp%d,iface=%s" % (i, p.name) for i, p in enumerate(ports)]
    with testpmd.TestPmd(dut, vdevs, fwd="io", huge_dir=hp.mount, plugin=plugin,
                         label="testpmd[%s]" % what) as tp:
        t.check(all(marked(ports, tp)), "%s: our marked programs on %s, testpmd's pid"
                % (what, [p.name for p in ports]))
        tp.cmd("start")
        hosts.ping(t, a, where_lost=tp.where_lost)
        raw_frames(t, hosts_ifc[0], hosts_ifc[1], tp, what)
        if plugin == testpmd.NO_PLUGIN:
            proc_info(t, dut, tp)
            dumpcap(t, dut, a, tp)
        tp.cmd("stop")
        rc, _ = tp.quit()
        t.equal(rc, 0, "%s: testpmd's exit code" % what)


def ovs_ping(t, dut, a, ports, hp):
    extra = "--no-pci %s" % " ".join("--vdev net_af_xdp%d,iface=%s" % (i, p.name)
                                     for i, p in enumerate(ports))
    config = {"dpdk-init": "true", "dpdk-socket-mem": "512", "dpdk-hugepage-dir": hp.mount,
              "pmd-cpu-mask": "0x2", "per-port-memory": "true", "dpdk-extra": '"%s"' % extra}
    with ovs.Ovs(dut, config) as o:
        o.add_dpdk_ports(["p%d" % i for i in range(len(ports))])
        for i in range(len(ports)):
            state = o.wait_for("Interface", "p%d" % i, "link_state", "up", timeout=TOOL_TIMEOUT)
            t.check(state == "up", "OVS, no -d: p%d link_state %s, error %s"
                    % (i, state, o.get("Interface", "p%d" % i, "error")), o.log_tail())
        progs = {p["id"] for p in bpf.marked_programs()}
        t.check(all(bpf.attached_prog_id(p) in progs for p in ports),
                "OVS, no -d: our marked programs on both interfaces")
        hosts.ping(t, a)
        t.equal(o.exit(), 0, "ovs-vswitchd's exit code after `ovs-appctl exit`")


def main(t):
    debpkg.skip_unless_buildable()
    pkg = Package(t)
    with topo.Topology() as net, hugepages.HugePages(HUGEPAGES) as hp:
        dut, a, b, p0, h0, p1, h1 = hosts.two_hosts(net)
        # Each host knows the other's MAC for good: no ARP probe (b's, 5 s
        # after its entry for a was last confirmed, and a's answer, which the
        # port forwards) falls among the frames a session counts.
        h0.ip("neigh", "replace", hosts.ADDR_B, "lladdr", h1.mac, "dev", h0.name, "nud",
              "permanent")
        h1.ip("neigh", "replace", hosts.ADDR_A, "lladdr", h0.mac, "dev", h1.name, "nud",
              "permanent")
        pkg.install()
        stock = pkg.stock
        t.check(any(".distrib" in ln for ln in diversions(stock)),
                "installed: the stock plugin diverted", "\n".join(diversions(stock)))
        t.check(soname(stock) == soname(env.plugin()), "installed: %s is ours (SONAME %s)"
                % (stock, soname(stock)))
        testpmd_session(t, dut, a, (h0, h1), (p0, p1), hp, testpmd.NO_PLUGIN, "no -d")
        testpmd_session(t, dut, a, (h0, h1), (p0, p1), hp, stock, "-d of the installed file")
        ovs.check_installed()
        ovs_ping(t, dut, a, (p0, p1), hp)

        pkg.removed()
        t.check(not any(pkg.name in ln for ln in diversions(stock)),
                "removed: no diversion of ours left", "\n".join(diversions(stock)))
        t.check(soname(stock) not in (None, soname(env.plugin())),
                "removed: %s is DPDK's again (SONAME %s)" % (stock, soname(stock)))
        vdevs = ["net_af_xdp%d,iface=%s" % (i, p.name) for i, p in enumerate((p0, p1))]
        with testpmd.TestPmd(dut, vdevs, fwd="io", huge_dir=hp.mount, plugin=testpmd.NO_PLUGIN,
                             label="testpmd[stock]") as tp:
            t.check(not any(marked((p0, p1), tp)),
                    "removed: testpmd with no -d drives the ports with the stock driver "
                    "(no program with our mark)")
            rc, _ = tp.quit()
            t.equal(rc, 0, "removed: testpmd's exit code")


if __name__ == "__main__":
    runner.run(main, "deb_package", __doc__.splitlines()[0])
