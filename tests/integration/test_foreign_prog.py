#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""a foreign XDP program on the interface: the port refuses to start, names it, and leaves it alone.

An XDP program that is neither the driver's nor managed by libxdp is attached
to the veth the way an operator would (`ip link set dev X xdp obj
bpf/xdp_no_xsks_map.bpf.o`). testpmd then starts with the default devargs:
  - port 0 fails to start, with a message naming the program's id and how to
    remove it (`ip link set dev X xdp off`);
  - the foreign program is still attached (same id) after the failure, and
    after testpmd quits (exit code 0);
then the test removes it.
"""

import re

from afxdp_test import bpf, cleanup, dpdk_output, env, runner, testpmd, topo

FOREIGN_OBJ = "xdp_no_xsks_map"


def main(t):
    obj = bpf.obj(FOREIGN_OBJ)
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, _ = net.veth(dut, "d0", gen, "g0")
        prog_id, undo = bpf.attach_object(port, obj)
        remove_hint = "ip link set dev %s xdp off" % port.name

        vdev = "net_af_xdp0,iface=%s" % port.name
        with testpmd.TestPmd(dut, [vdev], fwd="rxonly") as tp:
            log = tp.startup_output
            t.check("Fail to start port 0" in log, "port 0 does not start with %s" % vdev,
                    "\n".join(dpdk_output.problem_lines(log)))
            lines = [ln.strip() for ln in log.splitlines()
                     if port.name in ln and "xdp" in ln.lower()]
            for ln in lines:
                env.log("    | %s" % ln)
            t.check(any(re.search(r"\bid %d\b" % prog_id, ln) for ln in lines),
                    "a message names the program's id (%d)" % prog_id,
                    "\n".join(dpdk_output.problem_lines(log)))
            t.check(any(remove_hint in ln for ln in lines),
                    "a message says how to remove it (%r)" % remove_hint)
            t.equal(bpf.attached_prog_id(port), prog_id,
                    "XDP program attached to %s after the failed start" % port.name)
            rc, _ = tp.quit()
            t.equal(rc, 0, "%s exit code after quit" % tp.label)
        t.equal(bpf.attached_prog_id(port), prog_id,
                "XDP program attached to %s after testpmd quit" % port.name)
        cleanup.release(undo)
        t.equal(bpf.attached_prog_id(port), None, "XDP program attached once the test removed it")


if __name__ == "__main__":
    runner.run(main, "foreign_prog", __doc__.splitlines()[0])
