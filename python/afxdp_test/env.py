# SPDX-License-Identifier: BSD-3-Clause
"""The test run's environment: outcomes, the run id and its names, logging,
commands, the tools under test and the plugin.

Environment variables:
  AFXDP_PLUGIN     the driver plugin to load with `-d`; unset: Debian's stock
                   net_af_xdp, which EAL loads from its default plugin directory
  AFXDP_TESTPMD    dpdk-testpmd to run (default: from PATH)
  AFXDP_PROC_INFO  dpdk-proc-info to run (default: from PATH)
  AFXDP_KEEP       if set (non-empty, not 0): leave namespaces, mounts and files
                   of the run in place for debugging, and print how to remove them
  AFXDP_TIME_SCALE stretch every deadline and timeout by this factor (default 1;
                   the vm suite sets it: testpmd starts several times slower
                   under an emulated CPU)
"""

import contextlib
import ctypes
import os
import re
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time

# Everything a run creates is named after its run id, so concurrent runs do
# not collide and leftovers can be found (and reaped:
# tests/integration/cleanup.py).
RUN_ROOT = "/run/af-xdp-direct"
NETNS_PREFIX = "afxt-"          # netns  afxt-<rid>-<role>
IFACE_PREFIX = "ax"             # veth   ax<rid><role>  (<= 15 characters)
DPDK_PREFIX = "afxt-"           # --file-prefix afxt-<rid>-<n>
DPDK_RUNTIME = "/var/run/dpdk"
RID_LEN = 6                     # hex digits

STOCK_PMD_GLOB = "/usr/lib/*/dpdk/pmds-*/librte_net_af_xdp.so*"


class Skip(Exception):
    """The test cannot run here (exit 77)."""


class Failure(Exception):
    """The system under test misbehaved (exit 1)."""


class HarnessError(Exception):
    """The harness itself could not do its job (exit 99)."""


_t0 = time.monotonic()


def restart_clock():
    """Log times from now: for a test forked from a process that imported
    this module earlier (tests/integration/vm_suite.py)."""
    global _t0
    _t0 = time.monotonic()

# Deadlines are only against hangs; an emulated CPU needs longer ones.
TIME_SCALE = float(os.environ.get("AFXDP_TIME_SCALE") or 1)


def scaled(seconds):
    return seconds * TIME_SCALE


def deadline(seconds):
    """The monotonic time `seconds` (scaled) from now."""
    return time.monotonic() + scaled(seconds)


# "# " when the test reports as TAP (runner.run_session): its log lines are
# then TAP comments.
LOG_PREFIX = ""


def log(msg=""):
    try:
        for line in str(msg).splitlines() or [""]:
            sys.stdout.write("%s[%7.2f] %s\n" % (LOG_PREFIX, time.monotonic() - _t0, line))
        sys.stdout.flush()
    except OSError:
        pass        # the reader is gone (a killed test runner): carry on cleaning up


_rid = None


