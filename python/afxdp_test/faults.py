# SPDX-License-Identifier: BSD-3-Clause
"""A kernel that refuses, on demand: tests/faults/refuse.c preloaded into a
process makes the kernel features it is told to refuse fail as a kernel
without them fails them (the fault names are that file's), whatever the
machine's kernel allows.  A test runs the refusal path with it on every
kernel, and reads from its log that the refusal did happen:

    with faults.Refusal("helper:bpf_xdp_adjust_meta") as r:
        with testpmd.TestPmd(dut, vdevs, wrapper=r.wrapper()) as tp:
            ...
        t.check(r.seen("helper", "bpf_xdp_adjust_meta"), ...)

Environment: AFXDP_REFUSE_LIB, the library (the build sets it).
"""

import os

from . import cleanup, env


def library():
    """The preloadable library's path, or Skip where the build made none."""
    path = os.environ.get("AFXDP_REFUSE_LIB") or ""
    if not os.path.isfile(path):
        raise env.Skip("no fault library (AFXDP_REFUSE_LIB=%r): refusals on demand need "
                       "the build's tests/faults/libafxdp_refuse.so" % path)
    return path


_count = 0


class Refusal:
    """The faults to inject (refuse.c's names), and the log of those that
    happened, in this run's directory, removed with the object."""

    def __init__(self, *faults):
        global _count
        if not faults:
            raise ValueError("Refusal needs at least one fault")
        self.faults = list(faults)
        self.lib = library()
        _count += 1
        self.log_path = os.path.join(env.run_dir(), "refused-%d.log" % _count)
        self._undo = None

    def __enter__(self):
        open(self.log_path, "w").close()
        os.chmod(self.log_path, 0o666)      # a process run as another user appends too
        self._undo = cleanup.push("refusal log %s" % self.log_path, self._remove)
        return self

    def __exit__(self, *exc):
        cleanup.release(self._undo)

    def _remove(self):
        if os.path.exists(self.log_path):
            os.unlink(self.log_path)

    def environ(self):
        """The variables that make a process refuse (for subprocess's env)."""
        return {"LD_PRELOAD": self.lib, "AFXDP_REFUSE": ",".join(self.faults),
                "AFXDP_REFUSE_LOG": self.log_path}

    def wrapper(self):
        """A command prefix that runs a program with the refusals (TestPmd's wrapper)."""
        return ["env"] + ["%s=%s" % kv for kv in self.environ().items()]

    def refused(self):
        """[(fault, detail)] of every refusal so far, in order."""
        with open(self.log_path) as f:
            return [tuple(line.split(" ", 1)) if " " in line else (line, "")
                    for line in f.read().splitlines()]

    def seen(self, fault, detail=None):
        """Whether `fault` (with `detail`, if given) was refused at least once."""
        return any(f == fault and (detail is None or d == detail) for f, d in self.refused())
