# SPDX-License-Identifier: BSD-3-Clause
"""Open vSwitch with DPDK (Debian's openvswitch-switch-dpdk), run privately.

OVS is a system service with global state (/etc/openvswitch/conf.db,
/var/run/openvswitch, /var/log/openvswitch, the ovs-vswitchd alternative).
None of it is used here: ovsdb-server and ovs-vswitchd-dpdk run as children
of the test, inside a namespace, on a database, sockets and logs in the run
directory (OVS_RUNDIR/OVS_DBDIR/OVS_LOGDIR point there too, for what the
daemons derive from them), and are ended with the test. The system's own
OVS, running or not, is left alone.

    with Ovs(dut, dpdk_extra="--no-pci -d <plugin> --vdev ...", hugepage_dir=hp.mount) as o:
        o.add_dpdk_ports(["p0", "p1"])      # net_af_xdp0, net_af_xdp1 on a netdev bridge
        o.exit()       # ovs-appctl exit: what ovs-ctl stop does, ports not closed
"""

import os
import shutil
import time

from . import cleanup, dpdk_output, env, state

VSWITCHD_DPDK = "/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk"
SCHEMA = "/usr/share/openvswitch/vswitch.ovsschema"
START_TIMEOUT = 60       # DPDK init included; only against a hang
EXIT_TIMEOUT = 30


def check_installed():
    other = os.environ.get("AFXDP_DPDK_VERSION")
    if other:
        raise env.Skip("Debian's Open vSwitch is built for Debian's DPDK 22.11, and the plugin "
                       "under test for DPDK %s (scripts/dpdk-build.sh)" % other)
    for prog in ("ovsdb-server", "ovsdb-tool", "ovs-vsctl", "ovs-appctl"):
        if not shutil.which(prog):
            raise env.Skip("%s not found (Debian package openvswitch-switch-dpdk; "
                           "scripts/setup.sh installs it)" % prog)
    for path in (VSWITCHD_DPDK, SCHEMA):
        if not os.path.exists(path):
            raise env.Skip("%s not found (Debian package openvswitch-switch-dpdk; "
                           "scripts/setup.sh installs it)" % path)


