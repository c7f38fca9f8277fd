# SPDX-License-Identifier: BSD-3-Clause
"""Port stop/start cycles in a running testpmd: the one loop of the restart
tests (restart, restart_shared_prog, port_cycles, soak, and those of jumbo
and copy_umem).

    res = cycles.run(tp, 200)                                  # back to back
    res = cycles.run(tp, 50, attach=vdev)                      # detach/attach too
    res = cycles.run(tp, 5, forwarding=True, hooks=Hooks(stopped=check))
    res = cycles.run(tp, 500, forwarding=True, batch=50)       # through `load`
    res = cycles.run(tp, 3, port="all", forwarding=True,       # every port, under
                     hooks=stream_hooks(t, tp, h0, p0, ...))   # a stream
    t.equal(res.failed, 0, ...)

A cycle is `port stop <p>` and `port start <p>` (<p> a port, or "all");
with `forwarding`, `stop` before and `start` after (testpmd stops a port
only when it does not forward); with `attach=<devargs>`, `port detach <p>`
and `port attach <devargs>` between the two (testpmd 22.11 cannot attach a
name again after `port close`). testpmd's output says what happened: "Stopping ports..." at
each stop, "Port <p>: <MAC>" at each start that succeeded, "Fail to start
port" at each that did not, "Port <p> is attached" at each attach.

`hooks` run the test's own checks in each cycle: `around(i)` a context
manager the cycle runs in (a background stream), `before_stop(i)` (frames
arrive), `stopped(i)` (the port is stopped: XDP program, mbufs, the kernel
stack), `started(i)` (right after the start), `after(i)` (after `around`).
A hook returning False ends the cycles (the test has seen enough). Without
hooks, `batch=N` sends the commands of N cycles at a time in a file read by
testpmd's `load`: one round trip per file instead of two per cycle, what
makes hundreds of cycles affordable under an emulated CPU (`load` echoes
nothing: the counts come from the output alone).
"""

import contextlib
import os
import re
import time

from . import dpdk_output, env, traffic

FAILED = "Fail to start port"
BATCH_TIMEOUT = 300          # seconds per `load` file: only against a hang


STOPPED = re.compile(r"^Stopping ports\.\.\.$", re.M)


def _started_re(port):
    number = r"\d+" if port == "all" else str(port)
    return re.compile(r"^Port %s: [0-9A-F]{2}(:[0-9A-F]{2}){5}$" % number, re.M)


class Hooks:
    def __init__(self, around=None, before_stop=None, stopped=None, started=None, after=None):
        self.around = around or (lambda i: contextlib.nullcontext())
        self.before_stop, self.stopped = before_stop, stopped
        self.started, self.after = started, after


class Result:
    """What `run` saw: cycles done, stops and starts testpmd showed, starts
    (and attaches) that failed, with the cycle numbers where known."""

    def __init__(self, ports=1):
        self.ports = ports           # started at each cycle: 1, or all of testpmd's
        self.cycles = self.stops = self.starts = self.failed = 0
        self.failed_cycles = []
        self.reasons = []
        self.seconds = 0.0

    def __repr__(self):
        return ("%d cycles in %.1f s: %d stops and %d starts shown, %d failed%s"
                % (self.cycles, self.seconds, self.stops, self.starts, self.failed,
                   " (cycles %s)" % self.failed_cycles if self.failed_cycles else ""))

    def all_ok(self):
        return (self.failed == 0 and self.stops == self.cycles
                and self.starts == self.cycles * self.ports)


def commands(port, forwarding=False, attach=None):
    """(commands up to the stopped port, commands from there to the start)."""
    down = (["stop"] if forwarding else []) + ["port stop %s" % port]
    up = ["port start %s" % port] + (["start"] if forwarding else [])
    if attach:
        if port == "all":
            raise env.HarnessError("cycles: attach takes one port, not all")
        down += ["port detach %d" % port]
        up = ["port attach %s" % attach] + up
    return down, up


