# SPDX-License-Identifier: BSD-3-Clause
"""The l2fwd example's programs (examples/l2fwd-af-xdp) run inside a network
namespace, for its tests and the benchmark: their output kept in a file of
the run, ready when they say they forward, stopped with a signal, their
statistics parsed.

    fwd = Forwarder.dpdk(dut, [p0, p1], ["-q", "2", "--peer-mac", "0,%s" % h0.mac])
    fwd = Forwarder.xdp(dut, [p0, p1], ["--peer-mac", "0,%s" % h0.mac])
    fwd = Forwarder.dpdk_example(dut, [p0, p1], ["-p", "0x3", "-T", "0"], lcores="0@1,1@0")
    with fwd:                       # started; ready
        ...
        rc = fwd.stop()             # SIGINT, wait; exit code
    final = parse_final_table(fwd.output())

Environment: L2FWD_AF_XDP and L2FWD_XDP, the programs (meson sets them);
unset, <top>/build/examples/l2fwd-af-xdp/ is searched (the benchmark names
its build's programs itself). DPDK_L2FWD: DPDK's own examples/l2fwd
(scripts/dpdk-l2fwd.sh builds it; unset, <top>/build/dpdk-l2fwd).
"""

import json
import os
import re
import signal
import subprocess
import time

from . import cleanup, env, state, testpmd

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

BUILD_DIR = os.path.join(TOP, "build", "examples", "l2fwd-af-xdp")
READY = re.compile(r"^(l2fwd-af-xdp|l2fwd-xdp): forwarding", re.M)
# DPDK's l2fwd: its ports are started and up before any lcore says this.
DPDK_L2FWD_READY = re.compile(r"^L2FWD: entering main loop on lcore", re.M)
READY_TIMEOUT = 60          # EAL init and port start on a shared machine
STOP_TIMEOUT = 30           # only against a hang: no timing is asserted

# One row of the text statistics: port, name (may hold spaces), rx, tx,
# dropped, rx-Mpps, tx-Mpps.
_ROW = re.compile(r"^\s*(\d+|all)\s+(.*?)\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s*$")


def program(var, name, path=None):
    path = path or os.environ.get(var) or os.path.join(BUILD_DIR, name)
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise env.Skip("%s not built (%s; build with ninja, or set %s)" % (name, path, var))
    return path


def iface_name(port):
    """An interface (topo.Iface) or a name (for interfaces that do not exist)."""
    return port if isinstance(port, str) else port.name


