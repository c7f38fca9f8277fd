# SPDX-License-Identifier: BSD-3-Clause
"""Parsing what testpmd and our tools print. Pure functions on text, no side
effects: unit-tested on recorded outputs of both drivers (bench/tests).

testpmd 22.11 (app/test-pmd/testpmd.c, fwd_stats_display) prints at `stop`:

      ---------------------- Forward statistics for port 0  ----------------------
      RX-packets: 4752512        RX-dropped: 1344960       RX-total: 6097472
      TX-packets: 0              TX-dropped: 0             TX-total: 0
      ...
      +++++++++++++++ Accumulated forward statistics for all ports+++++++++++++++
      ...
      CPU cycles/packet=180.78 (total cycles=859160496 / total rxonly packets=4752512) at 2600 MHz Clock

RX-dropped is the port's imissed; TX-dropped is what the forwarding engine
could not send plus the port's oerrors. With --record-burst-stats each port's
block also has "RX-bursts : <polls> [<share> of <n> pkts + ...]". The cycles line appears only with
--record-core-cycles and when packets moved; its packets are the Rx total of
all ports (txonly, flowgen: the Tx total).
"""

import json
import re

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[78=>]")


def clean(text):
    """Without terminal escapes and carriage returns."""
    return _ANSI.sub("", text).replace("\r", "")


def _pairs(line):
    """'RX-packets: 12  RX-dropped: 3' -> {'RX-packets': 12, 'RX-dropped': 3}."""
    return {k: int(v) for k, v in re.findall(r"([A-Za-z][A-Za-z-]*):\s+(\d+)", line)}


def _key(name):
    return name.lower().replace("-", "_")


_FWD_PORT = re.compile(r"^\s*-+ Forward statistics for port\s+(\d+)\s+-+\s*$")
_FWD_ACC = re.compile(r"^\s*\++ Accumulated forward statistics for all ports\s*\++\s*$")
# --record-burst-stats: "RX-bursts : 1234 [80% of 0 pkts + 15% of 64 pkts + 5% of other]",
# polls counted whether they returned packets or not.
_BURSTS = re.compile(r"^\s*(RX|TX)-bursts : (\d+) \[(.*)\]\s*$")
_CYCLES = re.compile(r"CPU cycles/packet=([\d.]+) \(total cycles=(\d+) / total (\S+) "
                     r"packets=(\d+)\) at (\d+) MHz Clock")


def parse_fwd_stats(text):
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
                section[_key(k)] = v
    cycles = None
    m = None
    for m in _CYCLES.finditer(text):
        pass
    if m:
        cycles = {"cycles_per_packet": float(m.group(1)), "total_cycles": int(m.group(2)),
                  "mode": m.group(3), "packets": int(m.group(4)), "mhz": int(m.group(5))}
    return {"ports": ports, "total": total, "cycles": cycles}


_NIC_PORT = re.compile(r"#+ NIC statistics for port\s+(\d+)\s+#+")


def parse_port_stats(text):
    """`show port stats <p|all>`: {port: {'rx_packets', 'rx_missed', 'rx_bytes',
    'rx_errors', 'rx_nombuf', 'tx_packets', 'tx_errors', 'tx_bytes'}}.
    The throughput lines (Rx-pps, ...) are left out."""
    text = clean(text)
    out, cur = {}, None
    for line in text.splitlines():
        m = _NIC_PORT.search(line)
        if m:
            cur = out.setdefault(int(m.group(1)), {})
            continue
        if cur is None:
            continue
        if "Throughput" in line or re.match(r"^\s*#{20,}\s*$", line):
            cur = None
            continue
        for k, v in _pairs(line).items():
            cur[_key(k)] = v
    return out


_XSTATS_PORT = re.compile(r"#+ NIC extended statistics for port\s+(\d+)")


def parse_xstats(text):
    """`show port xstats <p|all>`: {port: {name: value}}, names as printed."""
    text = clean(text)
    out, cur = {}, None
    for line in text.splitlines():
        m = _XSTATS_PORT.search(line)
        if m:
            cur = out.setdefault(int(m.group(1)), {})
            continue
        if cur is None:
            continue
        m = re.match(r"^\s*([A-Za-z0-9_.\[\]-]+):\s+(\d+)\s*$", line)
        if m:
            cur[m.group(1)] = int(m.group(2))
        elif line.startswith("testpmd>"):
            cur = None
    return out


