# SPDX-License-Identifier: BSD-3-Clause
"""Debian's dpdk-testpmd, interactive, inside a network namespace.

testpmd talks to a pseudo-terminal: on a pipe its stdout is block-buffered
and the output of a command arrives after the next prompt, or never. Every
byte it writes is kept (`transcript`) and shown when a test fails.

    with TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly") as tp:
        tp.cmd("start")
        st = tp.port_stats(0)
        tp.quit()
"""

import codecs
import errno
import os
import pty
import re
import select
import shutil
import signal
import time
import tty

from . import cleanup, dpdk_output, env, state

PROMPT = "testpmd> "
STARTUP_TIMEOUT = 60     # EAL init + port start; generous: the machine is shared
COMMAND_TIMEOUT = 30
QUIT_TIMEOUT = 30
QUIT_GRACE = 10          # ending testpmd: `quit`, then SIGTERM, then SIGKILL
KILL_GRACE = 5
TRANSCRIPT_TAIL = 6000   # characters shown on failure
# EAL option: the driver's informational lines (XDP mode, copy/zero-copy, UMEM
# footprint per queue) in the output.
LOG_INFO = "--log-level=pmd.net.af_xdp:info"

_ANSI_PARTIAL = re.compile(r"\x1b(\[[0-9;?]*)?$")

# Every testpmd of the run, for the failure report.
INSTANCES = []


class TestPmdError(env.Failure):
    pass


_counter = 0


def new_file_prefix():
    global _counter
    _counter += 1
    return "%s%s-%d" % (env.DPDK_PREFIX, env.run_id(), _counter)


def remove_runtime_dir(prefix):
    """EAL leaves /var/run/dpdk/<prefix> (config, fbarrays) behind on exit."""
    d = os.path.join(env.DPDK_RUNTIME, prefix)
    if os.path.isdir(d):
        shutil.rmtree(d, ignore_errors=True)


NO_PLUGIN = ""           # eal_args(plugin=NO_PLUGIN): no -d


def eal_args(ns, vdevs, *, file_prefix, huge_dir=None, mem_mb=None, lcores="0,1",
             extra=(), plugin=None):
    """EAL arguments shared by testpmd and the secondary processes; `plugin`
    is a copy of env.plugin() to load instead (e.g. one another user can read),
    or NO_PLUGIN: no -d, the drivers of EAL's plugin directory only.
    `lcores` goes to -l, or to --lcores when it maps lcores to CPUs ("0@1,1@0")."""
    args = ["--lcores" if "@" in lcores else "-l", lcores, "--no-pci", "--file-prefix", file_prefix]
    if huge_dir:
        args += ["--huge-dir", huge_dir, "-m", str(mem_mb or 256)]
    else:
        args += ["--no-huge", "-m", str(mem_mb or 512)]
    p = env.plugin() if plugin is None else plugin
    if p:
        args += ["-d", p]
    for v in vdevs:
        args += ["--vdev", with_socket_mode(v) if p else v]
    return args + list(extra)


def with_socket_mode(vdev):
    """`vdev` with force_copy=1 when the run asks for copy mode
    (env.socket_mode()) and the devargs do not choose already."""
    if (env.socket_mode() == "copy" and vdev.startswith("net_af_xdp")
            and "force_copy=" not in vdev):
        return vdev + ",force_copy=1"
    return vdev


def asks_copy(vdev):
    """The devargs choose copy mode: force_copy=1, or mode=skb (the driver
    binds generic XDP's sockets in copy mode)."""
    args = vdev.split(",")
    return "force_copy=1" in args or "mode=skb" in args


def secondary_eal_args(file_prefix):
    """EAL arguments for a secondary process attaching to the primary of
    `file_prefix`: same plugin; memory and devices come from the primary."""
    args = ["--no-pci", "--file-prefix", file_prefix]
    p = env.plugin()
    if p:
        args += ["-d", p]
    return args


