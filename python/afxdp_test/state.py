# SPDX-License-Identifier: BSD-3-Clause
"""The driver's state block (dump_priv) of a running DPDK process, as a dict.

The driver writes one `key = value` line per fact (doc/guides/nics/
af_xdp_direct.rst, "Port state"); DPDK publishes it as the telemetry command
/ethdev/dump_priv,<port> and through dpdk-proc-info --show-port-private.
Tests read facts from it instead of from the driver's log sentences:

    st = state.read(tp, 0)
    t.equal(st["queue.0.mode"], "copy", ...)

read() asks the process's telemetry socket directly (no secondary process,
so it works for a --no-huge testpmd too); telemetry_block() and parse() serve
the other ways of reading it.
"""

import json
import os
import socket

from . import env

SOCKET_NAME = "dpdk_telemetry.v2"
COMMAND = "/ethdev/dump_priv"
# DPDK's largest telemetry reply (a 8192-byte string, escaped) and more.
REPLY_MAX = 65536
TIMEOUT = 10


class StateError(env.Failure):
    pass


def parse(text):
    """'key = value' lines -> {key: value}; other lines (a tool's banners) are
    left out. Values stay strings: the tests say which are numbers."""
    block = {}
    for line in text.splitlines():
        key, sep, value = line.partition(" = ")
        key = key.strip()
        if sep and key and " " not in key and key == key.lower():
            block[key] = value.strip()
    return block


def telemetry(file_prefix, command, timeout=TIMEOUT):
    """One telemetry command to the DPDK process of `file_prefix`: its JSON
    reply, decoded."""
    path = os.path.join(env.DPDK_RUNTIME, file_prefix, SOCKET_NAME)
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
        s.settimeout(timeout)
        try:
            s.connect(path)
            s.recv(REPLY_MAX)            # the greeting: version, pid, max_output_len
            s.send(command.encode())
            reply = s.recv(REPLY_MAX)
        except OSError as e:
            raise StateError("telemetry %s at %s: %s" % (command, path, e))
    try:
        return json.loads(reply.decode())
    except ValueError as e:
        raise StateError("telemetry %s: not JSON (%s): %r" % (command, e, reply[:200]))


def telemetry_block(file_prefix, port=0):
    """The block of `port` as the telemetry reply carries it (one string)."""
    reply = telemetry(file_prefix, "%s,%d" % (COMMAND, port))
    text = reply.get(COMMAND)
    if not isinstance(text, str):
        raise StateError("telemetry %s,%d: no block in %r" % (COMMAND, port, reply))
    return text


def read(tp, port=0):
    """The state of `port` of testpmd `tp` (or anything with a file_prefix)."""
    block = parse(telemetry_block(tp.file_prefix, port))
    if "driver" not in block:
        raise StateError("%s port %d: no state block (not our driver?)" % (tp.file_prefix, port))
    if block.get("end") != "yes":
        raise StateError("%s port %d: the state block was cut short (no `end = yes`)"
                         % (tp.file_prefix, port))
    return block


def socket_modes(block):
    """The modes of the port's sockets, queue index by queue index:
    ['zero-copy', 'copy', ...] (empty while stopped)."""
    queues = sorted(int(k.split(".")[1]) for k in block
                    if k.startswith("queue.") and k.endswith(".mode"))
    return [block["queue.%d.mode" % q] for q in queues]


def queue_keys(block, queue):
    """The keys of queue `queue`, without their `queue.<n>.` prefix."""
    prefix = "queue.%d." % queue
    return {k[len(prefix):]: v for k, v in block.items() if k.startswith(prefix)}
