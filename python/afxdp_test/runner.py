# SPDX-License-Identifier: BSD-3-Clause
"""Runs one test script: preconditions, outcome, cleanup, leftover check.

Ours, not pytest's: meson reads exit codes (pytest exits 0 when every test
skipped, not 77), one script is one meson test, and the soft checks
(Test.check) report every mismatch of a run at once, which assert cannot.

Exit codes (meson's convention): 0 pass, 1 fail, 77 skip, 99 harness error.
After the test, whatever it created has been removed; anything of the run
still present (netns, interface, process, mount, XDP program, EAL files)
fails the test.

    def main(t):
        ...
        t.check(got == want, "what was checked")

    if __name__ == "__main__":
        runner.run(main, "name", "one line of what the test checks")
"""

import os
import shutil
import signal
import sys
import time
import traceback

from . import cleanup, env, reap, testpmd, topo

EXIT_PASS, EXIT_FAIL, EXIT_SKIP, EXIT_ERROR = 0, 1, 77, 99
# <top>/python, and the command that removes a kept or killed run's leftovers.
LIB_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLEANUP_PY = os.path.join(os.path.dirname(LIB_DIR), "tests", "integration", "cleanup.py")


class Test:
    """Handed to the test: soft checks, logged and collected."""

    def __init__(self, name):
        self.name = name
        self.failures = []

    def check(self, ok, what, detail=""):
        if ok:
            env.log("ok: %s" % what)
        else:
            env.log("FAILED: %s%s" % (what, ("\n" + detail) if detail else ""))
            self.failures.append(what)
        return ok

    def equal(self, got, want, what):
        return self.check(got == want, "%s: %r%s" % (
            what, got, "" if got == want else " (expected %r)" % (want,)))

    def require(self, ok, what, detail=""):
        """Like check, but stop the test when it fails."""
        if not self.check(ok, what, detail):
            raise env.Failure(what)

    def quit_testpmd(self, tp, net):
        """quit testpmd: it must exit with 0 and leave no XDP program behind."""
        rc, _ = tp.quit()
        self.equal(rc, 0, "%s exit code after quit" % tp.label)
        left = net.check_no_xdp()
        self.check(not left, "no XDP program left attached after testpmd quit",
                   "\n".join(left))

    @staticmethod
    def stock_note(text):
        """Appended to a failure that Debian's stock driver is known to cause."""
        return (" [expected with Debian's stock driver: %s]" % text) if env.is_stock() else ""


def preflight():
    if os.geteuid() != 0:
        raise env.Skip("needs root (network namespaces, veth, XDP, AF_XDP)")
    for prog in ("ip", "ethtool", "mount"):
        if not shutil.which(prog):
            raise env.Skip("%s not found (Debian packages iproute2, ethtool)" % prog)
    if not os.path.exists("/proc/self/ns/net"):
        raise env.Skip("the kernel has no network namespaces")
    env.check_driver_present()
    env.testpmd_path()


