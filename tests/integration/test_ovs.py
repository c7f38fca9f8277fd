#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Open vSwitch with DPDK: two ports on our plugin carry ping and TCP, take an MTU change at the first try, and give the interfaces back at exit.

Debian's ovs-vswitchd-dpdk runs privately (lib ovs.py: its own database,
sockets and logs in the run directory, inside the dut namespace; the
system's OVS and its alternatives are not touched), with a netdev bridge
and two dpdk ports, net_af_xdp0/1 on p0/p1, between the hosts a and b.
1. Both interfaces come up; ping and a 20 MB TCP transfer (sha256) pass
   (4 MB in the VM, AFXDP_SOCKET_MODE set: OVS forwards 2 to 3 MB a second
   under the emulated CPU; 4 MB is some 2,900 segments at MTU 1500, 1,700
   at MTU, more than OVS's rings of 2,048 hold, every byte checked by the
   sha256, as tx_csum's).
2. mtu_request=MTU on both: OVS sets the MTU, then sets up the queues with
   a mempool sized for it. The MTU takes at the first try (the Interface's
   mtu column, the kernel's MTU on p0/p1); with the hosts at MTU too, a
   full-size `ping -M do` and TCP (as in 1) pass.
3. mtu_request=TOO_BIG, which OVS's mempool for it cannot hold in one UMEM
   chunk. With AF_XDP multi-buffer (Linux 6.6; OVS enables the scatter
   offload the driver advertises) the frames take two chunks: the MTU takes
   and full-size pings pass. Without it, OVS's log carries the driver's
   refusal at queue setup, naming the frames the mempool holds and the data
   room needed, and the Interface shows an error. Back to MTU, the ports come
   back and full-size pings pass.
   Every full-size ping counts, the first after an MTU change included: the
   test pings once OVS has restarted both ports for the MTU (the Interface's
   mtu column, wait_mtu). ovs-vsctl returns once ovs-vswitchd has taken the
   request, before its datapath restarts the ports, and link_state stays up
   through a restart; a frame that meets a port being restarted goes to the
   interface's kernel stack and is lost. The return to MTU from TOO_BIG
   waited for link_state alone: under load its first ping could meet a
   restart (issue 26: first pings were seen lost under load, the stage not
   recorded; with ovs-vsctl --no-wait, which returns at once, all of that
   stage's pings are). A lost ping's report carries the hosts' and OVS's
   counters.
   The ports' state blocks (read through OVS's DPDK telemetry socket; OVS
   runs with a file prefix of the test's) show sockets bound for frames of
   one descriptor at MTU 1500 and at MTU 2500, where OVS asks for the
   scatter offload but its mbufs hold the frames in one chunk
   (frame.multi_buffer.reason fits-one-chunk, issue 26), and multi-buffer
   sockets at TOO_BIG (Linux 6.6 and later). With
   AFXDP_SOCKET_MODE=zero-copy (vm-zc/ovs, the patched kernel's veth) the
   sockets bound for one chunk are zero-copy, MTU 2500 included, and the
   multi-buffer ones copy: veth's zero-copy has no multi-buffer.
   OVS configures RSS (mq_mode) but never asks for RSS_HASH; it takes a
   hash from each mbuf that carries one (and skips its own 5-tuple hash):
   the state blocks show the hash implied and in force (rx.offloads.implied,
   rx.offloads) wherever the port offers it.
4. `ovs-appctl exit` (what ovs-ctl stop does): ovs-vswitchd stops the ports
   without closing them and exits 0; the driver gives both interfaces back
   their promiscuous state at exit (OVS turned it on), and no XDP program is
   left on them.
"""

import re
import time
import types

from afxdp_test import (cleanup, env, hosts, hugepages, kernel, ovs, runner, state, testpmd,
                        topo)

HUGEPAGES = 300              # dpdk-socket-mem 512 MB plus EAL's own
MTU = 2500                   # OVS's mempool: 3200-byte data room, frames up to 2944
TOO_BIG = 3000               # the same mempool size, and 3014-byte frames
PINGS = 3
VM_TCP_MB = 4                # under the VM's emulated CPU (hosts.FILE_MB on the host)
WAIT = 60                    # only against a hang
TOO_BIG_REFUSAL = re.compile(
    r"net_af_xdp\d: Rx queue setup refused: the mempool \S+ of Rx queue 0 holds frames of at "
    r"most 2944 bytes .* MTU %d needs %d; give the queue mbufs with a data room of at least %d "
    r"bytes" % (TOO_BIG, TOO_BIG + 14, TOO_BIG + 14 + 256))
AT_EXIT = "at exit, 2 interfaces of ports never closed got back their promiscuous"


def port_ok(o, name):
    return o.get("Interface", name, "error") == "[]"


def wait_up(t, o, names, what):
    for n in names:
        state = o.wait_for("Interface", n, "link_state", "up", timeout=WAIT)
        t.check(state == "up" and port_ok(o, n), "%s: %s link_state %s, error %s"
                % (what, n, state, o.get("Interface", n, "error")), o.log_tail())


def set_mtu(o, names, mtu):
    for n in names:
        o.vsctl("set", "Interface", n, "mtu_request=%d" % mtu)


def wait_mtu(t, o, names, mtu, what):
    """Until OVS has reconfigured each port for `mtu`: it writes the
    Interface's mtu column once the port was stopped, given the MTU, its
    queues set up again and started. Before that a frame may meet a port
    being restarted: a stopped port gives its interface's traffic to the
    kernel stack, and the frame is lost. link_state does not say so: it
    stays up through the restart."""
    for n in names:
        got = o.wait_for("Interface", n, "mtu", str(mtu), timeout=WAIT)
        t.check(got == str(mtu) and port_ok(o, n), "%s: mtu_request=%d on %s: mtu %s, error %s"
                % (what, mtu, n, got, o.get("Interface", n, "error")), o.log_tail())


def full_size_ping(t, o, hosts_ns, mtu, what, prefix):
    """PINGS full-size pings, the first included: the test pings once OVS
    has reconfigured the ports (wait_mtu) and the hosts have the MTU."""
    a = hosts_ns[0]
    size = mtu - 28                  # IPv4 and ICMP headers
    hosts.ping(t, a, size=size, count=PINGS, what="%s, %d-byte IP packets" % (what, mtu),
               where_lost=lambda: o.where_lost(hosts_ns, prefix))


def mtu_change(t, o, names, ports, hosts_ifc, a, b, prefix):
    start = len(o.log())
    set_mtu(o, names, MTU)
    wait_mtu(t, o, names, MTU, "from 1500")
    for p in ports:
        t.equal(p.mtu(), MTU, "kernel MTU of %s" % p.name)
    # OVS retries a failed reconfiguration: "first try" is no error in between.
    errors = [ln for ln in o.log()[start:].splitlines() if "|ERR|" in ln]
    t.check(not errors, "at the first try: no error in OVS's log since the request",
            "\n".join(errors))
    wait_up(t, o, names, "after the MTU change")
    for h in hosts_ifc:
        h.ip("link", "set", "dev", h.name, "mtu", str(MTU))
    full_size_ping(t, o, (a, b), MTU, "at MTU %d" % MTU, prefix)
    hosts.tcp_transfer(t, a, b, mb=tcp_mb())


def tcp_mb():
    return VM_TCP_MB if env.socket_mode() else hosts.FILE_MB


def too_big(t, o, names, ports, a, b, hosts_ifc, prefix):
    start = len(o.log())
    set_mtu(o, names, TOO_BIG)
    if kernel.multi_buffer():
        wait_mtu(t, o, names, TOO_BIG, "frames of two chunks (multi-buffer)")
        wait_up(t, o, names, "at MTU %d" % TOO_BIG)
        check_sockets(t, prefix, ports, "at MTU %d" % TOO_BIG, True)
        for h in hosts_ifc:
            h.ip("link", "set", "dev", h.name, "mtu", str(TOO_BIG))
        full_size_ping(t, o, (a, b), TOO_BIG, "at MTU %d" % TOO_BIG, prefix)
        for h in hosts_ifc:
            h.ip("link", "set", "dev", h.name, "mtu", str(MTU))
        set_mtu(o, names, MTU)
        wait_mtu(t, o, names, MTU, "back from %d" % TOO_BIG)
        wait_up(t, o, names, "back at MTU %d" % MTU)
        full_size_ping(t, o, (a, b), MTU, "back at MTU %d" % MTU, prefix)
        return
    deadline = env.deadline(WAIT)
    while not TOO_BIG_REFUSAL.search(o.log()[start:]) and time.monotonic() < deadline:
        time.sleep(0.2)
    refusal = TOO_BIG_REFUSAL.search(o.log()[start:])
    t.check(refusal is not None, "mtu_request=%d: OVS's log has the driver's refusal at queue "
            "setup, naming the frames the mempool holds and the data room needed" % TOO_BIG,
            o.log()[start:][-4000:])
    if refusal:
        env.log("OVS's log: %s" % refusal.group(0))
    for n in names:
        deadline = env.deadline(WAIT)
        while port_ok(o, n) and time.monotonic() < deadline:
            time.sleep(0.2)
        t.check(not port_ok(o, n), "%s shows an error: %s" % (n, o.get("Interface", n, "error")))
    set_mtu(o, names, MTU)
    wait_mtu(t, o, names, MTU, "back from the refused %d" % TOO_BIG)
    wait_up(t, o, names, "back at MTU %d" % MTU)
    full_size_ping(t, o, (a, b), MTU, "back at MTU %d" % MTU, prefix)


def check_sockets(t, prefix, ports, what, multi_buffer):
    """Each port's socket as its state block shows it: bound multi-buffer or
    not, and, with AFXDP_SOCKET_MODE set, in that mode (copy: force_copy=1
    in the devargs, testpmd.with_socket_mode), but for multi-buffer sockets,
    which veth's zero-copy cannot take: the kernel binds those in copy mode."""
    want = env.socket_mode()
    ovs_dpdk = types.SimpleNamespace(file_prefix=prefix)
    blocks = [state.read(ovs_dpdk, port) for port in range(len(ports))]
    by_iface = {b.get("iface"): state.queue_keys(b, 0) for b in blocks}
    reasons = {b.get("iface"): b.get("frame.multi_buffer.reason") for b in blocks}
    for p in ports:
        q = by_iface.get(p.name, {})
        t.equal(q.get("multi_buffer"), "yes" if multi_buffer else "no",
                "%s: %s's socket bound multi-buffer (state queue.0.multi_buffer)" % (what, p.name))
        t.check(reasons.get(p.name) in (("frames-span-chunks",) if multi_buffer else
                                        ("not-asked", "fits-one-chunk")),
                "%s: %s's frame.multi_buffer.reason: %s" % (what, p.name, reasons.get(p.name)))
        if want:
            t.equal(q.get("mode"), "copy" if multi_buffer else want,
                    "%s: %s's socket mode (state queue.0.mode, AFXDP_SOCKET_MODE=%s)"
                    % (what, p.name, want))


def check_rss_hash(t, prefix, ports):
    """The RSS hash OVS's RSS mode implies, in force where the port offers it."""
    ovs_dpdk = types.SimpleNamespace(file_prefix=prefix)
    for port, p in enumerate(ports):
        b = state.read(ovs_dpdk, port)
        want = "rss_hash" if "rss_hash" in b.get("rx.offloads.capa", "").split(",") else "none"
        t.equal((b.get("rx.offloads.implied"), b.get("rx.offloads")), (want, want),
                "%s: state rx.offloads.implied and rx.offloads (OVS: RSS without RSS_HASH; "
                "rx.offloads.capa %s)" % (b.get("iface"), b.get("rx.offloads.capa")))


def main(t):
    if env.is_stock():
        raise env.Skip("the OVS test runs OVS over our plugin (AFXDP_PLUGIN)")
    ovs.check_installed()
    with topo.Topology() as net, hugepages.HugePages(HUGEPAGES) as hp:
        dut, a, b, p0, h0, p1, h1 = hosts.two_hosts(net)
        vdevs = [testpmd.with_socket_mode("net_af_xdp%d,iface=%s" % (i, p.name))
                 for i, p in enumerate((p0, p1))]
        prefix = testpmd.new_file_prefix()
        cleanup.push("DPDK runtime directory of %s" % prefix,
                     lambda: testpmd.remove_runtime_dir(prefix))
        extra = ("--no-pci -d %s --vdev %s --vdev %s --file-prefix %s "
                 "--log-level=pmd.net.af_xdp:info" % (env.plugin(), vdevs[0], vdevs[1], prefix))
        config = {"dpdk-init": "true", "dpdk-socket-mem": "512", "dpdk-hugepage-dir": hp.mount,
                  "pmd-cpu-mask": "0x2", "per-port-memory": "true",
                  "dpdk-extra": '"%s"' % extra}
        names = ["p0", "p1"]
        with ovs.Ovs(dut, config) as o:
            o.add_dpdk_ports(names)
            wait_up(t, o, names, "added")
            check_sockets(t, prefix, (p0, p1), "at MTU 1500", False)
            check_rss_hash(t, prefix, (p0, p1))
            hosts.ping(t, a)
            hosts.tcp_transfer(t, a, b, mb=tcp_mb())

            mtu_change(t, o, names, (p0, p1), (h0, h1), a, b, prefix)
            check_sockets(t, prefix, (p0, p1), "at MTU %d (scatter asked)" % MTU, False)
            too_big(t, o, names, (p0, p1), a, b, (h0, h1), prefix)

            t.check("PROMISC" in p0.link().get("flags", []), "OVS turned promiscuous mode on")
            rc = o.exit()
            t.equal(rc, 0, "ovs-vswitchd's exit code after `ovs-appctl exit`")
            t.check(AT_EXIT in o.log(), "the driver gave both interfaces back at exit",
                    o.log_tail(2000))
            for p in (p0, p1):
                f = p.link().get("flags", [])
                t.check("PROMISC" not in f and "ALLMULTI" not in f,
                        "%s without promiscuous and all-multicast after OVS exited: %s"
                        % (p.name, f))
                t.check(p.xdp() is None, "no XDP program left on %s" % p.name)


if __name__ == "__main__":
    runner.run(main, "ovs", __doc__.splitlines()[0])
