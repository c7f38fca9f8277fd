# SPDX-License-Identifier: BSD-3-Clause
"""A fake AF_XDP device plugin (the Kubernetes one's side of use_cni=1): a
Unix SOCK_SEQPACKET server, run in a thread of the test, that hands over an
XSKMAP file descriptor. The exchange (drivers/net/af_xdp/af_xdp_cni.c), one
request and one answer at a time:

    /connect,<hostname>  -> /host_ok          (or whatever `host_answer` is)
    /version             -> a version string
    /xsk_map_fd,<iface>  -> /fd_ack, with the map's fd as SCM_RIGHTS
    /fin                 -> /fin_ack

    with FakeDevicePlugin(path, map_fd) as dp:
        ... use_cni=1,dp_path=<path> ...
    dp.requests   # what the driver asked, in order

A faulty plugin, for the driver's deadlines and messages: `host_answer`
(str or bytes) is what it answers to /connect, hanging up after anything but
/host_ok; `behaviour` is one of
    "serve"      as above
    "silent"     accepts, reads every request, never answers
    "hang_up"    accepts, reads the first request, closes the connection
    "no_accept"  never accepts, and its backlog is full: connect() blocks
"""

import os
import socket
import threading

from . import cleanup, env

MSG_MAX = 128
ACCEPT_POLL = 0.2        # seconds: how often the server looks whether to stop
CONN_TIMEOUT = 10        # a client that stops talking is dropped
VERSION = "0.0.1-afxt-fake"


BEHAVIOURS = ("serve", "silent", "hang_up", "no_accept")


class FakeDevicePlugin:
    def __init__(self, path, map_fd, host_answer="/host_ok", behaviour="serve"):
        cleanup.install()
        if behaviour not in BEHAVIOURS:
            raise ValueError("behaviour %r: one of %s" % (behaviour, ", ".join(BEHAVIOURS)))
        self.path, self.map_fd, self.behaviour = path, map_fd, behaviour
        self.host_answer = host_answer if isinstance(host_answer, bytes) else host_answer.encode()
        self.requests = []          # every request received, in order
        self.errors = []            # protocol errors seen by the server
        self.fds_sent = 0
        self._sock = None
        self._thread = None
        self._stop = threading.Event()
        self._filler = None         # no_accept: the connection that fills the backlog
        self._undo = None

    def __enter__(self):
        self._undo = cleanup.push("fake device plugin %s" % self.path, self._close)
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._sock.bind(self.path)
        if self.behaviour == "no_accept":
            # A backlog of 0 holds one connection not yet accepted: with that
            # one queued, the next connect() waits for room.
            self._sock.listen(0)
            self._filler = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            self._filler.connect(self.path)
            env.log("fake AF_XDP device plugin on %s: never accepts, backlog full" % self.path)
            return self
        self._sock.listen(4)
        self._sock.settimeout(ACCEPT_POLL)
        self._thread = threading.Thread(target=self._serve, name="fake-device-plugin",
                                        daemon=True)
        self._thread.start()
        env.log("fake AF_XDP device plugin listening on %s (%s; answers %r to /connect)"
                % (self.path, self.behaviour, self.host_answer))
        return self

    def __exit__(self, *exc):
        cleanup.release(self._undo)
        return False

    def _serve(self):
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return          # closed
            with conn:
                conn.settimeout(ACCEPT_POLL if self.behaviour == "silent" else CONN_TIMEOUT)
                try:
                    self._talk(conn)
                except OSError as e:
                    self.errors.append("connection: %s" % e)

    def _receive(self, conn):
        """The next request, or None once the client closed (or, silent, we stop)."""
        while True:
            try:
                data = conn.recv(MSG_MAX)
            except socket.timeout:
                if self.behaviour == "silent" and not self._stop.is_set():
                    continue
                raise
            if not data:
                return None
            req = data.decode(errors="replace")
            self.requests.append(req)
            return req

    def _talk(self, conn):
        while True:
            req = self._receive(conn)
            if req is None or self.behaviour == "hang_up":
                return
            if self.behaviour == "silent":
                continue
            if req.startswith("/connect,"):
                conn.send(self.host_answer)
                if self.host_answer != b"/host_ok":
                    return      # a plugin that refuses the host hangs up
            elif req == "/version":
                conn.send(VERSION.encode())
            elif req.startswith("/xsk_map_fd,"):
                socket.send_fds(conn, [b"/fd_ack"], [self.map_fd])
                self.fds_sent += 1
            elif req == "/fin":
                conn.send(b"/fin_ack")
                return
            else:
                self.errors.append("unknown request %r" % req)
                conn.send(b"/nak")
                return

    def _close(self):
        self._stop.set()
        if self._filler is not None:
            self._filler.close()
        if self._sock is not None:
            self._sock.close()
        if self._thread is not None:
            self._thread.join(CONN_TIMEOUT + 2 * ACCEPT_POLL)
        if os.path.exists(self.path):
            os.unlink(self.path)
