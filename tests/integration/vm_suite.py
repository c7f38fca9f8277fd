#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Run many integration tests inside one boot of the VM, as TAP.

Usage (in the guest, through kernel/vm-run.sh):
    vm_suite.py NAME:TIMEOUT:SCRIPT...

One boot per socket mode instead of one per test: the boot, python's start
and the hugepage reservation cost about 7 s under TCG, more than many checks.
Each SCRIPT runs in turn as the vm- tests did alone, with its own deadline
(TIMEOUT seconds, then it is killed and counted failed); its output is
shown as TAP comments ("# ..."), its result as one TAP line: ok (exit 0),
ok # SKIP with its reason (77), not ok (anything else, or a kernel WARNING
or BUG logged while it ran: a test that passed then fails, as a job of its
own did). meson reads the lines (protocol 'tap'); scripts/test-summary.py
counts them one by one.

A boot that dies (kernel/vm-run.sh boots once more after qemu's stale int3)
resumes: what was done is in $AFXDP_VM_KEEP, which the second boot keeps;
the test that was running when the guest died runs again, the others are
not repeated, and their lines are not printed twice.

AFXDP_VM_ONLY=name[,name...] runs only those tests (e.g. io_fwd in vm-zc); a
boot with none of them is skipped.
"""

import os
import re
import signal
import subprocess
import sys
import threading
import time

KERNEL_PROBLEM = re.compile(r"WARNING: CPU|BUG:|Call Trace")
SKIP = 77


def parse_args(argv):
    tests = []
    for arg in argv:
        name, timeout, script = arg.split(":", 2)
        tests.append((name, float(timeout), script))
    only = [n for n in os.environ.get("AFXDP_VM_ONLY", "").split(",") if n]
    return [t for t in tests if not only or t[0] in only]


class Progress:
    """What earlier boots of this job did, in $AFXDP_VM_KEEP/tap: the plan
    once, then each test's TAP line, appended and synced as it ends."""

    def __init__(self):
        keep = os.environ.get("AFXDP_VM_KEEP")
        self.path = os.path.join(keep, "tap") if keep else None
        self.lines = []
        if self.path and os.path.exists(self.path):
            with open(self.path) as f:
                self.lines = f.read().splitlines()

    def planned(self):
        return bool(self.lines)

    def done(self):
        """{test name: its TAP line} of the tests already reported."""
        out = {}
        for line in self.lines[1:]:
            m = re.match(r"(?:not )?ok \d+ - (\S+)", line)
            if m:
                out[m.group(1)] = line
        return out

    def emit(self, line):
        print(line, flush=True)
        if self.path:
            with open(self.path, "a") as f:
                f.write(line + "\n")
                f.flush()
                os.fsync(f.fileno())


def kernel_log():
    cp = subprocess.run(["dmesg"], capture_output=True, text=True)
    return cp.stdout.splitlines()


def skip_reason(output):
    for line in reversed(output):
        if "skip" in line.lower():
            return line.strip()[:200]
    return output[-1].strip()[:200] if output else "no reason given"


def copy_output(pipe, output):
    for line in pipe:
        output.append(line)
        sys.stdout.write("# " + line)
        sys.stdout.flush()


def run_one(name, timeout, script):
    """Run one test script; (TAP verdict, directive) from its exit, its
    output shown as TAP comments."""
    print("# --- %s (%s)" % (name, script), flush=True)
    t0 = time.monotonic()
    before = len(kernel_log())
    output = []
    p = subprocess.Popen([sys.executable, script], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, errors="replace",
                         start_new_session=True)
    # A thread copies the output: a process the test left behind may hold
    # the pipe open after the test has ended.
    reader = threading.Thread(target=copy_output, args=(p.stdout, output), daemon=True)
    reader.start()
    timed_out = False
    try:
        rc = p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        # SIGTERM first: the test cleans up what it made (namespaces, EAL
        # files, programs) before the next one runs.
        timed_out = True
        os.killpg(p.pid, signal.SIGTERM)
        try:
            rc = p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            rc = p.wait()
    reader.join(5)
    if reader.is_alive():
        print("# (%s's output is still open: a process it started is still running)" % name)
    took = "%.1f s" % (time.monotonic() - t0)
    problems = [l for l in kernel_log()[before:] if KERNEL_PROBLEM.search(l)]
    if problems and os.environ.get("AFXDP_VM_ALLOW_KERNEL_WARN", "0") != "1":
        print("# the kernel reported a problem while %s ran:" % name)
        for line in problems:
            print("#   " + line)
        return "not ok", "# kernel WARNING or BUG, %s" % took
    if timed_out:
        return "not ok", "# killed after %.0f s" % timeout
    if rc == 0:
        return "ok", "# %s" % took
    if rc == SKIP:
        return "ok", "# SKIP %s" % skip_reason(output)
    return "not ok", "# exit status %d, %s" % (rc, took)


def main():
    tests = parse_args(sys.argv[1:])
    if not tests:
        print("1..0 # SKIP AFXDP_VM_ONLY names none of this boot's tests")
        return 0
    progress = Progress()
    if not progress.planned():
        progress.emit("1..%d" % len(tests))
    done = progress.done()
    failed = sum(line.startswith("not ok") for line in done.values())
    for number, (name, timeout, script) in enumerate(tests, 1):
        if name in done:
            continue
        verdict, directive = run_one(name, timeout, script)
        failed += verdict == "not ok"
        progress.emit("%s %d - %s %s" % (verdict, number, name, directive))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