class Ovs:
    def __init__(self, ns, other_config):
        """other_config: the DPDK settings, {key: value}, set before ovs-vswitchd starts."""
        check_installed()
        cleanup.install()
        self.ns = ns
        self.other_config = dict(other_config)
        self.dir = os.path.join(env.run_dir(), "ovs")
        self.db_sock = os.path.join(self.dir, "db.sock")
        self.bridge = "%s%sbr" % (env.IFACE_PREFIX, env.run_id())
        self.vswitchd_ctl = os.path.join(self.dir, "ovs-vswitchd.ctl")
        self.log_file = os.path.join(self.dir, "ovs-vswitchd.log")
        self.ovsdb = None
        self.vswitchd = None
        self._undo = None

    def __enter__(self):
        self._undo = cleanup.push("Open vSwitch in %s" % self.dir, self._stop)
        os.makedirs(self.dir, mode=0o755, exist_ok=True)
        db = os.path.join(self.dir, "conf.db")
        env.run(["ovsdb-tool", "create", db, SCHEMA])
        self.ovsdb = env.popen(
            ["env", "OVS_RUNDIR=%s" % self.dir, "OVS_DBDIR=%s" % self.dir,
             "OVS_LOGDIR=%s" % self.dir, "ovsdb-server", db,
             "--remote=punix:%s" % self.db_sock,
             "--unixctl=%s" % os.path.join(self.dir, "ovsdb-server.ctl"),
             "--pidfile=%s" % os.path.join(self.dir, "ovsdb-server.pid"),
             "--log-file=%s" % os.path.join(self.dir, "ovsdb-server.log"),
             "--no-chdir", "-vconsole:off"], ns=self.ns.name)
        self._wait(lambda: os.path.exists(self.db_sock), "ovsdb-server's socket")
        self.vsctl("--no-wait", "init")
        self.vsctl("--no-wait", "set", "Open_vSwitch", ".",
                   *["other_config:%s=%s" % kv for kv in self.other_config.items()])
        self.vswitchd = env.popen(
            ["env", "OVS_RUNDIR=%s" % self.dir, "OVS_DBDIR=%s" % self.dir,
             "OVS_LOGDIR=%s" % self.dir, VSWITCHD_DPDK, "unix:%s" % self.db_sock,
             "--unixctl=%s" % self.vswitchd_ctl,
             "--pidfile=%s" % os.path.join(self.dir, "ovs-vswitchd.pid"),
             "--log-file=%s" % self.log_file, "--no-chdir", "-vconsole:off"],
            ns=self.ns.name)
        self._wait(lambda: self.get("Open_vSwitch", ".", "dpdk_initialized") == "true",
                   "DPDK initialised in ovs-vswitchd")
        return self

    def __exit__(self, *exc):
        cleanup.release(self._undo)
        return False

    def _wait(self, ready, what, timeout=START_TIMEOUT):
        deadline = env.deadline(timeout)
        while not ready():
            for p, name in ((self.ovsdb, "ovsdb-server"), (self.vswitchd, "ovs-vswitchd")):
                if p is not None and p.poll() is not None:
                    raise env.HarnessError("%s exited (%s) while waiting for %s; its log:\n%s"
                                           % (name, p.returncode, what, self.log_tail()))
            if time.monotonic() > deadline:
                raise env.HarnessError("no %s within %ss; ovs-vswitchd's log:\n%s"
                                       % (what, timeout, self.log_tail()))
            time.sleep(0.2)

    def vsctl(self, *args, check=True, timeout=60):
        cp = env.run(["ovs-vsctl", "--db=unix:%s" % self.db_sock, "--timeout=%d" % timeout]
                     + list(args), ns=self.ns.name, check=check, timeout=timeout + 10)
        return cp.stdout.strip()

    def add_dpdk_ports(self, names):
        """A netdev bridge, and on it port names[i] of DPDK device net_af_xdp<i>."""
        self.vsctl("add-br", self.bridge, "--", "set", "bridge", self.bridge,
                   "datapath_type=netdev")
        for i, n in enumerate(names):
            self.vsctl("add-port", self.bridge, n, "--", "set", "Interface", n, "type=dpdk",
                       "options:dpdk-devargs=net_af_xdp%d" % i)

    def where_lost(self, hosts_ns, prefix, ports=2):
        """What says where a frame was lost: the hosts' interface counters and
        neighbours, the ports' xstats (OVS's DPDK telemetry, EAL file prefix
        `prefix`), OVS's datapath port counters and drop coverage counters."""
        out = []
        for ns in hosts_ns:
            out.append(ns.exec(["ip", "-s", "link"], check=False).stdout)
            out.append(ns.exec(["ip", "neigh"], check=False).stdout)
        for port in range(ports):
            try:
                xs = state.telemetry(prefix, "/ethdev/xstats,%d" % port).get("/ethdev/xstats") or {}
            except state.StateError as e:
                xs = {"error": str(e)}
            out.append(dpdk_output.loss_xstats(port, xs))
        out.append(self.appctl("dpctl/show", "-s", check=False))
        out.append("\n".join(ln for ln in self.appctl("coverage/show", check=False).splitlines()
                             if "drop" in ln))
        return "\n".join(out)

    def get(self, table, record, column):
        """A column's value, without quotes; None if it cannot be read."""
        cp = env.run(["ovs-vsctl", "--db=unix:%s" % self.db_sock, "--timeout=10", "get",
                      table, record, column], ns=self.ns.name, check=False, timeout=20)
        return cp.stdout.strip().strip('"') if cp.returncode == 0 else None

    def wait_for(self, table, record, column, want, timeout=START_TIMEOUT):
        """Until the column reads `want`; returns what it read last."""
        deadline = env.deadline(timeout)
        got = self.get(table, record, column)
        while got != want and time.monotonic() < deadline:
            time.sleep(0.2)
            got = self.get(table, record, column)
        return got

    def appctl(self, *args, target=None, check=True):
        cp = env.run(["ovs-appctl", "-t", target or self.vswitchd_ctl] + list(args),
                     ns=self.ns.name, check=check, timeout=EXIT_TIMEOUT)
        return cp.stdout

    def log(self):
        try:
            with open(self.log_file, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def log_tail(self, n=4000):
        return self.log()[-n:]

    def exit(self):
        """ovs-vswitchd exits as `ovs-ctl stop` makes it: `ovs-appctl exit`, which
        does not close the DPDK ports. Returns its exit code."""
        self.appctl("exit", check=False)
        try:
            return self.vswitchd.wait(env.scaled(EXIT_TIMEOUT))
        except Exception:
            env.end_process(self.vswitchd)
            raise env.Failure("ovs-vswitchd did not exit within %ss of `ovs-appctl exit`"
                              % EXIT_TIMEOUT) from None

    def _stop(self):
        for p in (self.vswitchd, self.ovsdb):
            if p is not None:
                env.end_process(p)
