#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""kernel_probes: what the driver finds the kernel allows agrees with the kernel, and each refusal, made on demand, is met as on a kernel without the feature.

    netns gen: g<n>  == veth ==  d<n> (net_af_xdp0)  netns dut: testpmd rxonly

The driver asks the kernel for each feature by doing it once (a bind, a
registration, a load, a setsockopt, a test run) and says in its state block
what it found. Each check, a TAP line, holds that answer against the
kernel's own (python/afxdp_test/kernel.py asks it with the smallest thing
that needs it, not through the driver), then makes the kernel refuse the
feature on demand (faults.Refusal: tests/faults/refuse.c preloaded into
testpmd, the refusal seen in its log) and checks what the driver does
without it: it says so, offers nothing it cannot deliver, and the port
runs, receiving exactly what was sent. The first lines of the output,
`probe: key = value`, are the driver's answers on this kernel, which
scripts/test-summary.py prints at the head of the run's summary.

  multi_buffer  kernel.multi_buffer as the kernel's BTF says (struct
                xdp_sock's sg), found by a bind; XDP_USE_SG refused: no,
                reason bind-refused-xdp-use-sg, the largest MTU offered
                (mtu.max) what one chunk holds and no scatter, an MTU above
                it refused by `port config mtu` with the port running on,
                frames received exactly.
  tx_metadata   queue.0.tx_metadata as a registration of the kernel's says
                (XDP_UMEM_TX_METADATA_LEN); refused: no, kernel-refused,
                and the Tx checksums named the driver's (`show txq info`);
                with tx_csum=sw: no, tx-csum-sw, nothing asked of the
                kernel.
  busy_poll     SO_PREFER_BUSY_POLL refused: queue.0.busy_poll off, reason
                refused; frames received exactly.
  dev_bound     BPF_F_XDP_DEV_BOUND_ONLY refused (a kernel before 6.3): no
                Rx metadata offered (rx.offloads.capa none, kernel-refused),
                the port runs on the plain program.
  test_run      BPF_PROG_RUN refused: the direct redirect's probe fails
                (kernel.direct_redirect no, xdp.redirect map) where the
                kernel's BTF has bpf_redirect_xsk (our patched kernel);
                elsewhere the probe never gets that far (its BTF says no):
                no test run was made.
"""

import contextlib

from afxdp_test import bpf, env, faults, kernel, runner, state, testpmd, topo, traffic

COUNT = 300
SIZES = traffic.SIZES
JUMBO_MTU = 9000
# The driver's answers printed for the summary: (state key, what it is).
PROBES = ["kernel.direct_redirect", "kernel.batched_map", "kernel.multi_buffer",
          "kernel.multi_buffer.reason", "rx.offloads.capa", "rx.offloads.capa.reason",
          "rx.offloads.capa.refused", "queue.0.tx_metadata", "queue.0.tx_metadata.reason",
          "queue.0.busy_poll", "queue.0.busy_poll.reason", "xdp.dispatcher"]


class Context:
    def __init__(self, net):
        self.net, self.dut, self.gen = net, net.netns("dut"), net.netns("gen")
        self._n = 0

    def veth(self):
        self._n += 1
        return self.net.veth(self.dut, "d%d" % self._n, self.gen, "g%d" % self._n)

    @contextlib.contextmanager
    def port(self, t, what, devargs="", wrapper=()):
        """testpmd rxonly on a fresh veth: (testpmd, its state block, port, peer)."""
        port, peer = self.veth()
        with testpmd.TestPmd(self.dut, ["net_af_xdp0,iface=%s%s" % (port.name, devargs)],
                             fwd="rxonly", wrapper=wrapper) as tp:
            st = state.read(tp)
            t.require(st.get("state") == "started", "%s: the port started" % what)
            yield tp, st, port, peer
            t.quit_testpmd(tp, self.net)


def receive(t, tp, port, peer, what, sizes=SIZES):
    tp.cmd("start")
    traffic.send(peer, port.mac, COUNT, sizes, stream=what)
    st = tp.wait_rx(0, COUNT)
    tp.cmd("stop")
    t.equal((st["RX-packets"], st["RX-missed"]), (COUNT, 0), "%s: RX-packets, RX-missed" % what)


def seen(t, r, fault, what):
    t.check(r.seen(fault), "%s: the driver met the refusal (the fault library's log)" % what,
            str(r.refused()))


def check_probes(t, ctx):
    """The driver's answers on this kernel, for the summary; the port receives."""
    with ctx.port(t, "probes") as (tp, st, port, peer):
        for key in PROBES:
            env.log("probe: %s = %s" % (key, st.get(key, "(none)")))
        receive(t, tp, port, peer, "probes")