def _detach():
    """Run the test in a child process in its own session; this process only
    relays signals and the exit code.

    meson kills a test's process group with SIGTERM and, 0.5 s later,
    SIGKILL: too soon to end testpmd and remove namespaces. The child is out
    of that group, receives the SIGTERM from here, and also when this process
    dies (PR_SET_PDEATHSIG), so it always gets to clean up."""
    parent = os.getpid()
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        os.setsid()
        env.libc.prctl(env.PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:          # the parent died before prctl
            os.kill(os.getpid(), signal.SIGTERM)
        return
    for s in cleanup.HANDLED_SIGNALS:
        signal.signal(s, lambda signum, frame: os.kill(pid, signum))
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    code = os.waitstatus_to_exitcode(status)
    os._exit(code if code >= 0 else 128 - code)


class Session:
    """A TAP report of several checks run against one set-up (runner.run_session)."""

    def __init__(self, name, checks):
        self.name, self.checks = name, checks
        self.number = 0

    def emit(self, ok, what, directive=""):
        self.number += 1
        sys.stdout.write("%s %d - %s%s\n" % ("ok" if ok else "not ok", self.number, what,
                                             (" # " + directive) if directive else ""))
        sys.stdout.flush()


def run_session(name, description, setup, checks):
    """Run `checks`, [(check name, fn(t, session))], one after another
    against the one set-up `setup(t)` (a context manager whose value is
    handed to each), and report each as a TAP line (meson protocol 'tap');
    a last line, `<name>/session`, reports the set-up's end and the
    leftover check. Log lines become TAP comments. A failed check does not
    stop the others; one that leaves the set-up unusable (an exception
    other than a failed check) fails the ones after it too; one that
    raises env.Skip is reported `ok ... # SKIP <why>`.

    Exit codes as run()'s: meson takes a TAP test's non-zero exit for an
    error beside its failed lines, as for the vm suite's boots. With
    AFXDP_TAP=1 (meson on the host) a skip is TAP's `1..0 # SKIP`, exit 0.
    AFXDP_CHECKS=a+b runs only those checks (the vm suite's TEST/CHECK)."""
    env.LOG_PREFIX = "# "
    only = [c for c in os.environ.get("AFXDP_CHECKS", "").split("+") if c]
    if only:
        unknown = set(only) - {c for c, _ in checks}
        if unknown:
            raise ValueError("AFXDP_CHECKS names checks %s has not: %s"
                             % (name, ", ".join(sorted(unknown))))
        checks = [(c, fn) for c, fn in checks if c in only]
    sess = Session(name, checks)

    def main(t):
        with setup(t) as ctx:
            broken = None
            for cname, fn in checks:
                sub = Test("%s/%s" % (name, cname))
                skipped = None
                if broken:
                    sub.failures.append("not run: %s" % broken)
                else:
                    try:
                        fn(sub, ctx)
                    except env.Failure as e:
                        if not sub.failures:
                            sub.failures.append(str(e).splitlines()[0])
                    except env.Skip as e:
                        skipped = str(e)
                        env.log("SKIP %s/%s: %s" % (name, cname, e))
                    except cleanup.Interrupted:
                        raise
                    except Exception as e:
                        env.log(traceback.format_exc())
                        broken = "%s: %s" % (cname, str(e).splitlines()[0] if str(e) else
                                             type(e).__name__)
                        sub.failures.append(broken)
                sess.emit(not sub.failures, "%s/%s" % (name, cname),
                          "; ".join(sub.failures)[:300] if sub.failures else
                          "SKIP %s" % skipped if skipped else "")
                t.failures += ["%s: %s" % (cname, f) for f in sub.failures]
            if broken:
                raise env.HarnessError(broken)
            t.failures_before_session_end = len(t.failures)

    run(main, name, description, session=sess)


def run(fn, name, description, session=None):
    _detach()
    cleanup.install()
    rid = env.run_id()
    t = Test(name)
    rc, reason = EXIT_ERROR, "?"
    started = False         # past the preconditions: things may have been created
    start = time.monotonic()
    env.log("test %s: %s" % (name, description))
    env.log("driver under test: %s" % env.driver_description())
    env.log("run id %s (names afxt-%s-*, ax%s*)" % (rid, rid, rid))
    try:
        preflight()
        started = True
        env.run_dir()           # marks the run as live, for cleanup.py --stale
        fn(t)
        if t.failures:
            rc, reason = EXIT_FAIL, "; ".join(t.failures)
        else:
            rc, reason = EXIT_PASS, "all checks passed"
    except env.Skip as e:
        # A check that failed before the skip still fails the test.
        if t.failures:
            rc, reason = EXIT_FAIL, "; ".join(t.failures) + " (then skipped: %s)" % e
        else:
            rc, reason = EXIT_SKIP, str(e)
    except env.Failure as e:
        rc, reason = EXIT_FAIL, "; ".join(t.failures) if t.failures else str(e).splitlines()[0]
        if not t.failures:
            env.log("FAILED: %s" % e)
    except cleanup.Interrupted as e:
        rc, reason = EXIT_FAIL, str(e)
        env.log(reason)
    except env.HarnessError as e:
        rc, reason = EXIT_ERROR, "harness error: %s" % str(e).splitlines()[0]
        env.log("HARNESS ERROR: %s" % e)
    except Exception:
        rc, reason = EXIT_ERROR, "harness error (exception)"
        env.log(traceback.format_exc())
    finally:
        cleanup.ignore_signals()    # from here on, nothing may cut the clean-up short
        if rc in (EXIT_FAIL, EXIT_ERROR):
            for tp in testpmd.INSTANCES:
                if tp.report and tp.transcript:
                    env.log(tp.tail())
        cleanup.run_all()

    if not started:
        pass
    elif env.keep():
        env.log("AFXDP_KEEP: everything of run %s left in place; remove it with:" % rid)
        env.log("  PYTHONPATH=%s python3 %s %s" % (LIB_DIR, CLEANUP_PY, rid))
    else:
        leaks = list(topo.LEAKS) + cleanup.errors()
        reap.remove_run_dir(rid)
        left = reap.leftovers(rid)
        if left:
            env.log("LEFT BEHIND by run %s (removing now):" % rid)
            for item in left:
                env.log("  " + item)
            reap.reap(rid, say=lambda m: env.log("  reap: " + m))
            leaks.append("harness left %d item(s) behind" % len(left))
        for item in leaks:
            env.log("LEAK: %s" % item)
        if leaks:
            if rc in (EXIT_PASS, EXIT_SKIP):
                rc = EXIT_FAIL if topo.LEAKS else EXIT_ERROR
            reason += "; left behind: " + "; ".join(leaks)
        else:
            env.log("nothing left behind (netns, interfaces, processes, mounts, EAL files, XDP)")

    word = {EXIT_PASS: "PASS", EXIT_FAIL: "FAIL", EXIT_SKIP: "SKIP"}.get(rc, "ERROR")
    env.log("RESULT %s: %s (%s) in %.1fs" % (word, name, reason, time.monotonic() - start))
    if session is not None:
        rc = _end_session(session, t, rc, reason)
    sys.stdout.flush()
    sys.exit(rc)


def _end_session(sess, t, rc, reason):
    """The TAP lines after the checks: the session's own, then the plan.
    Returns the exit code."""
    tap = os.environ.get("AFXDP_TAP") == "1"
    if rc == EXIT_SKIP and sess.number == 0:
        sys.stdout.write("1..0 # SKIP %s\n" % reason)
        return EXIT_PASS if tap else rc
    # What failed besides the checks (their failures are in t.failures
    # first): the set-up, the clean-up, the leftover check.
    checked = getattr(t, "failures_before_session_end", None)
    own = t.failures[checked:] if checked is not None else t.failures
    ok = rc == EXIT_PASS or (rc == EXIT_FAIL and checked is not None and not own
                             and "left behind" not in reason)
    sess.emit(ok, "%s/session" % sess.name, "" if ok else reason[:300])
    for cname, _ in sess.checks[sess.number - 1:]:
        sess.emit(False, "%s/%s" % (sess.name, cname), "not run")
    sys.stdout.write("1..%d\n" % sess.number)
    return rc