def parse_startup(text):
    """What testpmd's start-up output says about the AF_XDP driver:
    {'driver': 'af_xdp_direct <version>' | 'stock' | None, 'redirect': 'map' |
    'direct' | None, 'rx_path': e.g. 'x86-64-v3 (AVX2, BMI2)' or 'baseline' | None, 'xdp_mode':
    'native (drv)' | 'generic (skb)' | None, 'copy': 'copy' | 'zero-copy' | None,
    'dispatcher': bool | None}. Needs --log-level=pmd.net.af_xdp:info."""
    text = clean(text)
    info = {"driver": None, "redirect": None, "rx_path": None, "xdp_mode": None,
            "copy": None, "dispatcher": None}
    m = re.search(r"probed by af_xdp_direct (\S+)", text)
    if m:
        info["driver"] = "af_xdp_direct %s" % m.group(1)
    elif re.search(r"Initializing pmd_af_xdp for net_af_xdp", text):
        info["driver"] = "stock"
    m = re.search(r"redirect: (map|direct) \(", text)
    if m:
        info["redirect"] = m.group(1)
    m = re.search(r"receiving with the (.+?) batch path", text)
    if m:
        info["rx_path"] = m.group(1)
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


def parse_gen_json(stdout):
    """afxdp-gen --json: the last line that is a JSON object."""
    for line in reversed(stdout.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                continue
    raise ValueError("no JSON line in afxdp-gen's output:\n%s" % stdout[-1000:])


def parse_json_line(stdout):
    """Any of our tools' --json output (bench-pingpong)."""
    return parse_gen_json(stdout)


_MICRO_ROW = re.compile(r"^\|\s*(baseline|x86-64-v3 \(AVX2, BMI2\))\s*\|\s*([\d.]+)\s*\|(.*)\|\s*([^|]*?)\s*\|\s*$")
_MICRO_CYCLES = re.compile(r"([\d.]+)\s*\(([\d.]+)\.\.([\d.]+)\)")


def parse_micro(stdout):
    """bench/micro/run.py's table: [{'impl', 'instructions', 'cycles_median',
    'cycles_min', 'cycles_max', 'verdict'}], and 'huge_median', 'huge_min',
    'huge_max' when it measured on hugepages too."""
    rows = []
    for line in stdout.splitlines():
        m = _MICRO_ROW.match(line.strip())
        if not m:
            continue
        cells = _MICRO_CYCLES.findall(m.group(3))
        if not cells:
            continue
        row = {"impl": m.group(1), "instructions": float(m.group(2)), "verdict": m.group(4)}
        for key, cell in zip(("cycles", "huge"), cells):
            row.update({key + "_median": float(cell[0]), key + "_min": float(cell[1]),
                        key + "_max": float(cell[2])})
        rows.append(row)
    return rows


def parse_softirqs(text, kind="NET_RX"):
    """/proc/softirqs: the per-CPU counts of one kind, [cpu0, cpu1, ...]."""
    for line in text.splitlines():
        parts = line.split()
        if parts and parts[0] == kind + ":":
            return [int(x) for x in parts[1:]]
    raise ValueError("no %s line in /proc/softirqs" % kind)


def parse_proc_stat(text):
    """/proc/<pid>/stat: {'comm', 'utime', 'stime', 'processor'} (clock ticks;
    the last CPU it ran on). The name may hold spaces and parentheses."""
    rparen = text.rindex(")")
    comm = text[text.index("(") + 1:rparen]
    fields = text[rparen + 2:].split()
    # fields[0] is field 3 (state) of proc(5)
    return {"comm": comm, "utime": int(fields[11]), "stime": int(fields[12]),
            "processor": int(fields[36])}


def parse_l2fwd_final(text):
    """The last `{"program": ..., "final": true, ...}` line of l2fwd-af-xdp or
    l2fwd-xdp: rx, tx and dropped summed over the ports; None if absent."""
    last = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith('{"program":'):
            try:
                doc = json.loads(line)
            except ValueError:
                continue
            if doc.get("final"):
                last = doc
    if last is None:
        return None
    ports = [p for p in last.get("ports", []) if isinstance(p, dict) and "rx" in p]
    return {"program": last.get("program"), "seconds": last.get("time_s"),
            "rx": sum(int(p.get("rx", 0)) for p in ports),
            "tx": sum(int(p.get("tx", 0)) for p in ports),
            "dropped": sum(int(p.get("dropped", 0)) for p in ports)}
