#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""use_cni=1 with a faulty device plugin: the start fails within the driver's deadline, with a message.

The driver gives the device plugin AF_XDP_CNI_TIMEOUT_S (5 s) to take the
connection and to answer each request (af_xdp_cni.c). For each fake plugin
below (lib cni.py), all at once (each on a veth of its own, so that they
wait out the driver's deadlines together: 25 s -> 12 s), testpmd starts
with `use_cni=1,dp_path=<its socket>`
and must reach its first prompt (a deadline of several times the driver's
guards against a hang: before the deadlines existed, the first two rows
hung testpmd for good), with port 0 not started and a line of the driver's
that says what happened (the row's substrings: the request, the deadline,
what was expected), naming dp_path; `port start 0` at the prompt fails the
same way; quit exits 0; nothing is left attached. The time from testpmd's
launch to its prompt is logged beside that of a plain port's.

  silent     accepts, reads, never answers: "did not answer /connect,<host> within 5 s"
  no_accept  never accepts, backlog full: "accepted no connection within 5 s"
  garbage    answers 212 bytes of terminal escapes, NUL and 0xff to /connect: the
             answer shown escaped ("\\x1b[31m...\\x00\\xff"), cut with "...", its
             length and "expected /host_ok"
  hang_up    closes the connection after /connect: "closed the connection"
"""

import concurrent.futures
import contextlib
import os
import socket
import time

from afxdp_test import cni, dpdk_output, env, runner, testpmd, topo

DRIVER_DEADLINE = 5          # AF_XDP_CNI_TIMEOUT_S
STARTUP_DEADLINE = 40        # testpmd's first prompt: only against a hang
GARBAGE = b"\x1b[31mHELLO\x00\xff" + b"Z" * 200

# (name, behaviour, answer to /connect, substrings the driver's message must contain)
CASES = [
    ("silent", "silent", "/host_ok",
     ["did not answer /connect,%s within %d s" % (socket.gethostname(), DRIVER_DEADLINE)]),
    ("no_accept", "no_accept", "/host_ok",
     ["accepted no connection within %d s" % DRIVER_DEADLINE]),
    ("garbage", "serve", GARBAGE,
     ['answered "\\x1b[31mHELLO\\x00\\xffZZZ', 'ZZ..." (%d bytes) to /connect,' % len(GARBAGE),
      "expected /host_ok"]),
    ("hang_up", "hang_up", "/host_ok", ["closed the connection"]),
]


def time_to_prompt(tp):
    start = time.monotonic()
    tp.start(expect_prompt=False, timeout=STARTUP_DEADLINE)
    return time.monotonic() - start


def plain_port(t, dut, port):
    tp = testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], label="testpmd[plain]")
    took = time_to_prompt(tp)
    with tp:
        t.require(tp.alive() and "Fail to start port" not in tp.startup_output,
                  "a plain port starts", "\n".join(dpdk_output.problem_lines(tp.startup_output)))
        tp.quit()
    env.log("a plain port: testpmd's prompt %.1f s after launch" % took)
    return took


def driver_lines(text, path):
    return [ln.strip() for ln in text.splitlines() if "dp_path=%s" % path in ln]


def on_threads(fn, items):
    """fn(item) for every item at once, a thread each: the cases' testpmds
    wait out the driver's deadlines together, not one after the other (the
    threads touch only their own testpmd: no clean-up stack, no checks).
    [(value, None) or (None, exception)] in the order of `items`."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(len(items), 1)) as pool:
        futures = [pool.submit(fn, item) for item in items]
    return [(None, f.exception()) if f.exception() else (f.result(), None) for f in futures]


