#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""io forwarding: two ports carry frames byte for byte, ping and a TCP transfer.

    netns a: h0 10.99.0.1/24 == veth == p0 (net_af_xdp0)  netns dut: testpmd io
    netns b: h1 10.99.0.2/24 == veth == p1 (net_af_xdp1)

Checks: N raw frames of several sizes cross a->b and b->a intact (verified
byte for byte, none missing, duplicated or extra) and the port counters agree;
ping a->b loses nothing; a 20 MB random file sent with nc over TCP arrives with
the same sha256 (offloads off on h0 and h1: nothing would complete them);
testpmd quits with 0 and leaves no XDP program behind.
"""

import hashlib
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib import env, runner, testpmd, topo, traffic  # noqa: E402

SIZES = traffic.SIZES
FRAMES_PER_SIZE = 100        # below one ring's worth: see test_rxonly
ADDR_A, ADDR_B, PREFIX = "10.99.0.1", "10.99.0.2", 24
PINGS = 5
FILE_MB = 20
TCP_PORT = 5001
TCP_TIMEOUT = 180            # only against a hang


def raw_frames(t, tp, src, dst, count, label):
    with traffic.Capture(dst, src=src.mac, dst=dst.mac, count=count, sizes=SIZES,
                         stream=label) as cap:
        traffic.send(src, dst.mac, count, SIZES, stream=label)
    res = cap.result
    t.check(traffic.all_intact(res), "%s: %s" % (label, traffic.summary(res)))
    if res["foreign"]:
        env.log("note: %d other frames seen on %s" % (res["foreign"], dst))
    return res


def wait_listening(ns, port, timeout=15):
    deadline = env.deadline(timeout)
    while time.monotonic() < deadline:
        cp = ns.exec(["ss", "-Hltn", "sport = :%d" % port], check=False)
        if cp.stdout.strip():
            return True
        time.sleep(0.1)
    return False


def tcp_transfer(t, a, b):
    src = os.path.join(env.run_dir(), "tcp-src.bin")
    dst = os.path.join(env.run_dir(), "tcp-dst.bin")
    try:
        with open(src, "wb") as f:
            f.write(os.urandom(FILE_MB << 20))
        with open(src, "rb") as f:
            want = hashlib.sha256(f.read()).hexdigest()
        with open(dst, "wb") as out:
            server = env.popen(["nc", "-4", "-n", "-d", "-l", ADDR_B, str(TCP_PORT)],
                               ns=b.name, stdout=out)
        try:
            t.require(wait_listening(b, TCP_PORT), "nc listening on %s:%d" % (ADDR_B, TCP_PORT))
            with open(src, "rb") as inp:
                client = env.popen(["nc", "-4", "-n", "-N", "-w", "30", ADDR_B, str(TCP_PORT)],
                                   ns=a.name, stdin=inp)
            try:
                crc = client.wait(env.scaled(TCP_TIMEOUT))
                src_rc = server.wait(30)
            finally:
                if client.poll() is None:
                    client.kill()
                    client.wait()
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
        got_size = os.path.getsize(dst)
        with open(dst, "rb") as f:
            got = hashlib.sha256(f.read()).hexdigest()
        t.equal((crc, src_rc), (0, 0), "nc client and server exit codes")
        t.equal(got_size, FILE_MB << 20, "TCP bytes received")
        t.equal(got, want, "sha256 of the %d MB file received over TCP" % FILE_MB)
    except subprocess.TimeoutExpired:
        t.check(False, "TCP transfer of %d MB completed within %ds" % (FILE_MB, TCP_TIMEOUT))
    finally:
        for p in (src, dst):
            if os.path.exists(p):
                os.unlink(p)


def main(t):
    count = FRAMES_PER_SIZE * len(SIZES)
    with topo.Topology() as net:
        dut, a, b = net.netns("dut"), net.netns("a"), net.netns("b")
        p0, h0 = net.veth(dut, "p0", a, "h0")
        p1, h1 = net.veth(dut, "p1", b, "h1")
        h0.add_addr("%s/%d" % (ADDR_A, PREFIX))
        h1.add_addr("%s/%d" % (ADDR_B, PREFIX))
        for h in (h0, h1):
            h.offloads_off()
        vdevs = ["net_af_xdp0,iface=%s" % p0.name, "net_af_xdp1,iface=%s" % p1.name]
        with testpmd.TestPmd(dut, vdevs, fwd="io") as tp:
            tp.cmd("start")
            raw_frames(t, tp, h0, h1, count, "a->b raw frames")
            raw_frames(t, tp, h1, h0, count, "b->a raw frames")
            nbytes = traffic.expected_bytes(count, SIZES)
            s0, s1 = tp.port_stats(0), tp.port_stats(1)
            t.equal((s0["RX-packets"], s0["RX-bytes"], s0["TX-packets"], s0["TX-bytes"]),
                    (count, nbytes, count, nbytes), "port 0 RX/TX packets and bytes")
            t.equal((s1["RX-packets"], s1["RX-bytes"], s1["TX-packets"], s1["TX-bytes"]),
                    (count, nbytes, count, nbytes), "port 1 RX/TX packets and bytes")

            cp = a.exec(["ping", "-n", "-q", "-c", str(PINGS), "-i", "0.2", "-W", "5", ADDR_B],
                        check=False)
            summary = [ln for ln in cp.stdout.splitlines() if "packet loss" in ln]
            t.check(cp.returncode == 0 and " 0% packet loss" in cp.stdout,
                    "ping %s -> %s: %s" % (ADDR_A, ADDR_B, summary[0] if summary else "no summary"),
                    cp.stdout + cp.stderr)

            tcp_transfer(t, a, b)
            st = [tp.port_stats(p) for p in (0, 1)]
            env.log("after TCP: port 0 RX %d TX %d, port 1 RX %d TX %d, missed %d/%d" % (
                st[0]["RX-packets"], st[0]["TX-packets"], st[1]["RX-packets"],
                st[1]["TX-packets"], st[0]["RX-missed"], st[1]["RX-missed"]))
            tp.cmd("stop")
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "io_fwd", __doc__.splitlines()[0])
