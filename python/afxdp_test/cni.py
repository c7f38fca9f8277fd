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
"""

import os
import socket
import threading

from . import cleanup, env

MSG_MAX = 128
ACCEPT_POLL = 0.2        # seconds: how often the server looks whether to stop
CONN_TIMEOUT = 10        # a client that stops talking is dropped
VERSION = "0.0.1-afxt-fake"


class FakeDevicePlugin:
    def __init__(self, path, map_fd, host_answer="/host_ok"):
        cleanup.install()
        self.path, self.map_fd, self.host_answer = path, map_fd, host_answer
        self.requests = []          # every request received, in order
        self.errors = []            # protocol errors seen by the server
        self.fds_sent = 0
        self._sock = None
        self._thread = None
        self._stop = threading.Event()
        self._undo = None

    def __enter__(self):
        self._undo = cleanup.push("fake device plugin %s" % self.path, self._close)
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._sock.bind(self.path)
        self._sock.listen(4)
        self._sock.settimeout(ACCEPT_POLL)
        self._thread = threading.Thread(target=self._serve, name="fake-device-plugin",
                                        daemon=True)
        self._thread.start()
        env.log("fake AF_XDP device plugin listening on %s (answers %s to /connect)"
                % (self.path, self.host_answer))
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
                conn.settimeout(CONN_TIMEOUT)
                try:
                    self._talk(conn)
                except OSError as e:
                    self.errors.append("connection: %s" % e)

    def _talk(self, conn):
        while True:
            data = conn.recv(MSG_MAX)
            if not data:
                return
            req = data.decode(errors="replace")
            self.requests.append(req)
            if req.startswith("/connect,"):
                conn.send(self.host_answer.encode())
                if self.host_answer != "/host_ok":
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
        if self._sock is not None:
            self._sock.close()
        if self._thread is not None:
            self._thread.join(CONN_TIMEOUT + 2 * ACCEPT_POLL)
        if os.path.exists(self.path):
            os.unlink(self.path)
