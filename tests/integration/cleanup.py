#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Remove what integration-test runs left behind.

A run cleans up after itself, even on SIGTERM/SIGINT; only SIGKILL (or
AFXDP_KEEP=1, on purpose) leaves its namespaces, processes, hugetlbfs mount and
hugepages, EAL runtime files and run directory in place.

  cleanup.py RUNID...   remove those runs' leftovers (the run id is printed
                        at the top of each test's output)
  cleanup.py --stale    remove the leftovers of every run whose process is gone
  cleanup.py --list     show the leftovers of stale runs, remove nothing
"""

import os
import sys

from afxdp_test import reap


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    if os.geteuid() != 0:
        print("cleanup.py: needs root", file=sys.stderr)
        return 1
    if argv[0] in ("--stale", "--list"):
        rids = reap.stale_run_ids()
        if not rids:
            print("no stale runs")
            return 0
    else:
        rids = argv
    rc = 0
    for rid in rids:
        if argv[0] == "--list":
            print("run %s:" % rid)
            for item in reap.leftovers(rid):
                print("  " + item)
            continue
        print("run %s:" % rid)
        left = reap.reap(rid, say=lambda m: print("  " + m))
        for item in left:
            print("  still present: " + item)
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
