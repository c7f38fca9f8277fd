# SPDX-License-Identifier: BSD-3-Clause
"""What Debian's dpdk-testpmd and dpdk-proc-info (22.11) print, and the
driver's log lines among it, parsed: pure functions on text, the one parser
of it for the tests and the benchmark (unit-tested on recorded outputs of
both drivers in bench/tests).

`show port stats <p|all>` and dpdk-proc-info --stats print, per port:

      ######################## NIC statistics for port 0  ########################
      RX-packets: 300        RX-missed: 0          RX-bytes:  95400
      ...
      Throughput (since last show)          (testpmd; proc-info: "Stats reg ..." lines)

`show port xstats` and dpdk-proc-info --xstats: "###### NIC extended
statistics for port 0" then `name: value` lines.

testpmd's `stop` (app/test-pmd/testpmd.c, fwd_stats_display):

      ---------------------- Forward statistics for port 0  ----------------------
      RX-packets: 4752512        RX-dropped: 1344960       RX-total: 6097472
      TX-packets: 0              TX-dropped: 0             TX-total: 0
      ...
      +++++++++++++++ Accumulated forward statistics for all ports+++++++++++++++
      ...
      CPU cycles/packet=180.78 (total cycles=859160496 / total rxonly packets=4752512) at 2600 MHz Clock

RX-dropped is the port's imissed; TX-dropped is what the forwarding engine
could not send plus the port's oerrors. With --record-burst-stats each port's
block also has "RX-bursts : <polls> [<share> of <n> pkts + ...]". The cycles
line appears only with --record-core-cycles and when packets moved; its
packets are the Rx total of all ports (txonly, flowgen: the Tx total).
From DPDK 23.03 it reads "(busy cycles=...": both are parsed.
"""

import re

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[78=>]")
_NIC_PORT = re.compile(r"#+ NIC statistics for port\s+(\d+)\s+#+")
# The end of a port's block: testpmd's rates, proc-info's per-queue registers.
_NIC_END = re.compile(r"Throughput|Stats reg|^\s*#{20,}\s*$")
_XSTATS_PORT = re.compile(r"#+ NIC extended statistics for port\s+(\d+)")
_XSTAT = re.compile(r"^\s*([A-Za-z0-9_.\[\]-]+):\s+(\d+)\s*$")
_FWD_PORT = re.compile(r"^\s*-+ Forward statistics for port\s+(\d+)\s+-+\s*$")
_FWD_ACC = re.compile(r"^\s*\++ Accumulated forward statistics for all ports\s*\++\s*$")
# --record-burst-stats: "RX-bursts : 1234 [80% of 0 pkts + 15% of 64 pkts + 5% of other]",
# polls counted whether they returned packets or not.
_BURSTS = re.compile(r"^\s*(RX|TX)-bursts : (\d+) \[(.*)\]\s*$")
# 22.11 says "total cycles", 23.03 and later "busy cycles" (the same count).
_CYCLES = re.compile(r"CPU cycles/packet=([\d.]+) \((?:total|busy) cycles=(\d+) / total (\S+) "
                     r"packets=(\d+)\) at (\d+) MHz Clock")


def clean(text):
    """Without terminal escapes and carriage returns."""
    return _ANSI.sub("", text).replace("\r", "")


def _pairs(line):
    """'RX-packets: 12  RX-dropped: 3' -> {'RX-packets': 12, 'RX-dropped': 3}."""
    return {k: int(v) for k, v in re.findall(r"([A-Za-z][A-Za-z-]*):\s+(\d+)", line)}


def port_stats(text):
    """Port statistics: {port: {'RX-packets': n, 'RX-missed': n, 'RX-bytes': n,
    'RX-errors', 'RX-nombuf', 'TX-packets', 'TX-errors', 'TX-bytes'}}, names
    as printed; the rates and per-queue registers are left out."""
    out, cur = {}, None
    for line in clean(text).splitlines():
        m = _NIC_PORT.search(line)
        if m:
            cur = out.setdefault(int(m.group(1)), {})
            continue
        if cur is None:
            continue
        if _NIC_END.search(line):
            cur = None
            continue
        cur.update(_pairs(line))
    return out


def xstats(text):
    """Extended statistics: {port: {name: value}}, names as printed, in order."""
    out, cur = {}, None
    for line in clean(text).splitlines():
        m = _XSTATS_PORT.search(line)
        if m:
            cur = out.setdefault(int(m.group(1)), {})
            continue
        if cur is None:
            continue
        m = _XSTAT.match(line)
        if m:
            cur[m.group(1)] = int(m.group(2))
        elif line.startswith("testpmd>"):
            cur = None
    return out


def colon_lines(text):
    """'Key: value' lines (`show port info`): {key: value}, the first of each key."""
    info = {}
    for line in clean(text).splitlines():
        key, sep, val = line.partition(":")
        if sep and key.strip() and key.strip() not in info:
            info[key.strip()] = val.strip()
    return info


def _snake(name):
    return name.lower().replace("-", "_")


