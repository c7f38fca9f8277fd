#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""back-to-back restart: `port stop 0` then at once `port start 0` works every time.

An application may restart a port with rte_eth_dev_stop() and
rte_eth_dev_start() back to back. testpmd waits for the link after each
`port stop` (up to one 100 ms interval), which hides any delay the kernel
needs to release the queue; `--disable-link-check` removes that wait, so the
two commands follow each other as in such an application. CYCLES times: the
start must succeed (no "Fail to start port 0"); afterwards N frames arrive.

Found a driver bug (fixed, 780b1d1): about every other start failed with
"queue 0 of <iface> is already used by another AF_XDP socket (another port
or process)" and -EIO. The other socket was the port's own, closed by the
stop: the kernel detaches a closed socket's buffer pool from the queue
asynchronously (xsk_destruct -> xp_put_pool -> schedule_work(xp_release_deferred)
-> xp_clear_dev, under rtnl), so bind() meets EBUSY until that work has
run. The driver now retries an EBUSY bind for a bounded while before
blaming another user; this test keeps it so.
"""

import time

from afxdp_test import dpdk_output, env, runner, testpmd, topo, traffic

CYCLES = 20
RECOVER_TRIES = 20           # starting a port a failure left stopped, RECOVER_GAP apart
RECOVER_GAP = 0.2
SIZES = [60, 1500]
FRAMES = 200


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, peer = net.veth(dut, "d0", gen, "g0")
        with testpmd.TestPmd(dut, ["net_af_xdp0,iface=%s" % port.name], fwd="rxonly",
                             app_extra=["--disable-link-check"]) as tp:
            failed = []
            for i in range(1, CYCLES + 1):
                tp.cmd("port stop 0")
                out = tp.cmd("port start 0")
                if "Fail to start port" in out:
                    failed.append(i)
                    why = dpdk_output.problem_lines(out)
                    env.log("cycle %d: %s" % (i, "; ".join(why)))
            t.check(not failed, "port 0 restarted back to back %d times: %d failed to start%s"
                    % (CYCLES, len(failed), " (cycles %s)" % failed if failed else ""))
            if failed:
                # A failure leaves the port stopped: start it, with pauses, so
                # that the frames below say whether it still works at all.
                for _ in range(RECOVER_TRIES):
                    if "Fail to start port" not in tp.cmd("port start 0"):
                        break
                    time.sleep(RECOVER_GAP)
            st0 = tp.port_stats(0)["RX-packets"]
            tp.cmd("start")
            traffic.send(peer, port.mac, FRAMES, SIZES)
            st = tp.wait_rx(0, st0 + FRAMES)
            tp.cmd("stop")
            t.equal(st["RX-packets"] - st0, FRAMES, "RX-packets after the restarts")
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "restart_quick", __doc__.splitlines()[0])
