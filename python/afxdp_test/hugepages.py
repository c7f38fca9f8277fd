# SPDX-License-Identifier: BSD-3-Clause
"""Hugepages for a DPDK primary that a secondary process must attach to
(a --no-huge primary shares no memory). Adds this run's pages to the pool and
mounts a private hugetlbfs; on release unmounts it and takes the pages back
out of the pool, so the system ends as it was. Several runs may do this at
the same time: each adds and removes only its own pages, under a lock.

    with HugePages(pages=192) as hp:
        TestPmd(..., huge_dir=hp.mount)

With system=True the pages go to the system's default hugetlbfs,
/dev/hugepages, as a user has them: mounted there if nothing is (systemd's
dev-hugepages.mount does so on most systems) and unmounted after; left
mounted if it was; the files a DPDK process of file prefix `prefix` left
there removed.
"""

import fcntl
import os

from . import cleanup, env

PAGE_KB = 2048
NR_PATH = "/sys/kernel/mm/hugepages/hugepages-%dkB/nr_hugepages" % PAGE_KB
FREE_PATH = "/sys/kernel/mm/hugepages/hugepages-%dkB/free_hugepages" % PAGE_KB
RECORD = "hugepages-added"      # in the run directory: pages to give back


def _read(path):
    with open(path) as f:
        return int(f.read().strip())


def _write(path, value):
    with open(path, "w") as f:
        f.write("%d\n" % value)


class _Lock:
    """Serialises changes to the pool between runs: a lock on the directory
    that holds the runs (no lock file to leave behind)."""

    def __enter__(self):
        os.makedirs(env.RUN_ROOT, mode=0o755, exist_ok=True)
        self.fd = os.open(env.RUN_ROOT, os.O_RDONLY | os.O_DIRECTORY)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)
        return False


def give_back(pages):
    """Remove `pages` from the pool (never below zero). Used by release and by
    tests/integration/cleanup.py for a run that died."""
    with _Lock():
        nr = _read(NR_PATH)
        _write(NR_PATH, max(nr - pages, 0))


SYSTEM_MOUNT = "/dev/hugepages"


class HugePages:
    def __init__(self, pages, system=False, prefix=None):
        cleanup.install()
        self.pages = pages
        self.system = system
        self.prefix = prefix
        self.mount = SYSTEM_MOUNT if system else os.path.join(env.run_dir(), "huge")
        self.mounted = False        # by us: unmounted at release
        self.made_dir = False       # the mount point, by us: removed at release
        self.added = 0
        self._undo = None

    def __enter__(self):
        if not os.path.exists(NR_PATH):
            raise env.Skip("no %d kB hugepages on this kernel (%s)" % (PAGE_KB, NR_PATH))
        self._undo = cleanup.push("hugepages (%d, %s)" % (self.pages, self.mount), self._release)
        with _Lock():
            before = _read(NR_PATH)
            _write(NR_PATH, before + self.pages)
            after = _read(NR_PATH)
            self.added = after - before
            with open(os.path.join(env.run_dir(), RECORD), "w") as f:
                f.write("%d\n" % self.added)
        env.log("hugepages: pool %d -> %d (%d kB pages)" % (before, after, PAGE_KB))
        if self.added < self.pages or _read(FREE_PATH) < self.pages:
            raise env.Skip("cannot reserve %d hugepages of %d kB (got %d, %d free): not enough memory"
                           % (self.pages, PAGE_KB, self.added, _read(FREE_PATH)))
        if self.system and os.path.ismount(self.mount):
            env.log("hugepages: %s is mounted already: used as it is" % self.mount)
            return self
        self.made_dir = not os.path.isdir(self.mount)
        os.makedirs(self.mount, mode=0o755, exist_ok=True)
        env.run(["mount", "-t", "hugetlbfs", "-o", "pagesize=%dK" % PAGE_KB,
                 "afxt-%s" % env.run_id(), self.mount])
        self.mounted = True
        return self

    def __exit__(self, *exc):
        cleanup.release(self._undo)
        return False

    def _release(self):
        if env.keep():
            env.log("AFXDP_KEEP: leaving hugetlbfs %s and %d hugepages" % (self.mount, self.added))
            return
        if self.system and self.prefix and os.path.isdir(self.mount):
            for name in os.listdir(self.mount):
                if name.startswith(self.prefix + "map_"):
                    os.unlink(os.path.join(self.mount, name))
        # A system mount that was there before stays; ours go, with the
        # files a primary that did not clean up left there.
        if (self.mounted or not self.system) and os.path.ismount(self.mount):
            env.unmount(self.mount)
            self.mounted = False
        if (self.made_dir or not self.system) and os.path.isdir(self.mount) \
                and not os.path.ismount(self.mount):
            os.rmdir(self.mount)
        if self.added:
            give_back(self.added)
            env.log("hugepages: gave back %d pages (pool now %d)" % (self.added, _read(NR_PATH)))
            self.added = 0
        rec = os.path.join(env.run_dir(), RECORD)
        if os.path.exists(rec):
            os.unlink(rec)