def fwd_stats(text):
    """The output of `stop`: {'ports': {port: counters}, 'total': counters,
    'cycles': {...} or None}. Counters are rx_packets, rx_dropped, rx_total,
    tx_packets, tx_dropped, tx_total (and rx_error, rx_nombufs when shown;
    with --record-burst-stats rx_bursts, rx_burst_spread, rx_empty_pct and the
    same for tx).
    Only the last `stop` in `text` counts."""
    text = clean(text)
    starts = [m.start() for m in re.finditer(r"Telling cores to stop", text)]
    if starts:
        text = text[starts[-1]:]
    ports, total, section = {}, None, None
    for line in text.splitlines():
        m = _FWD_PORT.match(line)
        if m:
            section = ports.setdefault(int(m.group(1)), {})
            continue
        if _FWD_ACC.match(line):
            total = section = {}
            continue
        if "Forward Stats for RX Port" in line:     # a stream's block (several per port)
            section = None
            continue
        if re.match(r"^\s*[-+]{20,}\s*$", line):
            section = None
            continue
        if section is not None:
            m = _BURSTS.match(line)
            if m:
                d = m.group(1).lower()
                section[d + "_bursts"] = int(m.group(2))
                section[d + "_burst_spread"] = m.group(3)
                e = re.search(r"(\d+)% of 0 pkts", m.group(3))
                section[d + "_empty_pct"] = int(e.group(1)) if e else 0
                continue
            for k, v in _pairs(line).items():
                section[_snake(k)] = v
    cycles = None
    m = None
    for m in _CYCLES.finditer(text):
        pass
    if m:
        cycles = {"cycles_per_packet": float(m.group(1)), "total_cycles": int(m.group(2)),
                  "mode": m.group(3), "packets": int(m.group(4)), "mhz": int(m.group(5))}
    return {"ports": ports, "total": total, "cycles": cycles}


def startup(text):
    """What the start-up output says about the AF_XDP driver:
    {'driver': 'af_xdp_direct <version>' | 'stock' | None, 'redirect': 'map' |
    'direct' | None, 'rx_build': e.g. 'x86-64-v3' or 'baseline' | None, 'xdp_mode':
    'native (drv)' | 'generic (skb)' | None, 'copy': 'copy' | 'zero-copy' | None,
    'dispatcher': bool | None}. Needs --log-level=pmd.net.af_xdp:info."""
    text = clean(text)
    info = {"driver": None, "redirect": None, "rx_build": None, "xdp_mode": None,
            "copy": None, "dispatcher": None}
    m = re.search(r"probed by af_xdp_direct (\S+)", text)
    if m:
        info["driver"] = "af_xdp_direct %s" % m.group(1)
    elif re.search(r"Initializing pmd_af_xdp for net_af_xdp", text):
        info["driver"] = "stock"
    m = re.search(r"redirect: (map|direct) \(", text)
    if m:
        info["redirect"] = m.group(1)
    m = re.search(r"receiving with the (\S+) build of the batched receive", text)
    if m:
        info["rx_build"] = m.group(1)
    m = re.search(r"attached to \S+ in (native \(drv\)|generic \(skb\)|offloaded \(hw\)) mode", text)
    if m:
        info["xdp_mode"] = m.group(1)
    m = re.search(r"socket on \S+ queue \d+, (copy|zero-copy) mode", text)
    if m:
        info["copy"] = m.group(1)
    if "libxdp's dispatcher is not in use" in text or "Falling back to loading single prog" in text:
        info["dispatcher"] = False
    elif re.search(r"under libxdp's dispatcher", text):
        info["dispatcher"] = True
    return info


# Our driver's footprint line of each socket (log level info)
_SOCKET = re.compile(r"socket on (\S+) queue \d+, (zero-copy|copy) mode(, multi-buffer)?")


def socket_modes(text):
    """{interface: [(mode, multi_buffer), ...]}: each socket our driver
    opened on it, in order, "zero-copy" or "copy" and whether it is bound
    for multi-buffer frames, from the driver's footprint lines (log level
    info), whichever app (testpmd, l2fwd, OVS) logged them."""
    modes = {}
    for iface, mode, multi_buffer in _SOCKET.findall(text):
        modes.setdefault(iface, []).append((mode, bool(multi_buffer)))
    return modes


_NOISE = re.compile(r"^(EAL: (Detected|Multi-process socket|Selected IOVA|Physical addresses)|"
                    r"testpmd: (create a new mbuf pool|preferred mempool ops)|libbpf: elf: skipping)")


def problem_lines(text, limit=12):
    """The lines that say what went wrong (errors of the driver, the vdev
    bus, EAL and testpmd), for failure messages."""
    keys = ("af_xdp", "AF_XDP", "xdp", "vdev", "rror", "ail", "nvalid", "Cause", "No probed")
    out = [ln.strip() for ln in clean(text).splitlines()
           if ln.strip() and not _NOISE.match(ln.strip()) and any(k in ln for k in keys)]
    return out[:limit]


# The ports' xstats a lost or late frame's report shows (loss_xstats()):
# losses, and the Tx kicks the kernel refused (a frame left in the Tx ring
# waits for the next burst's kick).
LOSS_XSTATS = ("drop", "empty", "invalid", "nombuf", "error", "missed", "packets", "kick",
               "wakeups")


def loss_xstats(port, xstats):
    """One line of port `port`'s xstats ({name: value}) that say where a
    frame was lost or held: the non-zero ones named like LOSS_XSTATS."""
    return "port %d xstats: %s" % (port, ", ".join(
        "%s=%s" % kv for kv in sorted(xstats.items())
        if kv[1] and any(w in kv[0] for w in LOSS_XSTATS)))
