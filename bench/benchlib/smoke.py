# SPDX-License-Identifier: BSD-3-Clause
"""A benchmark harness run by its smoke test (bench/tests): in a session of
its own, so that meson's kill of the test's group reaches it as a forwarded
SIGTERM and it can clean up what it made."""

import signal
import subprocess
import sys


def run_harness(argv, timeout):
    """Run `python3 argv...` to its end: (exit code, output, whether it
    outlived `timeout` seconds and was sent SIGTERM)."""
    p = subprocess.Popen([sys.executable] + list(argv), stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, start_new_session=True)

    def forward(signum, frame):
        p.send_signal(signal.SIGTERM)
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, forward)
    try:
        output, _ = p.communicate(timeout=timeout)
        return p.returncode, output, False
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGTERM)
        output, _ = p.communicate(timeout=60)
        return p.returncode, output, True
