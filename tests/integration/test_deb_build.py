#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""deb_build: the Debian package of the plugin, built for the installed DPDK, is what test_deb_package installs.

scripts/deb.sh builds the package (dpkg-buildpackage in a copy of the tree);
this test checks the package itself, beside other tests, and leaves the
build in deb.sh's cache, where test_deb_package, which runs alone because
it changes DPDK's plugin directory, finds it instead of building again:
- lintian reports no error;
- its name is the installed DPDK's ABI's (librte-net-af-xdp-direct23 on
  22.11), its version carries DPDK's, and it depends on exactly the DPDK
  packages installed (librte-eal, librte-ethdev, librte-bus-vdev) and on
  the stock driver's package, whose file it diverts;
- it holds one shared object, under the stock plugin's path in DPDK's
  plugin directory, and that object is ours (its SONAME, readelf);
- its preinst diverts that path and its postrm gives it back (dpkg-divert
  --add/--remove of the path; test_deb_package checks the diversion for
  real);
- deb.sh again, nothing changed: the same package, byte for byte, not
  built again.
"""

import hashlib
import os
import re

from afxdp_test import debpkg, env, runner
from afxdp_test.debpkg import sh, soname

# the DPDK packages whose internal interfaces the plugin uses: pinned exactly
PINNED = ("librte-eal", "librte-ethdev", "librte-bus-vdev", "librte-net-af-xdp")


def installed_version(package):
    rc, out = sh(["dpkg-query", "-W", "-f=${Version}", package], timeout=30)
    return out.strip() if rc == 0 else None


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def stock_plugin(abi_major):
    """The stock driver's file in DPDK's plugin directory (dpkg -L)."""
    rc, out = sh(["dpkg-query", "-L", "librte-net-af-xdp%s" % abi_major], timeout=30)
    return [p for p in out.split() if "/pmds-" in p and ".so" in p][0]


def fields(t, deb, abi_major):
    rc, out = sh(["dpkg-deb", "-f", deb, "Package", "Version", "Depends"], timeout=30)
    t.require(rc == 0, "dpkg-deb -f: exit 0", out)
    f = dict(ln.split(": ", 1) for ln in out.splitlines() if ": " in ln)
    dpdk = installed_version("libdpdk-dev")
    t.equal(f.get("Package"), "librte-net-af-xdp-direct%s" % abi_major, "package name")
    t.check(f.get("Version", "").endswith("+dpdk" + dpdk.split("-")[0]),
            "version %s carries DPDK's %s" % (f.get("Version"), dpdk))
    depends = f.get("Depends", "")
    for name in PINNED:
        want = "%s%s (= %s)" % (name, abi_major, installed_version("%s%s" % (name, abi_major)))
        t.check(want in depends, "depends on %s" % want, depends)


def contents(t, deb, stock):
    rc, out = sh(["dpkg-deb", "-c", deb], timeout=30)
    objects = [ln.split()[-1].lstrip(".") for ln in out.splitlines() if ".so" in ln]
    t.equal(objects, [stock], "its shared objects")
    tree = os.path.join(env.run_dir(), "deb-tree")
    rc, out = sh(["dpkg-deb", "-x", deb, tree], timeout=60)
    t.require(rc == 0, "dpkg-deb -x: exit 0", out)
    t.equal(soname(tree + stock), soname(env.plugin()), "the packaged object's SONAME (ours)")


def maintainer_scripts(t, deb, stock):
    scripts = os.path.join(env.run_dir(), "deb-control")
    rc, out = sh(["dpkg-deb", "-e", deb, scripts], timeout=30)
    t.require(rc == 0, "dpkg-deb -e: exit 0", out)
    for name, verb in (("preinst", "--add"), ("postrm", "--remove")):
        path = os.path.join(scripts, name)
        text = open(path).read() if os.path.exists(path) else ""
        commands = text.replace("\\\n", " ").splitlines()     # continued lines joined
        t.check(any("dpkg-divert" in c and verb in c and c.rstrip().endswith(" " + stock)
                    for c in commands),
                "%s: dpkg-divert %s ... %s" % (name, verb, stock), text)


def main(t):
    debpkg.skip_unless_buildable()
    deb, _ = debpkg.build()
    env.log("package %s" % deb)
    rc, out = sh(["lintian", deb])
    errors = [ln for ln in out.splitlines() if ln.startswith("E:")]
    warnings = [ln for ln in out.splitlines() if ln.startswith("W:")]
    t.check(rc == 0 and not errors, "lintian: no error", out)
    env.log("lintian: %d warnings%s" % (len(warnings), "".join("\n  " + w for w in warnings)))

    abi_major = re.match(r"librte-net-af-xdp-direct(\d+)_", os.path.basename(deb)).group(1)
    stock = stock_plugin(abi_major)
    fields(t, deb, abi_major)
    contents(t, deb, stock)
    maintainer_scripts(t, deb, stock)

    first = sha256(deb)
    again, said = debpkg.build()
    t.check(sha256(again) == first and "nothing changed" in said,
            "scripts/deb.sh again, nothing changed: the same package, not built again", said)


if __name__ == "__main__":
    runner.run(main, "deb_build", __doc__.splitlines()[0])
