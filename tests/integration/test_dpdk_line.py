#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpdk_line: the plugin runs in the DPDK line it was built for, and another
line's plugin is refused with the reason.

The plugin is built against DPDK's internal driver interfaces, which change
between LTS lines (drivers/net/af_xdp/af_xdp_version.c). Loaded with -d into
another line's dpdk-testpmd, it brings its own line's libraries along (other
SONAMEs) and registers its driver with a vdev bus nobody probes.

    netns dut: testpmd rxonly, net_af_xdp0 on d0 == veth == g0 (netns gen)

Checks, with this build's dpdk-testpmd:
- this build's plugin drives the port: the program attached to d0 carries our
  owner mark, with testpmd's pid (bpftool);
- for each plugin of AFXDP_LINE_PLUGINS (scripts/test.sh: the plugins built
  for each DPDK line) built for another line (the SONAME of the librte_eal
  each links, readelf): no program with our mark is attached to d0 or owned
  by that testpmd, and its output names both versions and where to build the
  plugin for this line (the refusal message, which must name the fix). The
  other line's libraries, loaded beside the process's own, may make EAL fail
  (two sets of trace points of one name): then testpmd exits, which is
  allowed; a hang is not;
- testpmd quits with 0 with its own plugin, and no XDP program is left.
A run with no plugin of another line is a SKIP, with the reason.
"""

import os

from afxdp_test import bpf, env, runner, testpmd, topo


def line_of(path):
    """The DPDK ABI major (23 for 22.11) that the ELF file at `path` links."""
    return int(env.linked_library(path, "librte_eal").rsplit(".", 1)[1])


def our_marks_on(iface, tp):
    """Our marked programs attached to `iface` or owned by testpmd `tp`."""
    attached = bpf.attached_prog_id(iface)
    return [p for p in bpf.marked_programs()
            if p["id"] == attached or p["pid"] == tp.proc.pid]


def run_testpmd(t, net, dut, port, plugin, label):
    """testpmd with `plugin`: (its output, our marked programs seen, its pid
    if it reached its prompt, else None). Another line's libraries, loaded with the plugin,
    may make EAL itself fail (duplicate trace points): an exit is allowed,
    a hang or a leftover is not."""
    tp = testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly",
                         plugin=env.stage_plugin(plugin), label=label, check_mode=False)
    tp.start(expect_prompt=False)
    with tp:
        marks = our_marks_on(port, tp)
        prompt = tp.alive()
        if prompt:
            rc, _ = tp.quit()
            t.check(rc == 0, "%s: testpmd quits with 0" % label, "exit %s" % rc)
        else:
            env.log("%s: testpmd exited with %s before its prompt" % (label, tp.returncode))
    t.check(not net.check_no_xdp(), "%s: no XDP program left" % label)
    return tp.startup_output, marks, tp.proc.pid if prompt else None


def main(t):
    own = env.plugin()
    if own is None:
        raise env.Skip("the stock driver has no version check of ours (AFXDP_PLUGIN unset)")
    here = line_of(env.testpmd_path())
    others = [p for p in (os.environ.get("AFXDP_LINE_PLUGINS") or "").split(":")
              if p and os.path.isfile(p) and line_of(p) != here]
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, _ = net.veth(dut, "d0", gen, "g0")

        _, marks, pid = run_testpmd(t, net, dut, port, own, "testpmd[own plugin]")
        t.check(pid is not None and [m["pid"] for m in marks] == [pid],
                "this line's plugin (ABI %d) drives d0: our marked program, testpmd's pid" % here,
                "marked programs: %s" % marks)
        if not others:
            raise env.Skip("no plugin of another DPDK line in AFXDP_LINE_PLUGINS (scripts/test.sh "
                           "sets it when it builds the other lines)")
        for plugin in others:
            label = "testpmd[ABI %d plugin]" % line_of(plugin)
            output, marks, _ = run_testpmd(t, net, dut, port, plugin, label)
            t.check(not marks, "%s: the plugin of ABI %d drives no port here" % (label, line_of(plugin)),
                    "marked programs: %s" % marks)
            refusal = [ln for ln in output.splitlines() if "was built for DPDK" in ln]
            t.check(refusal and "scripts/dpdk-build.sh" in refusal[0],
                    "%s: the output names both versions and the fix" % label,
                    refusal[0] if refusal else output[-600:])


if __name__ == "__main__":
    runner.run(main, "dpdk_line", __doc__.splitlines()[0])
