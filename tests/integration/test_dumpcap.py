#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpdk-dumpcap and dpdk-pdump capture a running testpmd's port, through scripts/afxdp-secondary.sh.

testpmd (the primary, on hugepages) forwards between two hosts (io); host a
pings host b through it.

1. dpdk-dumpcap on its own probes the port with DPDK's stock driver, which
   cannot drive our ports: the primary refuses its request, and says so,
   naming the wrapper; dumpcap exits non-zero; testpmd keeps forwarding.
2. Through the wrapper (which loads the primary's plugin and mempool drivers
   into the tool), dpdk-dumpcap -c CAPTURED on net_af_xdp0 during the ping
   writes a pcapng file that tcpdump reads back: CAPTURED packets, at least
   20 of them the ping's echo requests and replies, both kinds present.
3. Through the wrapper, dpdk-pdump writes port 0's Rx and Tx to two pcap
   files: tcpdump reads the ping's PINGS echo requests from the Rx file and
   its PINGS replies from the Tx file.
testpmd still forwards afterwards and quits with 0.
"""

import os
import re
import shutil
import signal
import subprocess
import time

from afxdp_test import env, hosts, hugepages, runner, testpmd, topo

WRAPPER = os.path.join(os.path.dirname(runner.LIB_DIR), "scripts", "afxdp-secondary.sh")
HUGEPAGES = 192          # testpmd's -m 256 plus the tools' capture pools
MEM_MB = 256
CAPTURED = 24            # dumpcap -c: the ping's packets, and room for a stray ARP
MIN_ECHO = 20
PINGS = 20
CAPTURE_WAIT = 10        # for pdump to write the last pings (only against a loss)
TOOL_TIMEOUT = 60        # only against a hang (the capture's own stop: -a duration)
REFUSAL = "refused a secondary process that probed this port with DPDK's stock net_af_xdp"
ECHO = re.compile(r"IP %s > %s: ICMP echo request|IP %s > %s: ICMP echo reply"
                  % (re.escape(hosts.ADDR_A), re.escape(hosts.ADDR_B),
                     re.escape(hosts.ADDR_B), re.escape(hosts.ADDR_A)))


def tcpdump(t, path):
    """The packets tcpdump reads from `path`, one line each."""
    cp = env.run(["tcpdump", "-n", "-r", path], check=False)
    t.check(cp.returncode == 0, "tcpdump -r %s exits 0" % os.path.basename(path), cp.stderr)
    return [ln for ln in cp.stdout.splitlines() if ln.strip()]


def count_echoes(lines, kind):
    """The ICMP echo `kind`s ("request", "reply") among tcpdump's lines."""
    return sum(1 for ln in lines if ECHO.search(ln) and kind in ln)


def echoes(path, kind):
    """The echo `kind`s in the pcap file at `path` so far (net_pcap flushes
    it after each burst; a partial last record is not counted)."""
    if not os.path.exists(path):
        return 0
    cp = env.run(["tcpdump", "-n", "-r", path], check=False)
    return count_echoes(cp.stdout.splitlines(), kind)


def wait_captured(paths_kinds, count, timeout):
    """Until each file holds `count` echoes of its kind, or the deadline: pdump
    writes what it dequeued from the primary's ring, and on SIGINT drops what
    it has not dequeued yet (a busy machine delays it)."""
    deadline = env.deadline(timeout)
    while time.monotonic() < deadline:
        if all(echoes(p, k) >= count for p, k in paths_kinds):
            return
        time.sleep(0.2)