def run_id():
    """A short random id for this run; kept free of collisions with live runs."""
    global _rid
    if _rid is None:
        while True:
            rid = secrets.token_hex(RID_LEN // 2)
            if not os.path.exists(os.path.join(RUN_ROOT, rid)):
                break
        _rid = rid
    return _rid


def run_dir():
    """/run/af-xdp-direct/<rid>: root-owned, 0755, removed at the end of the run.
    Holds the owner's pid (for tests/integration/cleanup.py --stale), mounts
    and staged files."""
    d = os.path.join(RUN_ROOT, run_id())
    if not os.path.isdir(d):
        os.makedirs(RUN_ROOT, mode=0o755, exist_ok=True)
        os.chmod(RUN_ROOT, 0o755)
        os.mkdir(d, 0o755)
        with open(os.path.join(d, "owner"), "w") as f:
            f.write("%d\n" % os.getpid())
    return d


def keep():
    return os.environ.get("AFXDP_KEEP", "") not in ("", "0")


# --- processes -------------------------------------------------------------

libc = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1
HANDLED_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
END_GRACE = 5            # seconds between SIGTERM and SIGKILL


@contextlib.contextmanager
def signals_deferred():
    """Hold SIGTERM/SIGINT/SIGHUP until the block ends, so that a process
    started inside it is recorded before an interrupt can unwind the test."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, HANDLED_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


CLONE_NEWNET = 0x40000000
NETNS_DIR = "/var/run/netns"        # where `ip netns` keeps its namespaces


def netns_names():
    """The names `ip netns list` shows: the files of NETNS_DIR, read here (a
    process to start is most of a second under the VM's emulated CPU)."""
    try:
        return sorted(os.listdir(NETNS_DIR))
    except FileNotFoundError:
        return []


def netns_pids(ns):
    """The pids of the processes in network namespace `ns`, as `ip netns pids`
    finds them: each /proc/<pid>/ns/net that is the namespace's file (same
    device and inode)."""
    try:
        st = os.stat(os.path.join(NETNS_DIR, ns))
    except FileNotFoundError:
        return []
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            s = os.stat("/proc/%s/ns/net" % entry)
        except OSError:
            continue        # gone, or a kernel thread's
        if (s.st_dev, s.st_ino) == (st.st_dev, st.st_ino):
            out.append(int(entry))
    return sorted(out)


def in_netns(ns, fn):
    """fn() on a thread of its own that entered network namespace `ns` (an
    `ip netns` name), so that a socket it makes lives there: no process to
    start (most of a second under the VM's emulated CPU).  setns() moves
    only the calling thread, which then ends.  Returns fn()'s value, or
    raises what it raised."""
    out = {}

    def body():
        try:
            fd = os.open(os.path.join(NETNS_DIR, ns), os.O_RDONLY | os.O_CLOEXEC)
            try:
                if libc.setns(fd, CLONE_NEWNET) != 0:
                    e = ctypes.get_errno()
                    raise OSError(e, "setns into netns %s: %s" % (ns, os.strerror(e)))
            finally:
                os.close(fd)
            out["value"] = fn()
        except BaseException as e:          # handed to the caller's thread
            out["error"] = e

    t = threading.Thread(target=body, name="netns " + ns)
    t.start()
    t.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def _child_setup():
    # The child inherits the blocked mask of signals_deferred(): undo it.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, HANDLED_SIGNALS)
    # A child outliving a SIGKILLed harness would keep its namespace alive.
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def end_process(p, grace=END_GRACE):
    """A process we started (Popen): SIGTERM, then SIGKILL if it has not
    exited within `grace` seconds."""
    if p.poll() is not None:
        return
    p.terminate()
    try:
        p.wait(grace)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def _running(pid):
    """True while `pid` exists and is not a zombie (which has already exited)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def end_pids(pids, grace=END_GRACE):
    """Processes we did not start (found in a namespace or by name): SIGTERM,
    then SIGKILL to those still running `grace` seconds later. Returns the
    pids that outlived both."""
    left = list(pids)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for p in left:
            try:
                os.kill(p, sig)
            except ProcessLookupError:
                pass
        end = deadline(grace)
        while left and time.monotonic() < end:
            left = [p for p in left if _running(p)]
            if left:
                time.sleep(0.1)
        if not left:
            break
    return left


def unmount(path, tries=50, gap=0.1):
    """umount `path`, retrying while it is busy (a process of the run may
    still be exiting); HarnessError if it stays mounted."""
    for _ in range(tries):
        cp = run(["umount", path], check=False)
        if cp.returncode == 0:
            return
        time.sleep(gap)
    raise HarnessError("cannot unmount %s: %s" % (path, cp.stderr.strip()))


def popen(args, ns=None, register=True, **kw):
    """Start a long-running process (in namespace `ns`), killed if we die.
    With `register`, ending it is put on the clean-up stack before any
    interrupt can intervene; without, the caller must record it inside its own
    signals_deferred() block."""
    from . import cleanup
    if ns:
        args = ["ip", "netns", "exec", ns] + list(args)
    with signals_deferred():
        p = subprocess.Popen(args, preexec_fn=_child_setup, **kw)
        if register:
            cleanup.push("process %d (%s)" % (p.pid, " ".join(args[:6])),
                         lambda: end_process(p))
    return p


def run(args, ns=None, check=True, timeout=60, input=None):
    """Run a command to completion (in namespace `ns`); output captured as text."""
    if ns:
        args = ["ip", "netns", "exec", ns] + list(args)
    with signals_deferred():
        p = subprocess.Popen(args, stdin=subprocess.PIPE if input is not None else None,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=_child_setup)
    try:
        out, err = p.communicate(input, timeout=scaled(timeout))
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        raise HarnessError("timed out after %ss: %s\n%s%s" % (
            timeout, " ".join(args), out, err)) from None
    except BaseException:
        p.kill()
        p.wait()
        raise
    cp = subprocess.CompletedProcess(args, p.returncode, out, err)
    if check and cp.returncode != 0:
        raise HarnessError("failed (exit %d): %s\n%s%s" % (
            cp.returncode, " ".join(args), cp.stdout, cp.stderr))
    return cp


def pids_matching(token):
    """Pids (not ours) whose command line contains `token`."""
    found = []
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if token in cmdline:
            found.append((int(entry), cmdline.strip()))
    return found


# --- the programs and the driver under test ----------------------------------

def tool(env_var, name):
    path = os.environ.get(env_var) or shutil.which(name)
    if not path or not os.access(path, os.X_OK):
        raise Skip("%s not found (install Debian's dpdk package or set %s)" % (name, env_var))
    return path


def dpdk_example(env_var, name, needs=""):
    """The path of DPDK's example `name` that the build made from the DPDK
    source tree (tests/dpdk_examples; env_var names it), or Skip saying
    what it takes; `needs` adds to that."""
    path = os.environ.get(env_var) or ""
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise Skip("%s not built (%s=%r): it is built from the DPDK source tree given as "
                   "-Ddpdk_sdk%s" % (name, env_var, path, needs))
    return path


def linked_library(path, name):
    """The soname of library `name` ("librte_eal") that the ELF file at `path`
    needs (readelf's NEEDED entries): "librte_eal.so.23" for DPDK 22.11."""
    cp = run(["readelf", "-d", path], timeout=30)
    m = re.search(r"\(NEEDED\)\s+Shared library: \[(%s\.so\.\d+)\]" % re.escape(name),
                  cp.stdout)
    if not m:
        raise Skip("%s does not link %s (readelf -d)" % (path, name))
    return m.group(1)


def testpmd_path():
    return tool("AFXDP_TESTPMD", "dpdk-testpmd")


def proc_info_path():
    return tool("AFXDP_PROC_INFO", "dpdk-proc-info")


def plugin_requested():
    return os.environ.get("AFXDP_PLUGIN") or None


SOCKET_MODES = ("copy", "zero-copy")


def socket_mode():
    """The AF_XDP mode the run asks of our driver (AFXDP_SOCKET_MODE): "copy"
    adds force_copy=1 to each port's devargs that does not set it (the vm
    suite's copy-mode variants, on a kernel whose veth offers zero-copy);
    "zero-copy" makes TestPmd check at start that every port's first queue
    is in zero-copy mode (the vm-zc); unset, the driver chooses
    (zero-copy where the interface offers it)."""
    mode = os.environ.get("AFXDP_SOCKET_MODE") or None
    if mode is not None and mode not in SOCKET_MODES:
        raise ValueError("AFXDP_SOCKET_MODE=%s: expected one of %s"
                         % (mode, ", ".join(SOCKET_MODES)))
    return mode


def is_stock():
    return plugin_requested() is None


def driver_description():
    p = plugin_requested()
    if p:
        return "plugin %s (AFXDP_PLUGIN)" % p
    import glob
    stock = sorted(glob.glob(STOCK_PMD_GLOB))
    return "Debian's stock net_af_xdp (%s; AFXDP_PLUGIN unset)" % (stock[0] if stock else "not found")


def check_driver_present():
    p = plugin_requested()
    if p:
        if not os.path.isfile(p):
            raise Skip("AFXDP_PLUGIN=%s: no such file (build the driver first)" % p)
    else:
        import glob
        if not glob.glob(STOCK_PMD_GLOB):
            raise Skip("AFXDP_PLUGIN unset and Debian's stock net_af_xdp is not installed "
                       "(%s)" % STOCK_PMD_GLOB)


def _world_writable_component(path):
    d = os.path.dirname(os.path.realpath(path))
    while True:
        if os.stat(d).st_mode & stat.S_IWOTH:
            return d
        if d == "/":
            return None
        d = os.path.dirname(d)


def stage_plugin(path):
    """A path EAL will load the plugin at `path` from.

    EAL refuses to dlopen a plugin when any directory on its real path is
    world-writable (e.g. /tmp); such a plugin is copied into this run's
    root-owned 0755 directory, which is removed with the run."""
    bad = _world_writable_component(path)
    if bad is None:
        return os.path.realpath(path)
    d = os.path.join(run_dir(), "plugins")
    os.makedirs(d, mode=0o755, exist_ok=True)
    dst = os.path.join(d, os.path.basename(path))
    shutil.copy2(path, dst)
    os.chmod(dst, 0o755)
    log("plugin staged: %s -> %s (EAL refuses plugins under the world-writable %s)"
        % (path, dst, bad))
    return dst


_staged = None


def plugin():
    """The path to give EAL's -d for AFXDP_PLUGIN (staged once), or None for
    the stock driver."""
    global _staged
    p = plugin_requested()
    if p is None:
        return None
    if _staged is None:
        _staged = stage_plugin(p)
    return _staged
