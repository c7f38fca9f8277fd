# SPDX-License-Identifier: BSD-3-Clause
"""A benchmark run's log file: every command line and message, timed."""

import time


def open_log(path):
    """log(msg): each line of msg appended to `path` with the seconds since
    it was opened, flushed at once (a run killed midway keeps its log);
    log.close() closes the file."""
    f = open(path, "w")
    t0 = time.monotonic()

    def log(msg=""):
        for line in str(msg).splitlines() or [""]:
            f.write("[%8.2f] %s\n" % (time.monotonic() - t0, line))
        f.flush()
    log.close = f.close
    return log
