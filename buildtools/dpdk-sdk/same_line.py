#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Whether a DPDK source tree of another point release of the installed
DPDK's line may lend the plugin its driver-SDK headers.

Debian's libdpdk-dev ships no driver-SDK headers, and where the mirror does not
serve Debian's source package of the installed DPDK (Debian 13's 24.11.8,
testing's 25.11.4), only a release of the same line is at hand (24.11.6,
25.11.2). Those headers (ethdev_driver.h, ethdev_vdev.h, bus_vdev_driver.h,
dev_driver.h, bus_driver.h) declare the internal driver interface the plugin
is compiled against; everything else comes from the installed DPDK. What can
be compared without the installed release's source, and must agree:

  symbols   the libraries whose SDK headers are taken (librte_ethdev,
            librte_bus_vdev) export exactly the symbols, each under the same
            version node (stable, EXPERIMENTAL, INTERNAL), that the tree
            declares for them (version.map, or 25.11's RTE_EXPORT_* marks):
            an internal function added, removed or moved shows here;
  declared  every DPDK function the five SDK headers declare that the tree
            exports (EAL's dev_driver.h and bus_driver.h included) is
            exported by the installed libraries under the same node;
  headers   the installed public headers of those libraries (rte_ethdev.h,
            rte_ethdev_core.h, rte_bus_vdev.h, ...: the types the SDK headers
            build on) are the tree's, comments and blank space aside.

The build adds a fourth (meson.build): sizeof(struct rte_eth_dev), from the
tree's ethdev_driver.h, times RTE_MAX_ETHPORTS is the size of the installed
librte_ethdev's rte_eth_devices array; and the plugin links with no undefined
symbol against the installed libraries (meson's b_lundef).

Usage: same_line.py <tree> <installed libdir> <installed includedir>...
(an include directory with dpdk/ or <triplet>/dpdk/ in it stands for those:
libdpdk.pc's includedir, /usr/include)
Prints one line per check; exit 0 when all agree, 1 (the differences listed)
when not. Run by meson.build when -Ddpdk_sdk names a tree of another release
of the installed line; by hand it is the evidence (README.md, DPDK versions).
"""

import glob
import os
import re
import subprocess
import sys

# component: (its directory in the tree, its library)
COMPONENTS = {
    "ethdev": ("lib/ethdev", "librte_ethdev"),
    "bus_vdev": ("drivers/bus/vdev", "librte_bus_vdev"),
}
# the tree's other libraries whose exports the SDK headers may declare
DECLARING = dict(COMPONENTS, eal=("lib/eal", "librte_eal"))
SDK_HEADERS = ("lib/ethdev/ethdev_driver.h", "lib/ethdev/ethdev_vdev.h",
               "drivers/bus/vdev/bus_vdev_driver.h", "lib/eal/include/dev_driver.h",
               "lib/eal/include/bus_driver.h")


def node_kind(node):
    return "stable" if node.startswith("DPDK_") else node


def tree_exports(tree, directory):
    """{symbol: node kind} the tree declares for the library in `directory`."""
    out = {}
    vmap = os.path.join(tree, directory, "version.map")
    if os.path.exists(vmap):
        node = None
        for line in open(vmap):
            line = line.split("#", 1)[0].strip()
            m = re.match(r"^(\w+)\s*\{", line)
            if m:
                node = m.group(1)
                continue
            if line.startswith("}"):
                node = None
                continue
            m = re.match(r"^(\w+)\s*;", line)
            if m and node and m.group(1) != "local":
                out[m.group(1)] = node_kind(node)
        return out
    # 25.07 on: RTE_EXPORT_SYMBOL(name), RTE_EXPORT_EXPERIMENTAL_SYMBOL(name, ver),
    # RTE_EXPORT_INTERNAL_SYMBOL(name) beside each definition
    mark = re.compile(r"RTE_EXPORT_(INTERNAL_|EXPERIMENTAL_)?SYMBOL\((\w+)")
    for root, _, files in os.walk(os.path.join(tree, directory)):
        for f in files:
            if f.endswith((".c", ".h")):
                with open(os.path.join(root, f), errors="replace") as fh:
                    for m in mark.finditer(fh.read()):
                        kind = {"INTERNAL_": "INTERNAL", "EXPERIMENTAL_": "EXPERIMENTAL"}
                        out[m.group(2)] = kind.get(m.group(1), "stable")
    return out


def library(libdir, name):
    for f in sorted(os.listdir(libdir)):
        if re.fullmatch(re.escape(name) + r"\.so\.\d+", f):
            return os.path.join(libdir, f)
    return None


def installed_exports(path):
    """{symbol: node kind} the shared object at `path` exports (nm -D)."""
    cp = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True,
                        text=True, check=True)
    out = {}
    for line in cp.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 3 and "@@" in parts[2]:
            sym, node = parts[2].split("@@", 1)
            if node.startswith("DPDK_") or node in ("INTERNAL", "EXPERIMENTAL"):
                out[sym] = node_kind(node)
    return out


def code_of(path):
    """The header's text without comments and blank space (the compiler's
    own reading: gcc -fpreprocessed keeps directives, drops comments)."""
    cp = subprocess.run(["gcc", "-fpreprocessed", "-dD", "-E", "-P", "-x", "c", path],
                        capture_output=True, text=True)
    text = cp.stdout if cp.returncode == 0 else open(path, errors="replace").read()
    return [re.sub(r"\s+", " ", ln).strip() for ln in text.splitlines() if ln.strip()]


def declared_functions(path):
    """Names of the functions a header declares (name followed by '(')."""
    text = " ".join(code_of(path))
    return set(re.findall(r"\b(rte_\w+)\s*\(", text))


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    tree, libdir, incdirs = sys.argv[1], sys.argv[2], sys.argv[3:]
    problems = []

    # symbols
    exports = {}
    for comp, (directory, lib) in DECLARING.items():
        path = library(libdir, lib)
        if path is None:
            problems.append("%s: no %s.so.* in %s" % (comp, lib, libdir))
            continue
        exports[comp] = (tree_exports(tree, directory), installed_exports(path))
    for comp in COMPONENTS:
        if comp not in exports:
            continue
        ours, theirs = exports[comp]
        diff = sorted("%s (%s here, %s installed)" % (s, ours.get(s, "absent"), theirs.get(s, "absent"))
                      for s in set(ours) | set(theirs) if ours.get(s) != theirs.get(s))
        print("symbols   %-8s %d exported by the tree, %d installed, %d differ%s"
              % (comp, len(ours), len(theirs), len(diff), (": " + ", ".join(diff)) if diff else ""))
        if diff:
            problems.append("%s's exported symbols differ: %s" % (comp, ", ".join(diff)))

    # declared by the SDK headers
    declared = set()
    for h in SDK_HEADERS:
        if os.path.exists(os.path.join(tree, h)):
            declared |= declared_functions(os.path.join(tree, h))
    checked, missing = 0, []
    for comp, (ours, theirs) in exports.items():
        for sym in sorted(declared & set(ours)):
            checked += 1
            if theirs.get(sym) != ours[sym]:
                missing.append("%s (%s: %s in the tree, %s installed)"
                               % (sym, comp, ours[sym], theirs.get(sym, "absent")))
    print("declared  %d functions of the SDK headers exported by the tree, %d not so installed%s"
          % (checked, len(missing), (": " + ", ".join(missing)) if missing else ""))
    problems += ["declared by the SDK headers: " + m for m in missing]

    # public headers of the SDK headers' own libraries
    installed = {}
    dirs = []
    for d in incdirs:
        if os.path.isdir(os.path.join(d, "dpdk")):
            dirs.append(os.path.join(d, "dpdk"))
            dirs += sorted(glob.glob(os.path.join(d, "*", "dpdk")))
        else:
            dirs.append(d)
    for d in dirs:
        for root, _, files in os.walk(d):
            for f in files:
                installed.setdefault(f, os.path.join(root, f))
    same, differ = 0, []
    for comp, (directory, _) in COMPONENTS.items():
        for f in sorted(os.listdir(os.path.join(tree, directory))):
            if not f.endswith(".h") or f not in installed:
                continue
            if code_of(os.path.join(tree, directory, f)) == code_of(installed[f]):
                same += 1
            else:
                differ.append(f)
    print("headers   %d public headers of %s the same as the tree's, %d differ%s"
          % (same, " and ".join(COMPONENTS), len(differ),
             (": " + ", ".join(differ)) if differ else ""))
    problems += ["public header %s differs from the tree's" % f for f in differ]

    if problems:
        print("refused:\n  " + "\n  ".join(problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