def check_multi_buffer(t, ctx):
    has = kernel.multi_buffer()
    with ctx.port(t, "multi_buffer") as (tp, st, _, _):
        t.equal((st.get("kernel.multi_buffer"), st.get("kernel.multi_buffer.reason")),
                ("yes", "bind-took-xdp-use-sg") if has else ("no", "bind-refused-xdp-use-sg"),
                "multi_buffer: state kernel.multi_buffer and its reason (the kernel's BTF: "
                "struct xdp_sock %s sg)" % ("has" if has else "lacks"))
        full_max = int(st.get("mtu.max", 0))
    with faults.Refusal("xdp_use_sg") as r:
        with ctx.port(t, "multi_buffer refused", wrapper=r.wrapper()) as (tp, st, port, peer):
            seen(t, r, "xdp_use_sg", "multi_buffer refused")
            t.equal((st.get("kernel.multi_buffer"), st.get("kernel.multi_buffer.reason")),
                    ("no", "bind-refused-xdp-use-sg"),
                    "multi_buffer refused: state kernel.multi_buffer and its reason")
            chunk_max = int(st.get("mtu.max", 0))
            t.check(chunk_max < JUMBO_MTU and (not has or chunk_max < full_max),
                    "multi_buffer refused: the largest MTU offered is one chunk's: %d "
                    "(%d with multi-buffer)" % (chunk_max, full_max))
            capa = tp.cmd("show port 0 rx_offload capabilities")
            t.check("SCATTER" not in capa, "multi_buffer refused: no scatter offered", capa)
            out = tp.cmd("port config mtu 0 %d" % JUMBO_MTU)
            st = state.read(tp)
            t.equal((st.get("mtu"), st.get("state")), ("1500", "started"),
                    "multi_buffer refused: MTU %d refused at configuration (%s), the port "
                    "running on" % (JUMBO_MTU, out.strip().splitlines()[-1:]))
            receive(t, tp, port, peer, "multi_buffer refused")


def check_tx_metadata(t, ctx):
    refusal = kernel.tx_metadata_refusal()
    with ctx.port(t, "tx_metadata") as (tp, st, _, _):
        t.equal((st.get("queue.0.tx_metadata"), st.get("queue.0.tx_metadata.reason")),
                ("yes", "registered") if refusal is None else ("no", "kernel-refused"),
                "tx_metadata: state queue.0.tx_metadata and its reason (the kernel %s)"
                % ("registers it" if refusal is None else "refuses it: %s" % refusal))
    with faults.Refusal("tx_metadata") as r:
        with ctx.port(t, "tx_metadata refused", wrapper=r.wrapper()) as (tp, st, port, peer):
            seen(t, r, "tx_metadata", "tx_metadata refused")
            t.equal((st.get("queue.0.tx_metadata"), st.get("queue.0.tx_metadata.reason")),
                    ("no", "kernel-refused"), "tx_metadata refused: state queue.0.tx_metadata")
            tp.cmd("port stop 0")
            tp.cmd("port config 0 tx_offload tcp_cksum on")
            tp.cmd("port start 0")
            info = tp.cmd("show txq info 0 0")
            t.check("checksums computed by the driver" in info,
                    "tx_metadata refused: the Tx checksums are the driver's (show txq info)",
                    info)
            receive(t, tp, port, peer, "tx_metadata refused")
        before = len(r.refused())
        with ctx.port(t, "tx_csum=sw", devargs=",tx_csum=sw",
                      wrapper=r.wrapper()) as (tp, st, _, _):
            t.equal((st.get("queue.0.tx_metadata"), st.get("queue.0.tx_metadata.reason")),
                    ("no", "tx-csum-sw"), "tx_csum=sw: state queue.0.tx_metadata")
        t.equal(r.refused()[before:], [], "tx_csum=sw: Tx metadata not asked of the kernel "
                "(no refusal met)")


def check_busy_poll(t, ctx):
    with faults.Refusal("busy_poll") as r:
        with ctx.port(t, "busy_poll refused", wrapper=r.wrapper()) as (tp, st, port, peer):
            seen(t, r, "busy_poll", "busy_poll refused")
            t.equal((st.get("queue.0.busy_poll"), st.get("queue.0.busy_poll.reason")),
                    ("off", "refused"), "busy_poll refused: state queue.0.busy_poll")
            receive(t, tp, port, peer, "busy_poll refused")


def check_dev_bound(t, ctx):
    with faults.Refusal("dev_bound") as r:
        with ctx.port(t, "dev_bound refused", wrapper=r.wrapper()) as (tp, st, port, peer):
            seen(t, r, "dev_bound", "dev_bound refused")
            t.equal((st.get("rx.offloads.capa"), st.get("rx.offloads.capa.reason")),
                    ("none", "kernel-refused"),
                    "dev_bound refused: state rx.offloads.capa and its reason")
            t.equal(st.get("xdp.program"), "afxdp_map", "dev_bound refused: the plain program")
            receive(t, tp, port, peer, "dev_bound refused")


def check_test_run(t, ctx):
    direct = bpf.KernelXdp().direct
    with faults.Refusal("test_run") as r:
        with ctx.port(t, "test_run refused", devargs=",redirect=auto",
                      wrapper=r.wrapper()) as (tp, st, port, peer):
            t.equal(r.seen("test_run"), direct, "test_run refused: the driver's probe made a "
                    "test run (only where the kernel's BTF has bpf_redirect_xsk)")
            t.equal((st.get("kernel.direct_redirect"), st.get("xdp.redirect")), ("no", "map"),
                    "test_run refused: state kernel.direct_redirect, xdp.redirect")
            receive(t, tp, port, peer, "test_run refused")


@contextlib.contextmanager
def setup(t):
    with topo.Topology() as net:
        yield Context(net)


CHECKS = [
    ("probes", check_probes),
    ("multi_buffer", check_multi_buffer),
    ("tx_metadata", check_tx_metadata),
    ("busy_poll", check_busy_poll),
    ("dev_bound", check_dev_bound),
    ("test_run", check_test_run),
]


if __name__ == "__main__":
    runner.run_session("kernel_probes", __doc__.splitlines()[0], setup, CHECKS)
