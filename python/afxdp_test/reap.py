# SPDX-License-Identifier: BSD-3-Clause
"""Finding, and removing, what a run left behind: its namespaces (and the
processes and veths in them), hugetlbfs mount and hugepages, EAL runtime
directories, staged plugins, and its run directory. The runner checks
`leftovers(rid)` after every test; tests/integration/cleanup.py calls `reap`
for runs that were killed (SIGKILL leaves no chance to clean up) or kept
with AFXDP_KEEP."""

import os
import shutil

from . import env, hugepages


SYS_NET = "/sys/class/net"      # this process's namespace's interfaces (the root's)


def _netns_of(rid):
    return [n for n in env.netns_names() if n.startswith("%s%s-" % (env.NETNS_PREFIX, rid))]


def _root_links_of(rid):
    """The run's interfaces in the root namespace, from sysfs (as `ip link
    show` lists them, without a process to start)."""
    token = "%s%s" % (env.IFACE_PREFIX, rid)
    return sorted(n for n in os.listdir(SYS_NET) if n.startswith(token))


def _mounts_of(rid):
    """The run's mounts: under its run directory, and the hugetlbfs it
    mounted elsewhere (HugePages(system=True): /dev/hugepages), named
    after it."""
    d = os.path.join(env.RUN_ROOT, rid)
    out = []
    with open("/proc/mounts") as f:
        for line in f:
            src, mnt = line.split()[:2]
            if mnt == d or mnt.startswith(d + "/") or src == "afxt-%s" % rid:
                out.append(mnt)
    return out


def _runtime_dirs_of(rid):
    if not os.path.isdir(env.DPDK_RUNTIME):
        return []
    pre = "%s%s-" % (env.DPDK_PREFIX, rid)
    return [os.path.join(env.DPDK_RUNTIME, d) for d in os.listdir(env.DPDK_RUNTIME)
            if d.startswith(pre)]


def _processes_of(rid):
    found = {}
    for token in ("%s%s" % (env.NETNS_PREFIX, rid), "%s%s" % (env.IFACE_PREFIX, rid)):
        for pid, cmd in env.pids_matching(token):
            found[pid] = cmd
    return sorted(found.items())


def leftovers(rid, include_run_dir=True):
    """Everything of run `rid` still present, as readable strings."""
    left = []
    left += ["netns %s" % n for n in _netns_of(rid)]
    left += ["interface %s in the root namespace" % n for n in _root_links_of(rid)]
    left += ["process %d: %s" % p for p in _processes_of(rid)]
    left += ["mount %s" % m for m in _mounts_of(rid)]
    left += ["EAL runtime directory %s" % d for d in _runtime_dirs_of(rid)]
    d = os.path.join(env.RUN_ROOT, rid)
    if include_run_dir and os.path.exists(d):
        left.append("run directory %s (%s)" % (d, ", ".join(sorted(os.listdir(d)))))
    return left


def remove_run_dir(rid):
    """The run directory, once nothing is mounted below it."""
    d = os.path.join(env.RUN_ROOT, rid)
    if os.path.isdir(d) and not _mounts_of(rid):
        shutil.rmtree(d)


def reap(rid, say=print):
    """Remove everything of run `rid`. Returns what could not be removed."""
    procs = [p for p, _ in _processes_of(rid)]
    for ns in _netns_of(rid):
        procs += env.netns_pids(ns)
    if procs:
        say("ending processes %s" % sorted(set(procs)))
        env.end_pids(sorted(set(procs)))
    for ns in _netns_of(rid):
        say("deleting netns %s" % ns)
        env.run(["ip", "netns", "del", ns], check=False)
    for link in _root_links_of(rid):
        say("deleting interface %s" % link)
        env.run(["ip", "link", "del", link], check=False)
    for m in sorted(_mounts_of(rid), reverse=True):
        say("unmounting %s" % m)
        try:
            env.unmount(m)
        except env.HarnessError as e:
            say(str(e))         # listed among the leftovers below
    rec = os.path.join(env.RUN_ROOT, rid, hugepages.RECORD)
    if os.path.exists(rec) and not _mounts_of(rid):
        with open(rec) as f:
            pages = int(f.read().strip() or 0)
        say("giving back %d hugepages" % pages)
        hugepages.give_back(pages)
        os.unlink(rec)
    for d in _runtime_dirs_of(rid):
        say("removing %s" % d)
        shutil.rmtree(d, ignore_errors=True)
    remove_run_dir(rid)
    return leftovers(rid)


def _alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def stale_run_ids():
    """Runs whose owner process is gone: their run directory names a dead pid,
    or their namespaces outlived the run directory."""
    rids = set()
    if os.path.isdir(env.RUN_ROOT):
        for rid in os.listdir(env.RUN_ROOT):
            owner = os.path.join(env.RUN_ROOT, rid, "owner")
            if not os.path.isfile(owner):
                continue
            with open(owner) as f:
                txt = f.read().strip()
            if not txt.isdigit() or not _alive(int(txt)):
                rids.add(rid)
    cp = env.run(["ip", "netns", "list"], check=False)
    for line in cp.stdout.splitlines():
        name = line.split()[0] if line.strip() else ""
        if name.startswith(env.NETNS_PREFIX):
            rid = name[len(env.NETNS_PREFIX):].split("-")[0]
            if len(rid) == env.RID_LEN and not os.path.isdir(os.path.join(env.RUN_ROOT, rid)):
                rids.add(rid)
    return sorted(rids)
