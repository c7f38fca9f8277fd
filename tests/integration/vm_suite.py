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

Each test runs in a fork of this process, which imported the tests'
library once (python/afxdp_test): a new python under TCG would start and
compile that library again (PYTHONDONTWRITEBYTECODE, on a read-only root)
for every test.  Measured (2026-12-03, four tests in one boot, second
round): 62.6 s as forks, 64.5 s as pythons of their own: half a second a
test, within the machine's noise.

A boot that dies (kernel/vm-run.sh boots once more after qemu's stale int3)
resumes: what was done is in $AFXDP_VM_KEEP, which the second boot keeps;
the test that was running when the guest died runs again, the others are
not repeated, and their lines are not printed twice.

AFXDP_VM_ONLY=name[,name...] runs only those tests (e.g. io_fwd in vm-zc); a
boot with none of them is skipped.

NAME may be TEST/CHECK[+CHECK...]: only those checks of a test that runs
several (runner.run_session; AFXDP_CHECKS in its environment), e.g. the
checks whose kernel part only our kernel allows where the host refuses it
(copy_umem/offloads).
"""

import atexit
import importlib
import os
import pkgutil
import re
import runpy
import select
import signal
import subprocess
import sys
import threading
import time
import traceback


def kernel_problems(path=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                      "..", "..", "kernel", "kernel-problems.ere")):
    """What in the kernel's log fails a test: the expressions kernel/vm-init.sh
    fails a whole job on (WARN, BUG, lockdep, PROVE_RCU, KASAN, UBSAN,
    kmemleak), joined as it joins them."""
    with open(path) as f:
        lines = [l.rstrip("\n") for l in f]
    return re.compile("|".join(l for l in lines if l and not l.startswith("#")))


KERNEL_PROBLEM = kernel_problems()
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


def preload_library():
    """Import every module of the tests' library here, so that each test,
    a fork of this process, finds them loaded.  The tests' state lives in
    those modules, untouched here: each fork starts from it as a new python
    would."""
    try:
        import afxdp_test
    except ImportError:
        return          # each test imports what it needs, as a python of its own would
    for mod in pkgutil.iter_modules(afxdp_test.__path__):
        importlib.import_module("afxdp_test." + mod.name)


def exit_code(e):
    """The status a python leaving with SystemExit e ends with."""
    if e.code is None or isinstance(e.code, int):
        return e.code or 0
    sys.stderr.write("%s\n" % e.code)
    return 1


def run_script(script):
    """In a fresh fork: run script as __main__ would be run by a python of its
    own, and end the process with its exit status, atexit handlers run."""
    code = 1
    try:
        sys.argv = [script]
        sys.path[0] = os.path.dirname(os.path.abspath(script))
        env = sys.modules.get("afxdp_test.env")
        if env is not None:
            env.restart_clock()
        runpy.run_path(script, run_name="__main__")
        code = 0
    except SystemExit as e:
        code = exit_code(e)
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            atexit._run_exitfuncs()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)


def start_test(script, checks=None):
    """Fork a process that runs script in a session of its own (only
    `checks` of it, "a+b", where given), its stdout and stderr on a pipe:
    (pid, the pipe's read end as text)."""
    r, w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid != 0:
        os.close(w)
        return pid, os.fdopen(r, "r", errors="replace")
    os.setsid()
    if checks:
        os.environ["AFXDP_CHECKS"] = checks
    os.close(r)
    os.dup2(w, 1)
    os.dup2(w, 2)
    os.close(w)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))     # as subprocess's close_fds
    sys.stdout = sys.stderr = open(1, "w", buffering=1, errors="replace", closefd=False)
    run_script(script)


def wait_test(pid, timeout):
    """The exit status of child pid, or None when it is still running after
    timeout seconds (None: wait for good)."""
    pidfd = os.pidfd_open(pid)
    try:
        if not select.select([pidfd], [], [], timeout)[0]:
            return None
    finally:
        os.close(pidfd)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


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
    pid, pipe = start_test(script, name.partition("/")[2])
    # A thread copies the output: a process the test left behind may hold
    # the pipe open after the test has ended.
    reader = threading.Thread(target=copy_output, args=(pipe, output), daemon=True)
    reader.start()
    timed_out = False
    rc = wait_test(pid, timeout)
    if rc is None:
        # SIGTERM first: the test cleans up what it made (namespaces, EAL
        # files, programs) before the next one runs.
        timed_out = True
        os.killpg(pid, signal.SIGTERM)
        rc = wait_test(pid, 30)
        if rc is None:
            os.killpg(pid, signal.SIGKILL)
            rc = wait_test(pid, None)
    reader.join(5)
    if not reader.is_alive():
        pipe.close()
    else:
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
    preload_library()
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
