#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The suites' start order (top-level meson.build, test_priority_*): every
test that runs alone starts after every test that may share the machine.

meson starts tests by priority, the higher first, and a test that runs alone
waits for every running one to end: one such test among shared ones leaves
a core idle, and several scattered cost the suite minutes. Reads the build
directory's test list (meson-info/intro-tests.json, what `meson introspect
--tests` prints); exits 1 naming each test out of place."""
import json
import pathlib
import sys


def out_of_place(tests):
    """Tests that run alone whose priority is not below every shared test's."""
    shared = [t["priority"] for t in tests if t["is_parallel"]]
    lowest_shared = min(shared, default=None)
    if lowest_shared is None:
        return []
    return ["%s (priority %d, a shared test's %d)" % (t["name"], t["priority"], lowest_shared)
            for t in tests if not t["is_parallel"] and t["priority"] >= lowest_shared]


def main():
    tests = json.loads((pathlib.Path(sys.argv[1]) / "meson-info" / "intro-tests.json").read_text())
    wrong = out_of_place(tests)
    alone = sum(1 for t in tests if not t["is_parallel"])
    if wrong:
        print("tests that run alone but start among shared ones (give them "
              "priority: test_priority_alone):\n  " + "\n  ".join(wrong))
        return 1
    print("%d tests: the %d that run alone start after every shared one" % (len(tests), alone))
    return 0


if __name__ == "__main__":
    sys.exit(main())