class Case:
    """One fake plugin and its testpmd, on a veth of its own: entered, the
    plugin serves and testpmd is launched; left, both are ended (the
    plugin last), whatever happened between."""

    def __init__(self, net, dut, gen, i, name, behaviour, answer, wants):
        self.name, self.wants = name, wants
        self.port, _ = net.veth(dut, "d%d" % i, gen, "g%d" % i)
        self.path = os.path.join(env.run_dir(), "afxdp-dp-%s.sock" % name)
        self.dp = cni.FakeDevicePlugin(self.path, -1, host_answer=answer, behaviour=behaviour)
        vdev = "net_af_xdp0,iface=%s,use_cni=1,dp_path=%s" % (self.port.name, self.path)
        self.tp = testpmd.TestPmd(dut, [vdev], label="testpmd[%s plugin]" % name)
        self.took = None

    def __enter__(self):
        with contextlib.ExitStack() as stack:
            stack.enter_context(self.dp)
            self.launched = time.monotonic()
            self.tp.launch()
            stack.callback(self.tp.close)
            self._ends = stack.pop_all()
        return self

    def __exit__(self, *exc):
        self._ends.close()

    def wait(self):
        self.tp.wait_started(expect_prompt=False, timeout=STARTUP_DEADLINE)
        self.took = time.monotonic() - self.launched

    def port_start(self):
        return self.tp.cmd("port start 0", timeout=STARTUP_DEADLINE)


def check_started(t, c, error):
    """After its first prompt: port 0 not started, the driver's lines saying why."""
    name = c.name
    if error is not None:
        t.check(False, "%s plugin: testpmd reaches its prompt" % name, str(error))
        return False
    log = c.tp.startup_output
    t.check(c.tp.alive(), "%s plugin: testpmd reaches its prompt (exit code %s)"
            % (name, c.tp.returncode), log[-3000:])
    if not c.tp.alive():
        return False
    t.check("Fail to start port 0" in log, "%s plugin: port 0 does not start" % name)
    lines = driver_lines(log, c.path)
    for ln in lines:
        env.log("    | %s" % ln)
    for want in c.wants:
        t.check(any(want in ln for ln in lines),
                "%s plugin: a message naming dp_path says %r" % (name, want),
                "\n".join(dpdk_output.problem_lines(log)))
    env.log("%s plugin: testpmd's prompt %.1f s after launch (requests seen: %s)"
            % (name, c.took, c.dp.requests))
    t.equal(c.dp.fds_sent, 0, "%s plugin: map fds passed" % name)
    return True


def run_cases(t, net, dut, gen):
    """Every case at once: each testpmd launched, their first prompts and
    their `port start 0` waited for together (the silent and no_accept
    plugins cost the driver's deadline at each), then each case checked and
    quit, and all ended, the last launched first."""
    with contextlib.ExitStack() as stack:
        cases = [stack.enter_context(Case(net, dut, gen, i, *c)) for i, c in enumerate(CASES)]
        started = [check_started(t, c, err) for c, (_, err)
                   in zip(cases, on_threads(Case.wait, cases))]
        live = [c for c, ok in zip(cases, started) if ok]
        outs = dict(zip((c.name for c in live), on_threads(Case.port_start, live)))
        for c in reversed(live):
            out, err = outs[c.name]
            if err is not None:
                t.check(False, "%s plugin: `port start 0` at the prompt returns" % c.name,
                        str(err))
                continue
            t.check("Fail to start port 0" in out or any(w in out for w in c.wants),
                    "%s plugin: `port start 0` at the prompt fails too, and returns" % c.name,
                    out)
            t.quit_testpmd(c.tp, net)
    return {c.name: c.took for c in cases}


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, _ = net.veth(dut, "d", gen, "g")
        plain = plain_port(t, dut, port)
        took = run_cases(t, net, dut, gen)
        env.log("time from testpmd's launch to its prompt: plain port %.1f s; %s"
                % (plain, "; ".join("%s plugin %s" % (n, "hung" if s is None else "%.1f s" % s)
                                    for n, s in took.items())))


if __name__ == "__main__":
    runner.run(main, "cni_faults", __doc__.splitlines()[0])
