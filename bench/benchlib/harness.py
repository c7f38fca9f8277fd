# SPDX-License-Identifier: BSD-3-Clause
"""A benchmark's run under the afxdp_test library's clean-up: what it made
(namespaces, veths, programs, processes) goes, whatever happens."""

import sys

from afxdp_test import cleanup, env, reap


def run_measured(name, measure):
    """measure() with the clean-up installed and its run id's leftovers
    removed afterwards. Returns 0, or 1 when the run stopped early (the
    reason printed, prefixed with name)."""
    cleanup.install()
    rid = env.run_id()
    try:
        env.run_dir()       # marks the run live (tests/integration/cleanup.py --stale)
        measure()
    except (cleanup.Interrupted, env.HarnessError, env.Failure, env.Skip, OSError) as e:
        print("%s: stopped: %s" % (name, e), file=sys.stderr)
        return 1
    finally:
        cleanup.ignore_signals()
        cleanup.run_all()
        reap.remove_run_dir(rid)
        left = reap.leftovers(rid)
        if left:
            print("%s: left behind, removing: %s" % (name, "; ".join(left)), file=sys.stderr)
            reap.reap(rid)
    return 0