class TestPmd:
    """`wrapper`: a command line that runs testpmd's (e.g. setpriv ... to run
    it as another user); `plugin`: see eal_args; `check_mode=False`: the test
    checks the ports' socket mode itself (AFXDP_SOCKET_MODE=zero-copy, where
    the kernel cannot give a port zero-copy: see check_zero_copy)."""

    def __init__(self, ns, vdevs, *, fwd="rxonly", queues=1, huge_dir=None, mem_mb=None,
                 total_mbufs=16384, lcores="0,1", eal_extra=(), app_extra=(), label=None,
                 wrapper=(), plugin=None, check_mode=True):
        cleanup.install()
        self.ns = ns
        self.vdevs = list(vdevs)
        self.check_mode = check_mode
        self.file_prefix = new_file_prefix()
        self.label = label or "testpmd[%s]" % self.file_prefix
        # --no-mlockall: testpmd otherwise locks every page it maps (its heap
        # and a hundred DPDK libraries) at start, 3 s of page faults under
        # the VM's emulated CPU; AF_XDP's UMEM is pinned by the kernel anyway.
        app = ["-i", "--forward-mode=%s" % fwd, "--nb-cores=1", "--no-mlockall",
               "--total-num-mbufs=%d" % total_mbufs]
        if queues != 1:
            app += ["--rxq=%d" % queues, "--txq=%d" % queues]
        self.argv = (list(wrapper) + [env.testpmd_path()]
                     + eal_args(ns, vdevs, file_prefix=self.file_prefix, huge_dir=huge_dir,
                                mem_mb=mem_mb, lcores=lcores, extra=eal_extra, plugin=plugin)
                     + ["--"] + app + list(app_extra))
        self.proc = None
        self.master = None
        self.transcript = ""
        self._pos = 0          # start of the part not yet consumed by a command
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._carry = ""       # an escape sequence cut by a read
        self.startup_output = ""
        self.returncode = None
        self._undo = None
        self.report = True     # print the transcript if the test fails
        INSTANCES.append(self)

    # --- life cycle ----------------------------------------------------------

    def command_line(self):
        return "ip netns exec %s %s" % (self.ns.name, " ".join(self.argv))

    def __enter__(self):
        if self.proc is None:
            self.start()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def start(self, expect_prompt=True, timeout=STARTUP_TIMEOUT):
        """Run testpmd and wait for its first prompt (or for it to exit, if
        expect_prompt is False and it does)."""
        self.launch()
        return self.wait_started(expect_prompt, timeout)

    def launch(self):
        """Run testpmd, not waiting for it (wait_started() does): several
        started at once wait out their start-up together."""
        env.log("%s: %s" % (self.label, self.command_line()))
        master, slave = pty.openpty()
        tty.setraw(slave)
        self._undo = cleanup.push(self.label, self._close)
        try:
            with env.signals_deferred():
                self.proc = env.popen(self.argv, ns=self.ns.name, register=False, stdin=slave,
                                      stdout=slave, stderr=slave, start_new_session=True)
                self.master = master
        finally:
            os.close(slave)
        os.set_blocking(master, False)

    def wait_started(self, expect_prompt=True, timeout=STARTUP_TIMEOUT):
        """Wait for the first prompt of a launch()ed testpmd (see start());
        touches nothing but this testpmd, so it may run on a thread of its
        own beside other testpmds' (not the clean-up stack)."""
        at = self._read_until_prompt(timeout, what="first prompt")
        self.startup_output = self.transcript[:at] if at >= 0 else self.transcript
        if at >= 0:
            self._pos = at + len(PROMPT)
            if env.socket_mode() == "zero-copy" and self.check_mode:
                self.check_zero_copy()
        elif expect_prompt:
            raise TestPmdError("%s exited (code %s) before its first prompt"
                               % (self.label, self.returncode))
        return self

    def check_zero_copy(self):
        """Every socket of every port is in zero-copy mode (the port's state
        block: what the driver read back with XDP_OPTIONS), or TestPmdError;
        but for the ports whose devargs ask for copy mode (the test's choice:
        asks_copy) and those whose start failed (which the test expects, or
        sees itself)."""
        for port in range(self.port_count()):
            if port < len(self.vdevs) and asks_copy(self.vdevs[port]):
                continue
            block = state.read(self, port)
            if block.get("state") != "started":
                continue        # its start failed: what the test looks at
            modes = state.socket_modes(block)
            if not modes or set(modes) != {"zero-copy"}:
                raise TestPmdError("%s: AFXDP_SOCKET_MODE=zero-copy but port %d's sockets "
                                   "are %s" % (self.label, port, modes))
        env.log("%s: every port in zero-copy mode" % self.label)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def _read_some(self, timeout):
        """Read what is available within `timeout`; False once the pty is closed."""
        if self.master is None:
            return False
        r, _, _ = select.select([self.master], [], [], timeout)
        if not r:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError as e:
            if e.errno == errno.EIO:        # all slave ends closed: testpmd is gone
                return False
            raise
        if not data:
            return False
        text = self._carry + self._decoder.decode(data)
        m = _ANSI_PARTIAL.search(text)
        self._carry = text[m.start():] if m else ""
        self.transcript += dpdk_output.clean(text[:m.start()] if m else text)
        return True

    def _read_until_prompt(self, timeout, what, since=0):
        """Read until a prompt appears at or after `since`; its index, or -1
        if testpmd exited first. The forwarding lcores may print after the
        prompt (`set verbose`), so the prompt need not end the output."""
        deadline = env.deadline(timeout)
        while True:
            at = self.transcript.find(PROMPT, since)
            if at >= 0:
                return at
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise TestPmdError("%s: no %s within %ss (killed)"
                                   % (self.label, what, timeout))
            if not self._read_some(min(left, 0.5)):
                self._reap()
                return -1

    def _reap(self, timeout=10):
        if self.proc is None:
            return
        try:
            self.returncode = self.proc.wait(env.scaled(timeout))
        except Exception:
            self.kill()

    def cmd(self, text, timeout=COMMAND_TIMEOUT):
        """Send one command; return its output (without the echo and the prompt)."""
        if not self.alive():
            raise TestPmdError("%s is not running (exit code %s); cannot send %r"
                               % (self.label, self.returncode, text))
        start = len(self.transcript)
        self._pos = start
        os.write(self.master, (text + "\n").encode())
        # The line editor echoes what we typed: the output starts after that line.
        deadline = env.deadline(timeout)
        while self.transcript.find("\n", start) < 0:
            if time.monotonic() > deadline or not self._read_some(0.2):
                break
        nl = self.transcript.find("\n", start)
        echo_end = nl + 1 if nl >= 0 and text.strip() in self.transcript[start:nl] else start
        at = self._read_until_prompt(max(deadline - time.monotonic(), 1),
                                     what="prompt after %r" % text, since=echo_end)
        if at < 0:
            raise TestPmdError("%s exited (code %s) during %r"
                               % (self.label, self.returncode, text))
        out = self.transcript[echo_end:at]
        self._pos = at + len(PROMPT)
        return out

    def quit(self, timeout=QUIT_TIMEOUT):
        """`quit` and wait for testpmd to exit; returns (exit code, output)."""
        start = len(self.transcript)
        if not self.alive():
            raise TestPmdError("%s is not running (exit code %s); cannot quit"
                               % (self.label, self.returncode))
        os.write(self.master, b"quit\n")
        deadline = env.deadline(timeout)
        while self._read_some(0.5):
            if time.monotonic() > deadline:
                self.kill()
                raise TestPmdError("%s: did not exit within %ss of quit (killed)"
                                   % (self.label, timeout))
        self._reap()
        self._close_pty()
        return self.returncode, self.transcript[start:]

    def wait_output(self, pattern, count, timeout=20, settle=0.5, since=None):
        """Read (sending nothing) until `pattern` has matched `count` times in
        the output since the last command (or since transcript position
        `since`), then until testpmd has been quiet for `settle` seconds;
        returns all matches. For output the forwarding lcores print on their
        own (`set verbose 1`). The deadline only guards against a hang.

        Send no command while such output flows: the line editor writes its
        prompt one character at a time and the lcores' lines land in the
        middle of it, so the prompt may never be recognised. Waiting here for
        the quiet period is what makes the next command safe."""
        rx = re.compile(pattern)
        since = self._pos if since is None else since
        deadline = env.deadline(timeout)
        while len(rx.findall(self.transcript, since)) < count:
            if time.monotonic() > deadline or not self._read_some(0.2):
                break
        quiet_since, size = time.monotonic(), len(self.transcript)
        while time.monotonic() - quiet_since < settle and time.monotonic() < deadline + timeout:
            if not self._read_some(0.1):
                break
            if len(self.transcript) != size:
                quiet_since, size = time.monotonic(), len(self.transcript)
        return rx.findall(self.transcript, since)

    def drain(self):
        """Read what testpmd has printed so far (sending nothing); the
        transcript's length after."""
        while self.master is not None and select.select([self.master], [], [], 0)[0]:
            if not self._read_some(0):
                break
        return len(self.transcript)

    def kill(self):
        """End testpmd: `quit` first (testpmd closes its ports, so the driver
        detaches its XDP program; typed ahead, it also works while testpmd is
        still starting, when it ignores SIGTERM), then SIGTERM, then SIGKILL.
        Not env.end_process: `quit` comes first, the signals go to testpmd's
        session, and its pty is drained meanwhile (a full pty blocks it)."""
        if self.proc is None or self.proc.poll() is not None:
            self._reap(1)
            return
        steps = [(None, QUIT_GRACE), (signal.SIGTERM, KILL_GRACE), (signal.SIGKILL, KILL_GRACE)]
        for sig, grace in steps:
            try:
                if sig is None:
                    if self.master is None:
                        continue
                    os.write(self.master, b"\nquit\n")
                else:
                    os.killpg(self.proc.pid, sig)
            except (ProcessLookupError, OSError):
                pass
            deadline = env.deadline(grace)
            while time.monotonic() < deadline and self.proc.poll() is None:
                if not self._read_some(0.1):
                    time.sleep(0.05)
            if self.proc.poll() is not None:
                break
        self.returncode = self.proc.poll()
        env.log("%s: ended by %s (exit %s)" % (
            self.label, {None: "quit", signal.SIGTERM: "SIGTERM", signal.SIGKILL: "SIGKILL"}[sig],
            self.returncode))

    def _close_pty(self):
        if self.master is not None:
            while self._read_some(0):
                pass
            os.close(self.master)
            self.master = None

    def close(self):
        """Kill testpmd if still running, close the pty, remove EAL's runtime files."""
        if self._undo is not None:
            cleanup.release(self._undo)
        else:
            self._close()

    def _close(self):
        self.kill()
        self._close_pty()
        remove_runtime_dir(self.file_prefix)

    def tail(self, n=TRANSCRIPT_TAIL):
        t = self.transcript
        head = "----- %s output%s -----\n" % (self.label, " (last %d characters)" % n if len(t) > n else "")
        return head + t[-n:] + "\n----- end of %s output -----" % self.label

    # --- parsed commands ----------------------------------------------------------

    def port_stats(self, port=0):
        """`show port stats`: {'RX-packets': n, 'RX-missed': n, 'RX-bytes': n, ...}."""
        out = self.cmd("show port stats %d" % port)
        stats = dpdk_output.port_stats(out).get(port, {})
        if "RX-packets" not in stats:
            raise TestPmdError("%s: cannot parse `show port stats %d`:\n%s" % (self.label, port, out))
        return stats

    def xstats(self, port=0):
        """`show port xstats`: {name: value} in the order listed."""
        out = self.cmd("show port xstats %d" % port)
        return dpdk_output.xstats(out).get(port, {})

    def where_lost(self, ports=(0, 1)):
        """The ports' xstats that say where a frame was lost or held
        (dpdk_output.loss_xstats), a line each: for a failed check's report."""
        return "\n".join(dpdk_output.loss_xstats(p, self.xstats(p)) for p in ports)

    def port_info(self, port=0):
        """`show port info`: {'Link status': 'up', 'MTU': '1500', ...}."""
        out = self.cmd("show port info %d" % port)
        info = dpdk_output.colon_lines(out)
        if "Link status" not in info:
            raise TestPmdError("%s: cannot parse `show port info %d`:\n%s" % (self.label, port, out))
        return info

    def mempool(self, name):
        """`dump_mempool <name>` (`dump mempool` from 25.11): {'size', 'populated_size', 'cache_size',
        'total_cache_count', 'common_pool_count', 'avail'}. `avail` is what
        rte_mempool_avail_count() returns: the common pool plus every lcore's
        cache (an mbuf in a cache is free, though not in the common pool)."""
        out = self.cmd("dump_mempool %s" % name)
        if "Command not found" in out:      # testpmd 25.11 spells it in two words
            out = self.cmd("dump mempool %s" % name)
        info = {}
        for key in ("size", "populated_size", "cache_size", "total_cache_count",
                    "common_pool_count"):
            m = re.search(r"^\s*%s=(\d+)\s*$" % key, out, re.M)
            if m:
                info[key] = int(m.group(1))
        if "size" not in info or "common_pool_count" not in info:
            raise TestPmdError("%s: cannot parse `dump_mempool %s`:\n%s" % (self.label, name, out))
        info.setdefault("total_cache_count", 0)     # a pool without caches lists none
        info["avail"] = info["common_pool_count"] + info["total_cache_count"]
        return info

    def rx_pool(self, port=0):
        """The name of the mempool of the port's Rx queue 0 (`show rxq info`)."""
        out = self.cmd("show rxq info %d 0" % port)
        m = re.search(r"^\s*Mempool:\s*(\S+)", out, re.M)
        if not m:
            raise TestPmdError("%s: no mempool in `show rxq info %d 0`:\n%s"
                               % (self.label, port, out))
        return m.group(1)

    def wait_rx_growth(self, base, port=0, timeout=10):
        """Poll RX-packets until it exceeds `base` (the deadline only against
        a hang); returns the last value."""
        deadline = env.deadline(timeout)
        while True:
            now = self.port_stats(port)["RX-packets"]
            if now > base or time.monotonic() > deadline:
                return now
            time.sleep(0.1)

    def wait_rx_quiet(self, port=0, quiet=0.5, timeout=10):
        """Poll RX-packets until it has not changed for `quiet` seconds (a
        stream has drained; the deadline only against a hang); the last value."""
        last, since = self.port_stats(port)["RX-packets"], time.monotonic()
        deadline = env.deadline(timeout)
        while time.monotonic() - since < quiet and time.monotonic() < deadline:
            time.sleep(0.1)
            now = self.port_stats(port)["RX-packets"]
            if now != last:
                last, since = now, time.monotonic()
        return last

    def port_count(self):
        out = self.cmd("show port summary all")
        m = re.search(r"Number of available ports:\s*(\d+)", out)
        if not m:
            raise TestPmdError("%s: cannot parse `show port summary all`:\n%s" % (self.label, out))
        return int(m.group(1))

    def wait_rx(self, port, packets, timeout=15, settle=0.5):
        """Poll `show port stats` until RX-packets + RX-missed reaches `packets`
        (a deadline only against a hang: no timing is asserted), then `settle`
        seconds more so that extra frames would show. Returns the last stats."""
        deadline = env.deadline(timeout)
        while True:
            st = self.port_stats(port)
            if st["RX-packets"] + st.get("RX-missed", 0) >= packets or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        time.sleep(settle)
        return self.port_stats(port)


def run_secondary(ns, argv, timeout=60):
    """Run a DPDK secondary process (e.g. dpdk-proc-info) to completion."""
    cp = env.run(argv, ns=ns.name, check=False, timeout=timeout)
    return cp.returncode, dpdk_output.clean(cp.stdout + cp.stderr)
