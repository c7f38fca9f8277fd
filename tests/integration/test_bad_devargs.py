#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bad devargs: the probe fails at once, names the problem, and leaves nothing behind.

First, valid devargs must probe (one port): that run's output is the baseline
of ordinary lines. Then for each row of CASES, testpmd starts with `--vdev
net_af_xdp0,<devargs>`. Before testpmd's first prompt (PROBE_DEADLINE guards
against a hang), a line of its output that is not in the baseline (so not
"Set rxonly packet forwarding mode" for `mode`) and not a mere echo of the
whole devargs string must contain the row's substring (the bad key, value or
interface); no port may exist (`show
port summary all`: 0 ports; testpmd running without a port is EAL's choice);
`quit` must exit 0; and the interface must carry no XDP program.

Debian's stock driver does not name every problem, accepts some of these
devargs at probe (failing later, or never) and has no `mode`: the summary at
the end lists which rows fail and why.
"""

from afxdp_test import env, runner, testpmd, topo

# --- the cases: adjust the substrings to the driver's messages -----------------
# (devargs after "net_af_xdp0," -- "{iface}" is a 1-queue veth in the test's
#  namespace; substring the error output must contain)
CASES = [
    ("iface=doesnotexist0", "doesnotexist0"),
    ("iface={iface},foo=1", "foo"),
    ("iface={iface},queue_count=0", "queue_count"),
    ("iface={iface},start_queue=7", "start_queue"),
    ("iface={iface},busy_budget=-1", "busy_budget"),
    ("iface={iface},mode=bogus", "mode"),
    ("iface={iface},xdp_prog=/nonexistent.o", "/nonexistent.o"),
    ("", "iface"),                      # no iface at all
]
# -------------------------------------------------------------------------------

PROBE_DEADLINE = 20      # testpmd's first prompt, probe included: only against a hang


def lines_of(tp, vdev):
    """testpmd's start-up output as stripped lines, run-specific names masked."""
    text = tp.startup_output.replace(tp.file_prefix, "<prefix>")
    if "," in vdev:
        text = text.replace(vdev, "<devargs>")
    return [ln.strip() for ln in text.splitlines() if ln.strip()]


def baseline(t, net, dut, port):
    vdev = "net_af_xdp0,iface=%s" % port.name
    env.log("--- baseline: %s must probe" % vdev)
    tp = testpmd.TestPmd(dut, [vdev], fwd="rxonly", label="testpmd[baseline]")
    with tp:
        t.require(tp.port_count() == 1, "valid devargs %s probe one port" % vdev)
        lines = set(lines_of(tp, vdev))
        rc, _ = tp.quit()
        tp.report = False    # its output matters only if it failed
    t.require(rc == 0 and not net.check_no_xdp(), "baseline testpmd quits cleanly, no XDP left")
    return lines


def run_case(t, net, dut, port, ordinary, devargs, want):
    args = devargs.format(iface=port.name)
    vdev = "net_af_xdp0" + ("," + args if args else "")
    env.log("--- case %s (expect %r)" % (vdev, want))
    problems = []
    tp = testpmd.TestPmd(dut, [vdev], fwd="rxonly", label="testpmd[%s]" % (args or "no devargs"))
    tp.report = False        # this test prints the relevant lines itself
    try:
        tp.start(expect_prompt=False, timeout=PROBE_DEADLINE)
    except testpmd.TestPmdError as e:
        problems.append(str(e).splitlines()[0])
    with tp:
        new = [ln for ln in lines_of(tp, vdev) if ln not in ordinary]
        found = [ln for ln in new if want in ln]
        if not found:
            problems.append("no message containing %r" % want)
        if tp.alive():
            ports = tp.port_count()
            if ports != 0:
                problems.append("the probe succeeded (%d port%s)" % (ports, "s" * (ports > 1)))
            rc, _ = tp.quit()
            if rc != 0:
                problems.append("testpmd exited %s after quit" % rc)
        elif not problems:
            problems.append("testpmd exited (code %s) before its prompt" % tp.returncode)
    left = net.check_no_xdp()
    if left:
        problems.append("XDP program left: %s" % "; ".join(left))
    for ln in (found or new)[:6]:
        env.log("    | %s" % ln)
    ok = t.check(not problems, "%s -> %s" % (
        vdev, "probe failed, message names %r" % want if not problems else "; ".join(problems)))
    return vdev, want, ok, problems


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, _ = net.veth(dut, "d0", gen, "g0")
        ordinary = baseline(t, net, dut, port)
        results = [run_case(t, net, dut, port, ordinary, d, w) for d, w in CASES]
        env.log("summary (%s):" % env.driver_description())
        for vdev, want, ok, problems in results:
            env.log("  %-4s %-50s %s" % ("ok" if ok else "FAIL", vdev.replace(port.name, "<veth>"),
                                        "" if ok else "; ".join(problems)))


if __name__ == "__main__":
    runner.run(main, "bad_devargs", __doc__.splitlines()[0])