def background_ping(a):
    """Pings from a to b every 0.1 s until ended."""
    return env.popen(["ping", "-n", "-q", "-i", "0.1", hosts.ADDR_B], ns=a.name,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def dumpcap_alone(t, dut, tp):
    argv = [env.tool("AFXDP_DUMPCAP", "dpdk-dumpcap"), "--file-prefix=%s" % tp.file_prefix,
            "-i", "net_af_xdp0", "-c", "1", "-w", os.path.join(env.run_dir(), "alone.pcapng")]
    env.log("dumpcap alone: %s" % " ".join(argv))
    start = time.monotonic()
    rc, out = testpmd.run_secondary(dut, argv, timeout=TOOL_TIMEOUT)
    env.log("dumpcap alone exited %d after %.1f s:\n%s" % (rc, time.monotonic() - start,
                                                          out[-1500:]))
    t.check(rc != 0, "dpdk-dumpcap without the wrapper fails (exit %d)" % rc)
    tp.cmd("show port summary all")         # collects what testpmd logged meanwhile
    t.check(REFUSAL in tp.transcript and "afxdp-secondary.sh" in tp.transcript,
            "the primary says it refused the stock driver's request and names the wrapper")


def dumpcap_wrapped(t, dut, a, tp):
    pcap = os.path.join(env.run_dir(), "dumpcap.pcapng")
    argv = [WRAPPER, env.tool("AFXDP_DUMPCAP", "dpdk-dumpcap"),
            "--file-prefix=%s" % tp.file_prefix, "-i", "net_af_xdp0", "-p", "-q",
            "-c", str(CAPTURED), "-a", "duration:%d" % env.scaled(TOOL_TIMEOUT / 2), "-w", pcap]
    env.log("dumpcap: %s" % " ".join(argv))
    ping = background_ping(a)
    try:
        rc, out = testpmd.run_secondary(dut, argv, timeout=TOOL_TIMEOUT)
    finally:
        env.end_process(ping)
    ok = t.equal(rc, 0, "dpdk-dumpcap through the wrapper: exit code")
    if not ok or not os.path.exists(pcap):
        env.log(out[-3000:])
        return
    lines = tcpdump(t, pcap)
    echo = [ln for ln in lines if ECHO.search(ln)]
    # dumpcap stops once it has written -c packets, a whole burst at a time.
    t.check(len(lines) >= CAPTURED, "packets tcpdump reads from dumpcap's file: %d (-c %d)"
            % (len(lines), CAPTURED))
    t.check(len(echo) >= MIN_ECHO and any("request" in ln for ln in echo)
            and any("reply" in ln for ln in echo),
            "at least %d of them are the ping's echo requests and replies: %d"
            % (MIN_ECHO, len(echo)), "\n".join(lines))


def wait_line(proc, pattern, timeout):
    """Read the process's output until a line matches; all read so far."""
    seen = []
    deadline = env.deadline(timeout)
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        if re.search(pattern, line):
            return True, "".join(seen)
    return False, "".join(seen)


def pdump_wrapped(t, dut, a, tp):
    rx, tx = (os.path.join(env.run_dir(), n) for n in ("pdump-rx.pcap", "pdump-tx.pcap"))
    spec = "port=0,queue=*,rx-dev=%s,tx-dev=%s,total-num-mbufs=4096" % (rx, tx)
    # stdbuf: pdump says when capture is on (" core (N), capture for ...") in a line
    # that would sit in its stdio buffer until exit.
    argv = ["stdbuf", "-oL", WRAPPER, env.tool("AFXDP_PDUMP", "dpdk-pdump"),
            "--file-prefix", tp.file_prefix, "--", "--pdump", spec]
    env.log("pdump: %s" % " ".join(argv))
    proc = env.popen(argv, ns=dut.name, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                     text=True)
    try:
        on, out = wait_line(proc, r"capture for \(\d+\) tuples", TOOL_TIMEOUT)
        if t.check(on, "dpdk-pdump through the wrapper starts capturing", out[-3000:]):
            cp = a.exec(["ping", "-n", "-q", "-c", str(PINGS), "-i", "0.1", "-W", "5",
                         hosts.ADDR_B], check=False)
            t.check(cp.returncode == 0, "%d pings while pdump captures" % PINGS, cp.stdout)
            wait_captured([(rx, "request"), (tx, "reply")], PINGS, CAPTURE_WAIT)
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=env.scaled(TOOL_TIMEOUT))
        out += rest
    finally:
        env.end_process(proc)
    if not t.equal(proc.returncode, 0, "dpdk-pdump exit code after SIGINT"):
        env.log(out[-3000:])
    for path, kind, kinds in ((rx, "request", "requests"), (tx, "reply", "replies")):
        if not t.check(os.path.exists(path), "pdump wrote %s" % os.path.basename(path)):
            continue
        got = count_echoes(tcpdump(t, path), kind)
        t.check(got >= PINGS, "echo %s in %s: %d (the ping sent %d)"
                % (kinds, os.path.basename(path), got, PINGS))


def main(t):
    if env.is_stock():
        raise env.Skip("the wrapper loads af_xdp_direct's plugin into the tools; with the "
                       "stock driver run them directly")
    for name, var in (("dpdk-dumpcap", "AFXDP_DUMPCAP"), ("dpdk-pdump", "AFXDP_PDUMP")):
        env.tool(var, name)
    for prog in ("tcpdump", "stdbuf"):
        if not shutil.which(prog):
            raise env.Skip("%s not found (scripts/setup.sh installs it)" % prog)
    with topo.Topology() as net, hugepages.HugePages(HUGEPAGES) as hp:
        dut, a, b, p0, h0, p1, h1 = hosts.two_hosts(net)
        vdevs = ["net_af_xdp0,iface=%s" % p0.name, "net_af_xdp1,iface=%s" % p1.name]
        with testpmd.TestPmd(dut, vdevs, fwd="io", huge_dir=hp.mount, mem_mb=MEM_MB) as tp:
            tp.cmd("start")
            hosts.ping(t, a, where_lost=tp.where_lost)
            dumpcap_alone(t, dut, tp)
            hosts.ping(t, a, where_lost=tp.where_lost)
            dumpcap_wrapped(t, dut, a, tp)
            pdump_wrapped(t, dut, a, tp)
            hosts.ping(t, a, where_lost=tp.where_lost)
            tp.cmd("stop")
            t.quit_testpmd(tp, net)


if __name__ == "__main__":
    runner.run(main, "dumpcap", __doc__.splitlines()[0])
