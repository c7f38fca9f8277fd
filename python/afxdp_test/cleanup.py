# SPDX-License-Identifier: BSD-3-Clause
"""One stack of undo actions for everything a test creates.

Each resource pushes its undo action when created and runs it when released
(after whatever was pushed later); whatever is still on the stack runs, last
first, when the
test ends, at interpreter exit, or on SIGTERM/SIGINT/SIGHUP (a signal raises
Interrupted in the main thread so that `with` blocks unwind; further signals
are ignored while the stack runs)."""

import atexit
import signal
import traceback

from . import env


class Interrupted(BaseException):
    def __init__(self, signum):
        super().__init__("interrupted by signal %d (%s)" % (signum, signal.Signals(signum).name))
        self.signum = signum


_stack = []
_installed = False
_errors = []
HANDLED_SIGNALS = env.HANDLED_SIGNALS


class Handle:
    def __init__(self, desc, fn):
        self.desc, self.fn, self.done = desc, fn, False


def push(desc, fn):
    h = Handle(desc, fn)
    _stack.append(h)
    return h


def release(h):
    """Run an undo action now, once. Everything pushed after it runs first,
    last first: what was created later may depend on it (a process inside a
    namespace), even when an interrupt skipped its owner's own release."""
    if h.done:
        return
    if h in _stack:
        i = _stack.index(h)
        while len(_stack) > i:
            top = _stack.pop()
            if not top.done:
                top.done = True
                _run_one(top)
    else:
        h.done = True
        _run_one(h)


def _run_one(h):
    try:
        h.fn()
    except BaseException as e:      # an undo action must never stop the others
        msg = "cleanup of %s failed: %s" % (h.desc, e)
        env.log(msg)
        env.log(traceback.format_exc())
        _errors.append(msg)


def run_all():
    ignore_signals()
    while _stack:
        h = _stack.pop()
        if not h.done:
            h.done = True
            _run_one(h)


def errors():
    return list(_errors)


def _on_signal(signum, frame):
    ignore_signals()
    raise Interrupted(signum)


def ignore_signals():
    for s in HANDLED_SIGNALS:
        try:
            signal.signal(s, signal.SIG_IGN)
        except (ValueError, OSError):
            pass


def install():
    global _installed
    if _installed:
        return
    _installed = True
    atexit.register(run_all)
    for s in HANDLED_SIGNALS:
        signal.signal(s, _on_signal)
