#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""use_cni=1 with a faulty device plugin: the start fails within the driver's deadline, with a message.

The driver gives the device plugin AF_XDP_CNI_TIMEOUT_S (5 s) to take the
connection and to answer each request (af_xdp_cni.c). For each fake plugin
below (lib cni.py), testpmd starts with `use_cni=1,dp_path=<its socket>`
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


def run_case(t, net, dut, port, name, behaviour, answer, wants):
    path = os.path.join(env.run_dir(), "afxdp-dp-%s.sock" % name)
    vdev = "net_af_xdp0,iface=%s,use_cni=1,dp_path=%s" % (port.name, path)
    env.log("--- %s plugin" % name)
    with cni.FakeDevicePlugin(path, -1, host_answer=answer, behaviour=behaviour) as dp:
        tp = testpmd.TestPmd(dut, [vdev], label="testpmd[%s plugin]" % name)
        try:
            took = time_to_prompt(tp)
        except testpmd.TestPmdError as e:
            t.check(False, "%s plugin: testpmd reaches its prompt" % name, str(e))
            tp.close()
            return None
        with tp:
            log = tp.startup_output
            t.require(tp.alive(), "%s plugin: testpmd reaches its prompt (exit code %s)"
                      % (name, tp.returncode), log[-3000:])
            t.check("Fail to start port 0" in log, "%s plugin: port 0 does not start" % name)
            lines = driver_lines(log, path)
            for ln in lines:
                env.log("    | %s" % ln)
            for want in wants:
                t.check(any(want in ln for ln in lines),
                        "%s plugin: a message naming dp_path says %r" % (name, want),
                        "\n".join(dpdk_output.problem_lines(log)))
            env.log("%s plugin: testpmd's prompt %.1f s after launch (requests seen: %s)"
                    % (name, took, dp.requests))
            t.equal(dp.fds_sent, 0, "%s plugin: map fds passed" % name)
            out = tp.cmd("port start 0", timeout=STARTUP_DEADLINE)
            t.check("Fail to start port 0" in out or any(w in out for w in wants),
                    "%s plugin: `port start 0` at the prompt fails too, and returns" % name, out)
            t.quit_testpmd(tp, net)
    return took


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, _ = net.veth(dut, "d0", gen, "g0")
        plain = plain_port(t, dut, port)
        took = {c[0]: run_case(t, net, dut, port, *c) for c in CASES}
        env.log("time from testpmd's launch to its prompt: plain port %.1f s; %s"
                % (plain, "; ".join("%s plugin %s" % (n, "hung" if s is None else "%.1f s" % s)
                                    for n, s in took.items())))


if __name__ == "__main__":
    runner.run(main, "cni_faults", __doc__.splitlines()[0])