def _count(res, out, port, attach, k, cycle=None):
    """Add what the output of k cycles shows to `res`."""
    failed = out.count(FAILED)
    if attach:
        failed += max(k - out.count("Port %d is attached" % port), 0)
    res.stops += len(STOPPED.findall(out))
    res.starts += len(_started_re(port).findall(out))
    res.failed += failed
    if failed and cycle is not None:
        res.failed_cycles.append(cycle)
        res.reasons += dpdk_output.problem_lines(out)


def run(tp, n, port=0, *, forwarding=False, attach=None, hooks=None, batch=None,
        stop_on_failure=False):
    """n stop/start cycles of `port` (a number or "all") in testpmd `tp`: a Result."""
    res = Result(tp.port_count() if port == "all" else 1)
    down, up = commands(port, forwarding, attach)
    t0 = time.monotonic()
    if batch:
        if hooks:
            raise env.HarnessError("cycles.run: hooks need a round trip per cycle, not batch")
        path = os.path.join(env.run_dir(), "cycles-%s.txt" % tp.file_prefix)
        while res.cycles < n:
            k = min(batch, n - res.cycles)
            with open(path, "w") as f:
                f.write("\n".join((down + up) * k) + "\n")
            b0 = time.monotonic()
            out = tp.cmd("load %s" % path, timeout=BATCH_TIMEOUT)
            res.cycles += k
            _count(res, out, port, attach, k)
            env.log("cycles %d..%d: %.1f s (%.2f s a cycle), %d failed starts"
                    % (res.cycles - k + 1, res.cycles, time.monotonic() - b0,
                       (time.monotonic() - b0) / k, res.failed))
        os.unlink(path)
        res.seconds = time.monotonic() - t0
        return res
    hooks = hooks or Hooks()
    for i in range(1, n + 1):
        go_on = True
        with hooks.around(i):
            if hooks.before_stop and hooks.before_stop(i) is False:
                go_on = False
            out = "".join(tp.cmd(c) for c in down)
            if go_on and hooks.stopped and hooks.stopped(i) is False:
                go_on = False
            out += "".join(tp.cmd(c) for c in up)
            res.cycles += 1
            failed_before = res.failed
            _count(res, out, port, attach, 1, cycle=i)
            if res.failed > failed_before:
                env.log("cycle %d: %s" % (i, "; ".join(dpdk_output.problem_lines(out))))
                if stop_on_failure:
                    go_on = False
            if go_on and hooks.started and hooks.started(i) is False:
                go_on = False
        if go_on and hooks.after and hooks.after(i) is False:
            go_on = False
        if not go_on:
            break
    res.seconds = time.monotonic() - t0
    return res


def stream_hooks(t, tp, src, dst, *, rate, size, before_stop=None, stopped=None, started=None):
    """Hooks for cycles of a forwarding testpmd under a UDP stream from
    interface src to dst, port 0's (traffic.Background: `rate` frames a
    second of `size` bytes): frames arrive at port 0 before each stop and
    after each start (checked: "%d-byte frames arrive after the restart").
    before_stop(i), stopped(i), started(i): the test's own checks, run
    first at those points."""
    def around(i):
        return traffic.Background(src, dst.mac, rate, kind="udp", sizes=[size],
                                  stream="background-%d" % i)

    def arrived(i):
        if before_stop:
            before_stop(i)
        before = tp.port_stats(0)["RX-packets"]
        tp.wait_rx(0, before + 20, settle=0)        # a stream: nothing to settle

    def restarted(i):
        if started:
            started(i)
        before = tp.port_stats(0)["RX-packets"]
        st = tp.wait_rx(0, before + 20, settle=0)
        t.check(st["RX-packets"] > before, "cycle %d: %d-byte frames arrive after the restart"
                % (i, size))

    return Hooks(around=around, before_stop=arrived, stopped=stopped, started=restarted)