class Forwarder:
    """A forwarder running in `ns`, output (stdout and stderr) in a file."""

    def __init__(self, ns, argv, label, file_prefix=None, ready=READY):
        cleanup.install()
        self.ns, self.argv, self.label = ns, list(argv), label
        self.file_prefix = file_prefix
        self.ready = ready
        self.proc = None
        self.returncode = None
        self.path = os.path.join(env.run_dir(), "%s-%d.out" % (label, id(self)))
        self._undo = None
        self.zero_copy_ifaces = []   # checked zero-copy when ready (dpdk())
        self.nb_ports = 0            # ports of our driver, 0..nb_ports-1 (dpdk())

    @classmethod
    def dpdk(cls, ns, ports, app_args, lcores="1", eal_extra=(), devargs="", huge_dir=None,
             mem_mb=256, path=None, wrapper=(), check_mode=True):
        """l2fwd-af-xdp with one net_af_xdp vdev per interface of `ports`
        (port N = ports[N]), `devargs` added to each; the driver is the
        harness's (AFXDP_PLUGIN, or the stock one) unless `eal_extra` adds
        one. `wrapper` runs it, e.g. taskset. With AFXDP_SOCKET_MODE=zero-copy
        and our plugin, unless `check_mode` is False (the test checks the
        mode itself), every port's sockets are checked zero-copy once it
        forwards (the ports' state blocks), as TestPmd does."""
        prefix = testpmd.new_file_prefix()
        zero_copy = env.socket_mode() == "zero-copy" and bool(env.plugin())
        eal = _vdev_eal(ns, ports, devargs, prefix, huge_dir, mem_mb, lcores, eal_extra)
        argv = (list(wrapper) + [program("L2FWD_AF_XDP", "l2fwd-af-xdp", path)] + eal + ["--"]
                + list(app_args))
        fwd = cls(ns, argv, "l2fwd-af-xdp", file_prefix=prefix)
        fwd.nb_ports = len(ports)
        if zero_copy and check_mode:
            fwd.zero_copy_ifaces = [iface_name(p) for p in ports]
        return fwd

    @classmethod
    def dpdk_example(cls, ns, ports, app_args, lcores="0,1", eal_extra=(), devargs="",
                     huge_dir=None, mem_mb=256, path=None):
        """DPDK's own examples/l2fwd, ports as in dpdk(); `lcores` as EAL's
        -l, or its --lcores with '@' (e.g. "0@1,1@0": lcore 0 on CPU 1)."""
        prefix = testpmd.new_file_prefix()
        eal = _vdev_eal(ns, ports, devargs, prefix, huge_dir, mem_mb, lcores, eal_extra)
        argv = [program("DPDK_L2FWD", "dpdk-l2fwd", path or os.path.join(TOP, "build", "dpdk-l2fwd"))]
        return cls(ns, argv + eal + ["--"] + list(app_args), "dpdk-l2fwd", file_prefix=prefix,
                   ready=DPDK_L2FWD_READY)

    @classmethod
    def xdp(cls, ns, ports, args, path=None):
        """l2fwd-xdp on the interfaces `ports` (port N = ports[N])."""
        argv = ([program("L2FWD_XDP", "l2fwd-xdp", path)] + list(args)
                + [iface_name(p) for p in ports])
        return cls(ns, argv, "l2fwd-xdp")

    def command_line(self):
        return "ip netns exec %s %s" % (self.ns.name, " ".join(self.argv))

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        """End it if still running (SIGTERM, then SIGKILL), remove its files."""
        if self._undo is not None:
            cleanup.release(self._undo)

    def start(self, wait_ready=True):
        env.log("%s: %s" % (self.label, self.command_line()))
        self._undo = cleanup.push(self.label, self._end)
        with open(self.path, "w") as out, env.signals_deferred():
            self.proc = env.popen(self.argv, ns=self.ns.name, register=False,
                                  stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        if wait_ready:
            self.wait_ready()
        return self

    def wait_ready(self, timeout=READY_TIMEOUT):
        deadline = env.deadline(timeout)
        while not self.ready.search(self.output()):
            if self.proc.poll() is not None:
                self.returncode = self.proc.returncode
                raise env.Failure("%s exited (code %d) before forwarding:\n%s"
                                  % (self.label, self.returncode, self.tail()))
            if time.monotonic() > deadline:
                raise env.Failure("%s: not forwarding within %ds:\n%s"
                                  % (self.label, timeout, self.tail()))
            time.sleep(0.1)
        if self.zero_copy_ifaces:
            self.check_zero_copy()

    def socket_modes(self):
        """{interface: the modes of its sockets}, from the ports' state
        blocks (dump_priv, read through the telemetry socket)."""
        modes = {}
        for port in range(self.nb_ports):
            block = state.read(self, port)
            modes[block["iface"]] = set(state.socket_modes(block))
        return modes

    def check_zero_copy(self):
        """Each interface of zero_copy_ifaces has sockets, all in zero-copy
        mode (the ports' state blocks), or env.Failure."""
        modes = self.socket_modes()
        wrong = {i: sorted(modes.get(i, ())) for i in self.zero_copy_ifaces
                 if modes.get(i) != {"zero-copy"}}
        if wrong:
            raise env.Failure("%s: AFXDP_SOCKET_MODE=zero-copy but these ports' sockets are "
                              "not (modes seen): %s\n%s" % (self.label, wrong, self.tail()))
        env.log("%s: every port in zero-copy mode" % self.label)

    def wait_exit(self, timeout=STOP_TIMEOUT):
        """Wait for it to exit by itself (bad options, --duration); exit code."""
        try:
            self.returncode = self.proc.wait(env.scaled(timeout))
        except subprocess.TimeoutExpired:
            raise env.Failure("%s did not exit within %ds:\n%s"
                              % (self.label, timeout, self.tail())) from None
        return self.returncode

    def stop(self, sig=signal.SIGINT, timeout=STOP_TIMEOUT):
        """Send `sig` and wait for the exit; returns the exit code."""
        env.log("%s: %s" % (self.label, signal.Signals(sig).name))
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.wait_exit(timeout)

    def output(self):
        try:
            with open(self.path, errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def tail(self, n=4000):
        out = self.output()
        return "----- %s output -----\n%s\n----- end of %s output -----" % (
            self.label, out[-n:], self.label)

    def _end(self):
        if self.proc is not None and self.proc.poll() is None:
            env.log("%s: still running at clean-up: SIGTERM" % self.label)
            env.end_process(self.proc)
        if self.proc is not None:
            self.returncode = self.proc.returncode
        if self.file_prefix:
            testpmd.remove_runtime_dir(self.file_prefix)
        if os.path.exists(self.path):
            os.unlink(self.path)


def _vdev_eal(ns, ports, devargs, prefix, huge_dir, mem_mb, lcores, extra):
    """EAL's arguments: one net_af_xdp vdev per interface, `devargs` added to each."""
    vdevs = ["net_af_xdp%d,iface=%s%s" % (i, iface_name(p), "," + devargs if devargs else "")
             for i, p in enumerate(ports)]
    return testpmd.eal_args(ns, vdevs, file_prefix=prefix, huge_dir=huge_dir, mem_mb=mem_mb,
                            lcores=lcores, extra=extra)


def parse_final_table(text):
    """The final statistics (text format): {port: {'name','rx','tx','dropped'}},
    'all' included; None if they were not printed."""
    at = text.rfind("final statistics")
    if at < 0:
        return None
    rows = {}
    for line in text[at:].splitlines()[1:]:
        m = _ROW.match(line)
        if not m:
            if rows:
                break
            continue
        key = m.group(1) if m.group(1) == "all" else int(m.group(1))
        rows[key] = {"name": m.group(2), "rx": int(m.group(3)), "tx": int(m.group(4)),
                     "dropped": int(m.group(5))}
    return rows or None


def json_lines(text):
    """The statistics objects printed with --json, in order (a line cut
    short, by a kill, is left out)."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith('{"program":'):
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
    return out


def final_totals(text):
    """The last final --json line: its program and seconds, and rx, tx and
    dropped summed over the ports; None if absent."""
    finals = [doc for doc in json_lines(text) if doc.get("final")]
    if not finals:
        return None
    last = finals[-1]
    ports = [p for p in last.get("ports", []) if isinstance(p, dict) and "rx" in p]
    return {"program": last.get("program"), "seconds": last.get("time_s"),
            "rx": sum(int(p.get("rx", 0)) for p in ports),
            "tx": sum(int(p.get("tx", 0)) for p in ports),
            "dropped": sum(int(p.get("dropped", 0)) for p in ports)}


def check_final(t, rows, nb_ports, what):
    """Final statistics present; for each port pair, what one port received
    went out of the other (tx) or was dropped there: an exact identity once
    the forwarder has stopped."""
    if not t.check(rows is not None, "%s: final statistics printed" % what):
        return
    for p in range(nb_ports):
        t.check(p in rows, "%s: final statistics have port %d" % (what, p))
    for p in range(0, nb_ports, 2):
        for a, b in ((p, p + 1), (p + 1, p)):
            if a in rows and b in rows:
                t.equal(rows[b]["tx"] + rows[b]["dropped"], rows[a]["rx"],
                        "%s: port %d tx + dropped = port %d rx" % (what, b, a))
