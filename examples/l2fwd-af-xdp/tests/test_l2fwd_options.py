#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""l2fwd options: bad ones are refused clearly and leave nothing; stops by --duration and signals are clean.

Two veths in a namespace dut (their peers in another). For each case of the
tables below, the forwarder must exit by itself with the exit code given and a
message containing the text given, leaving no XDP program on any interface:
  DPDK_CASES  l2fwd-af-xdp (over the harness's driver): application options,
              a missing interface (EAL's probe fails), too few lcores for -q;
  XDP_CASES   l2fwd-xdp: options and interfaces.
Then, for each program: --help exits 0; --duration 1 -T 0 --json exits 0 by
itself with one final JSON statistics line; SIGTERM stops it with exit 0 and
the final statistics. l2fwd-xdp only: an interface with another program
attached (`ip link ... xdp obj`) is refused (exit 1, naming the cause), the
other interface is left without a program and the foreign one stays; after
SIGKILL no program is left (BPF links die with the process).
"""

import signal
import time

from afxdp_test import bpf, cleanup, env, l2fwd, runner, topo

USAGE, RUNTIME = 2, 1
MAC = "02:00:00:00:00:05"

# (application arguments, EAL lcores, exit code, text the output must contain)
DPDK_CASES = [
    (["-q", "0"], "1", USAGE, "'0' for -q: out of range, expected 1..16"),
    (["-q", "two"], "1", USAGE, "'two' for -q: not a number"),
    (["--burst", "65"], "1", USAGE, "'65' for --burst: out of range, expected 1..64"),
    (["--burst", "0"], "1", USAGE, "'0' for --burst: out of range"),
    (["-T", "86401"], "1", USAGE, "'86401' for -T: out of range, expected 0..86400"),
    (["-p", "0x4"], "1", USAGE, "-p 0x4: there is no port 2"),
    (["-p", "0x1"], "1", USAGE, "ports are forwarded in pairs, give an even number"),
    (["-p", "xyz"], "1", USAGE, "'xyz' for -p: expected a non-zero hexadecimal port mask"),
    (["--peer-mac", "0,02:00:00:00:00"], "1", USAGE, "not a MAC address after the ','"),
    (["--peer-mac", "02:00:00:00:00:01"], "1", USAGE, "for --peer-mac:"),
    (["--peer-mac", "5," + MAC], "1", USAGE, "port 5 is not forwarded"),
    (["--rxd", "0"], "1", USAGE, "'0' for --rxd: out of range"),
    (["--duration", "soon"], "1", USAGE, "'soon' for --duration"),
    (["--bogus"], "1", USAGE, "unrecognized option '--bogus'"),
    (["extra"], "1", USAGE, "unexpected argument 'extra'"),
    # Two ports, one per lcore, one lcore.
    (["-q", "1"], "1", USAGE, "2 ports at 1 per lcore (-q) need 2 lcores; EAL has 1"),
]

# (arguments before the interfaces, interfaces by role or name, exit code, text)
XDP_CASES = [
    ([], [], USAGE, "no interfaces: give them in pairs"),
    ([], ["p0"], USAGE, "1 interface given: they are forwarded in pairs"),
    ([], ["p0", "p0"], USAGE, "given twice"),
    ([], ["p0", "NOSUCH"], USAGE, "no such interface in this network namespace"),
    ([], ["p0", "lo"], USAGE, "'lo': not an Ethernet interface"),
    (["-T", "x"], ["p0", "p1"], USAGE, "'x' for -T: not a number"),
    (["--peer-mac", "7," + MAC], ["p0", "p1"], USAGE, "neither a port number"),
    (["--peer-mac", "0;" + MAC], ["p0", "p1"], USAGE, "expected PORT,MAC"),
    (["--peer-mac", "p9," + MAC], ["p0", "p1"], USAGE, "neither a port number"),
    (["--duration", "-1"], ["p0", "p1"], USAGE, "'-1' for --duration"),
    (["--bogus"], ["p0", "p1"], USAGE, "unrecognized option '--bogus'"),
]

FOREIGN_OBJ = "xdp_no_xsks_map"      # any XDP object of the integration tests


def expect_exit(t, net, fwd, code, text, what):
    fwd.start(wait_ready=False)
    rc = fwd.wait_exit()
    out = fwd.output()
    ok = t.equal(rc, code, "%s: exit code" % what)
    ok &= t.check(text in out, "%s: says %r" % (what, text), fwd.tail(1500))
    left = net.check_no_xdp()
    ok &= t.check(not left, "%s: no XDP program left" % what, "\n".join(left))
    if not ok:
        env.log(fwd.tail(1500))
    fwd.close()


def clean_stops(t, net, make, what):
    """--help, --duration, SIGTERM."""
    fwd = make(["--help"])
    fwd.start(wait_ready=False)
    t.equal(fwd.wait_exit(), 0, "%s --help: exit code" % what)
    t.check("usage:" in fwd.output(), "%s --help: prints the usage" % what)
    fwd.close()

    fwd = make(["--duration", "1", "-T", "0", "--json"])
    fwd.start()
    rc = fwd.wait_exit()
    stats = l2fwd.json_lines(fwd.output())
    t.equal(rc, 0, "%s --duration 1: exits by itself, exit code" % what)
    t.check(len(stats) == 1 and stats[0]["final"] is True,
            "%s --duration 1 -T 0 --json: one final JSON statistics line" % what, fwd.tail(1500))
    left = net.check_no_xdp()
    t.check(not left, "%s --duration 1: no XDP program left" % what, "\n".join(left))
    fwd.close()

    fwd = make(["-T", "1"])
    fwd.start()
    rc = fwd.stop(signal.SIGTERM)
    t.equal(rc, 0, "%s: exit code after SIGTERM" % what)
    t.check(l2fwd.parse_final_table(fwd.output()) is not None,
            "%s: final statistics after SIGTERM" % what, fwd.tail(1500))
    left = net.check_no_xdp()
    t.check(not left, "%s: no XDP program left after SIGTERM" % what, "\n".join(left))
    fwd.close()


def foreign_program(t, net, dut, p0, p1):
    try:
        obj = bpf.obj(FOREIGN_OBJ)
    except env.Skip as e:
        env.log("not checked: an interface with another XDP program (%s)" % e)
        return
    prog_id, undo = bpf.attach_object(p1, obj)
    what = "l2fwd-xdp, another program on %s" % p1.name
    fwd = l2fwd.Forwarder.xdp(dut, [p0, p1], [])
    fwd.start(wait_ready=False)
    t.equal(fwd.wait_exit(), RUNTIME, "%s: exit code" % what)
    t.check("cannot attach to %s: another XDP program is attached" % p1.name in fwd.output(),
            "%s: says another XDP program is attached to it" % what, fwd.tail(1500))
    t.equal(bpf.attached_prog_id(p0), None, "%s: no program left on %s" % (what, p0.name))
    t.equal(bpf.attached_prog_id(p1), prog_id, "%s: the foreign program stays" % what)
    fwd.close()
    cleanup.release(undo)


def sigkill(t, net, dut, p0, p1):
    what = "l2fwd-xdp, SIGKILL"
    fwd = l2fwd.Forwarder.xdp(dut, [p0, p1], ["-T", "0"])
    fwd.start()
    t.check(p0.xdp() is not None and p1.xdp() is not None, "%s: attached before" % what)
    fwd.stop(signal.SIGKILL)
    # The kernel closes the links as the process's files go: shortly after.
    deadline = time.monotonic() + 10
    while net.check_no_xdp() and time.monotonic() < deadline:
        time.sleep(0.1)
    left = net.check_no_xdp()
    t.check(not left, "%s: no XDP program left" % what, "\n".join(left))
    fwd.close()


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        p0, _ = net.veth(dut, "p0", gen, "g0")
        p1, _ = net.veth(dut, "p1", gen, "g1")
        missing = "%s%snope" % (env.IFACE_PREFIX, env.run_id())

        for args, lcores, code, text in DPDK_CASES:
            fwd = l2fwd.Forwarder.dpdk(dut, [p0, p1], args, lcores=lcores)
            expect_exit(t, net, fwd, code, text, "l2fwd-af-xdp %s" % " ".join(args))
        # EAL's probe of the vdev fails: the driver names the interface.
        fwd = l2fwd.Forwarder.dpdk(dut, [p0, missing], ["-q", "2"])
        fwd.start(wait_ready=False)
        rc = fwd.wait_exit()
        t.check(rc != 0, "l2fwd-af-xdp with iface=%s: exit code %d, not 0" % (missing, rc))
        t.check(missing in fwd.output(), "l2fwd-af-xdp with iface=%s: the output names it"
                % missing, fwd.tail(1500))
        t.check(not net.check_no_xdp(), "l2fwd-af-xdp with iface=%s: no XDP program left"
                % missing)
        fwd.close()
        clean_stops(t, net, lambda args: l2fwd.Forwarder.dpdk(dut, [p0, p1], ["-q", "2"]
                                                                  + args), "l2fwd-af-xdp")

        roles = {"p0": p0, "p1": p1, "NOSUCH": missing, "lo": "lo"}
        for args, ifaces, code, text in XDP_CASES:
            fwd = l2fwd.Forwarder.xdp(dut, [roles[r] for r in ifaces], args)
            expect_exit(t, net, fwd, code, text, "l2fwd-xdp %s" % " ".join(
                args + [l2fwd.iface_name(roles[r]) for r in ifaces]))
        clean_stops(t, net, lambda args: l2fwd.Forwarder.xdp(dut, [p0, p1], args),
                    "l2fwd-xdp")
        foreign_program(t, net, dut, p0, p1)
        sigkill(t, net, dut, p0, p1)


if __name__ == "__main__":
    runner.run(main, "l2fwd-options", __doc__.splitlines()[0])
