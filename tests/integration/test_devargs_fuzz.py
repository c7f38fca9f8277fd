#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""devargs fuzzing: a few hundred generated devargs strings: each probe exits with a message; none crashes or hangs.

The strings (generate(), seed SEED: the same every run) mix valid keys with
bad values, unknown keys, duplicates, stray separators and `=`, huge
numbers, non-ASCII and non-UTF-8 bytes, terminal escapes, empty values and
very long strings, among valid devargs on a real veth.

Each runs as `dpdk-testpmd <EAL options> --vdev net_af_xdp0,<devargs> --
--help`: EAL probes the device exactly as for any testpmd run (the probe is
part of rte_eal_init()), then testpmd prints its usage and exits before
creating a mempool: a quarter of a second a run, of which about 55 ms on a
CPU (perf stat's task-clock) and 0.1 s asleep in EAL's TSC estimate: JOBS
run at a time. That it is the same probe is
checked first: for a few rows of SAME_PATH, the driver's lines of this run
and of an interactive testpmd's start-up are the same.

The rows of NAMED (a missing or unknown interface, bad keys and values)
must be refused by a line of the driver's that names the problem.

Every run must end within PROBE_DEADLINE (a hang otherwise), by exiting,
not by a signal (a crash); and either probe the port (the driver's "port 0
on <iface>" line) or be refused (testpmd's "No probed ethernet devices")
with a line of the driver's other than its banner saying why. Afterwards
the interface carries no XDP program and has the flags it had. The summary
counts what was accepted and refused, and the most common reasons.
"""

import collections
import os
import random
import re
import subprocess
import time

from afxdp_test import cleanup, env, runner, testpmd, topo

SEED = 10
RANDOM_CASES = 300
PROBE_DEADLINE = 20          # seconds: only against a hang
MEM_MB = 64                  # EAL memory: no mempool is created
JOBS = 6                     # probes at a time: a probe is a fifth of its time on
                             # a CPU, so 6 keep the machine's 2 cores busy (2: 47 s
                             # for the probes at load 8, 6: 32 s; they do not poll)
POLL = 0.01                  # seconds between looks at the running probes
ACCEPTED = "port 0 on %s"
REFUSED = "No probed ethernet devices"
BANNER = "probed by af_xdp_direct"

KEYS = ["iface", "start_queue", "queue_count", "shared_umem", "xdp_prog", "busy_budget",
        "force_copy", "use_cni", "use_pinned_map", "dp_path", "mode", "redirect", "tx_csum",
        "tx_budget"]
UNKNOWN_KEYS = ["foo", "IFACE", "queue-count", "queue_count2", " iface", "iface ", "\u00e9",
                "k" * 300, "iface[0]", "mode\t"]
# Values a valid devargs string may have, per key ({iface}: the test's veth).
VALID = {
    "iface": ["{iface}"],
    "start_queue": ["0"],
    "queue_count": ["1"],
    "shared_umem": ["0", "1"],
    "busy_budget": ["0", "1", "64", "65535"],
    "force_copy": ["0", "1"],
    "mode": ["drv", "skb"],
    "redirect": ["auto", "map"],
    "tx_csum": ["auto", "sw"],
    "tx_budget": ["auto", "kernel"],
}
BAD_VALUES = ["", "-1", "0", "1", "2", "7", "65535", "65536", "4294967295", "4294967296",
              "18446744073709551616", "9" * 40, "0x10", "010", "1e3", "1.5", "+1", " 1", "1 ",
              "\uff11", "\u00e9", "\u2603", "\udcff\udcfe", "\x1b[31mred\x1b[0m", "\x07",
              "a" * 5000, "/nonexistent.o", "/dev/null", "/etc/passwd", "/", ".", "drv", "skb",
              "hw", "auto", "direct", "map", "yes", "true", "on", "{iface}", "doesnotexist0",
              "x" * 16, "[a,b]", "[", "]", "%s%s%n", "$(reboot)"]
# Devargs that are not random: edges of the syntax, and known outcomes
# (None: either is right). rte_kvargs splits with strtok(): empty pairs and a
# leading '=' vanish, so ",iface=X" and "=iface=X" are iface=X.
A, R = "accepted", "refused"
FIXED = [("", R), (",", R), (",,,,", R), ("=", R), ("==", R), ("iface", R), ("iface=", R),
         ("=iface", R), ("iface={iface}", A), ("iface={iface},", A), (",iface={iface}", A),
         ("=iface={iface}", A), ("iface={iface},,queue_count=1", A),
         ("iface={iface},iface={iface}", R), ("iface={iface},queue_count=1,queue_count=1", R),
         ("iface={iface}," + ",".join("k%d=v" % i for i in range(40)), R),
         ("iface={iface},xdp_prog=" + "/x" * 3000, R),
         ("iface={iface},dp_path=" + "d" * 5000 + ",use_pinned_map=1", R),
         ("iface=" + "i" * 100, R), ("iface={iface},start_queue=1", R),
         ("iface={iface},queue_count=2", R), ("iface={iface},use_cni=1,use_pinned_map=1", R),
         ("iface={iface},redirect=map,xdp_prog=/dev/null", R),
         ("iface={iface},busy_budget=65536", R), ("iface={iface},busy_budget=65535", A),
         ("iface={iface},queue_count=" + "9" * 40, R), ("iface={iface},foo=1", R),
         ("iface={iface},mode=hw", None)]
# Refused, and a line of the driver's says what to fix: it names the bad
# key, value or interface (what test_bad_devargs checked, one testpmd each).
NAMED = [
    ("iface=doesnotexist0", "doesnotexist0"),
    ("iface={iface},foo=1", "foo"),
    ("iface={iface},queue_count=0", "queue_count"),
    ("iface={iface},start_queue=7", "start_queue"),
    ("iface={iface},busy_budget=-1", "busy_budget"),
    ("iface={iface},mode=bogus", "mode"),
    ("iface={iface},tx_csum=hw", "tx_csum"),
    ("iface={iface},xdp_prog=/nonexistent.o", "/nonexistent.o"),
    ("", "iface"),                      # no iface at all
]
# Probed both ways (--help and interactive): the same driver lines.
SAME_PATH = ["iface={iface}", "iface={iface},queue_count=abc", "iface={iface},foo=1",
             "iface=doesnotexist0"]


def random_pair(rng, used):
    if used and rng.random() < 0.1:
        key = rng.choice(used)                      # a duplicate
    elif rng.random() < 0.15:
        key = rng.choice(UNKNOWN_KEYS)
    else:
        key = rng.choice(KEYS)
    value = (rng.choice(VALID[key]) if key in VALID and rng.random() < 0.4
             else rng.choice(BAD_VALUES))
    shape = rng.random()
    if shape < 0.08:
        return key, key                             # no '='
    if shape < 0.12:
        return key, "=" + value
    if shape < 0.16:
        return key, "%s==%s" % (key, value)
    if shape < 0.20:
        return key, "%s=%s=%s" % (key, value, rng.choice(BAD_VALUES))
    return key, "%s=%s" % (key, value)


def random_valid(rng):
    """iface and a few valid keys with valid values: these must probe."""
    keys = rng.sample([k for k in VALID if k != "iface"], rng.randint(0, 3))
    return ",".join(["iface={iface}"] + ["%s=%s" % (k, rng.choice(VALID[k])) for k in keys])


def random_devargs(rng):
    """(devargs, expected outcome or None)."""
    if rng.random() < 0.25:
        return random_valid(rng), A
    pairs, used = [], []
    if rng.random() < 0.7:
        pairs.append("iface={iface}")
        used.append("iface")
    for _ in range(rng.randint(0, 5)):
        key, text = random_pair(rng, used)
        used.append(key)
        pairs.insert(rng.randint(0, len(pairs)), text)
    sep = rng.choice([",", ",", ",", ",,", ", ", ";"])
    text = sep.join(pairs)
    if rng.random() < 0.1:
        text = rng.choice([",", "=", " "]) + text
    if rng.random() < 0.1:
        text += rng.choice([",", "=", " ", ",="])
    return text, None


def unknown_key(devargs):
    """A key that is none of ours, split as rte_kvargs does (strtok on ',',
    then on '='); None when there is none, or brackets (lists) make the
    split rte_kvargs' own."""
    if "[" in devargs or "]" in devargs:
        return None
    for pair in filter(None, devargs.split(",")):
        key = next(filter(None, pair.split("=")), None)
        if key is not None and key not in KEYS:
            return key
    return None


def generate(iface):
    """[(devargs, expected outcome or None)], the same for every run: an
    unknown key is refused."""
    rng = random.Random(SEED)
    cases = FIXED + [random_devargs(rng) for _ in range(RANDOM_CASES)]
    return [(c.replace("{iface}", iface), R if want is None and unknown_key(c) else want)
            for c, want in cases]


def show(text, limit=160):
    """A devargs string or output line, printable and short, for the log."""
    s = text.encode("utf-8", "surrogateescape").decode("ascii", "backslashreplace")
    s = "".join(c if c.isprintable() else "\\x%02x" % ord(c) for c in s)
    return s if len(s) <= limit else s[:limit] + "...(%d characters)" % len(s)


class Probe:
    """One `testpmd ... -- --help` run, started in the background; its output
    goes to a file of the run (no pipe to drain while others run)."""

    def __init__(self, dut, iface, devargs):
        self.iface, self.devargs = iface, devargs
        self.prefix = testpmd.new_file_prefix()
        vdev = "net_af_xdp0" + ("," + devargs if devargs else "")
        argv = ([env.testpmd_path()]
                + testpmd.eal_args(dut, [vdev], file_prefix=self.prefix, mem_mb=MEM_MB,
                                   extra=[testpmd.LOG_INFO])
                + ["--", "--help"])
        self.path = os.path.join(env.run_dir(), "probe-%s.out" % self.prefix)
        self.out_file = open(self.path, "wb")
        self.proc = env.popen(argv, ns=dut.name, register=False, stdout=self.out_file,
                              stderr=subprocess.STDOUT)
        self.deadline = env.deadline(PROBE_DEADLINE)
        self.hung = False

    def done(self):
        """True once it has exited (or, past its deadline, been ended: a hang)."""
        if self.proc.poll() is not None:
            return True
        if time.monotonic() > self.deadline:
            env.end_process(self.proc)
            self.hung = True
            return True
        return False

    def end(self):
        env.end_process(self.proc)

    def result(self):
        """(outcome, driver lines, output) with outcome one of accepted,
        refused, crash (signal N), hang, unclear."""
        self.out_file.close()
        testpmd.remove_runtime_dir(self.prefix)
        with open(self.path, "rb") as f:
            out = f.read().decode("utf-8", "surrogateescape")
        os.unlink(self.path)
        lines = probe_lines(out)
        rc = self.proc.returncode
        if self.hung:
            outcome = "hang"
        elif rc < 0:
            outcome = "crash (signal %d)" % -rc
        elif REFUSED in out:
            outcome = "refused" if any(BANNER not in ln for ln in lines) else "unclear"
        elif any(ACCEPTED % self.iface in ln for ln in lines):
            outcome = "accepted"
        else:
            outcome = "unclear"
        return outcome, lines, out


def probe_all(dut, iface, devargs_list, jobs=JOBS):
    """Probe each devargs string (testpmd -- --help), `jobs` at a time (the
    probes share nothing but the interface, which a probe only looks up);
    [(outcome, driver lines, output)] in the order given."""
    results = [None] * len(devargs_list)
    running = {}                # index -> Probe
    todo = list(enumerate(devargs_list))
    with env.signals_deferred():
        undo = cleanup.push("devargs probes", lambda: [p.end() for p in running.values()])
    try:
        while todo or running:
            while todo and len(running) < jobs:
                i, devargs = todo.pop(0)
                with env.signals_deferred():
                    running[i] = Probe(dut, iface, devargs)
            finished = [i for i, p in running.items() if p.done()]
            for i in finished:
                results[i] = running.pop(i).result()
            if not finished:
                time.sleep(POLL)
    finally:
        cleanup.release(undo)
    return results


def probe_lines(out):
    """The driver's lines of the probe: before testpmd creates its mempool
    (or says it has no port, or prints its usage)."""
    lines = []
    for ln in out.splitlines():
        if any(end in ln for end in ("create a new mbuf pool", REFUSED, "Usage:")):
            break
        if "net_af_xdp0" in ln and not ln.startswith("vdev_probe():"):
            lines.append(ln.strip())
    return lines


def check_same_path(t, dut, iface, probed):
    """--help runs the probe of an interactive testpmd: the same lines.
    `probed`: probe_all's results for SAME_PATH."""
    for devargs, (_, with_help, _) in zip((d.replace("{iface}", iface) for d in SAME_PATH),
                                          probed):
        vdev = "net_af_xdp0," + devargs
        tp = testpmd.TestPmd(dut, [vdev], eal_extra=[testpmd.LOG_INFO],
                             label="testpmd[%s]" % show(devargs))
        tp.report = False
        try:
            tp.start(expect_prompt=False, timeout=PROBE_DEADLINE)
        except testpmd.TestPmdError as e:
            t.check(False, "%s: interactive testpmd starts" % show(devargs), str(e))
            tp.close()
            continue
        with tp:
            interactive = probe_lines(tp.startup_output)
            if tp.alive():
                tp.quit()
        t.check(bool(with_help) and with_help == interactive,
                "%s: the driver's probe lines with -- --help are those of an interactive "
                "testpmd" % show(devargs),
                "--help:\n  %s\ninteractive:\n  %s" % ("\n  ".join(with_help),
                                                      "\n  ".join(interactive)))


def check_named(t, iface, probed):
    """Each NAMED row is refused with a line of the driver's naming what is
    wrong (not only its echo of the whole devargs string). `probed`:
    probe_all's results for NAMED."""
    for (devargs, name), (outcome, lines, _) in zip(NAMED, probed):
        devargs = devargs.replace("{iface}", iface)
        echo = devargs if "," in devargs else None      # the whole string, not a pair
        why = [ln for ln in lines
               if BANNER not in ln and name in (ln.replace(echo, "") if echo else ln)]
        t.check(outcome == R and why, "%s: refused, naming %r" % (show(devargs) or "(none)", name),
                "%s; the driver's lines:\n  %s" % (outcome, "\n  ".join(map(show, lines))))


def iface_flags(port):
    return re.search(r"<([^>]*)>", port.ip("link", "show", "dev", port.name).stdout).group(1)


def main(t):
    with topo.Topology() as net:
        dut, gen = net.netns("dut"), net.netns("gen")
        port, _ = net.veth(dut, "d0", gen, "g0")
        flags = iface_flags(port)
        cases = generate(port.name)
        same = [d.replace("{iface}", port.name) for d in SAME_PATH]
        named = [d.replace("{iface}", port.name) for d, _ in NAMED]
        t0 = time.monotonic()
        probed = probe_all(dut, port.name, same + named + [d for d, _ in cases])
        env.log("%d probes, %d at a time, in %.1f s" % (len(probed), JOBS,
                                                        time.monotonic() - t0))
        check_same_path(t, dut, port.name, probed[:len(same)])
        check_named(t, port.name, probed[len(same):len(same) + len(named)])

        outcomes = collections.Counter()
        reasons = collections.Counter()
        bad = []
        for i, ((devargs, want), (outcome, lines, out)) in enumerate(
                zip(cases, probed[len(same) + len(named):])):
            outcomes[outcome] += 1
            if outcome == "refused":
                why = [ln for ln in lines if BANNER not in ln][0]
                reasons[re.sub(r"'.*'|\S*=\S*|\d+", "_", why.split("net_af_xdp0: ", 1)[-1])
                        [:70]] += 1
            if outcome not in (A, R) or want not in (None, outcome):
                bad.append((i, devargs, outcome + ("" if want in (None, outcome) else
                                                   ", expected %s" % want), out))
        env.log("%d devargs strings (seed %d): %s" % (
            len(cases), SEED, ", ".join("%d %s" % (n, o) for o, n in outcomes.most_common())))
        env.log("most common reasons for a refusal (values masked):")
        for why, n in reasons.most_common(12):
            env.log("  %4d  %s" % (n, show(why)))
        for i, devargs, outcome, out in bad[:10]:
            env.log("case %d %s: %s\n%s" % (i, outcome, show(devargs), "\n".join(
                "    | " + show(ln) for ln in out.splitlines()[-15:])))
        t.check(not bad, "every probe exits, accepted or refused with the driver's reason, "
                "as expected where known: %d of %d did not (%s)" % (
                    len(bad), len(cases), ", ".join(sorted({o for _, _, o, _ in bad}))))
        t.check(outcomes["accepted"] > 0 and outcomes["refused"] > 0,
                "both outcomes occur: %d accepted, %d refused"
                % (outcomes["accepted"], outcomes["refused"]))
        left = net.check_no_xdp()
        t.check(not left, "no XDP program on the interface after the probes", "\n".join(left))
        t.equal(iface_flags(port), flags, "the interface's flags after the probes")


if __name__ == "__main__":
    runner.run(main, "devargs_fuzz", __doc__.splitlines()[0])
