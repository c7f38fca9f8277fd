# SPDX-License-Identifier: BSD-3-Clause
"""The Debian package of the plugin (scripts/deb.sh), for the tests that
build it (test_deb_build, beside other tests) and install it (test_deb_package,
alone): deb.sh gives its last package again when nothing it is built from
changed, so the second finds the first one's build.

    deb = debpkg.build()          # path of the .deb in this run's directory
"""

import os
import shutil

from afxdp_test import env

SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                       "scripts")
DEB_SH = os.path.join(SCRIPTS, "deb.sh")
TOOLS = ("dpkg-buildpackage", "dh", "lintian", "apt-get")


def skip_unless_buildable():
    """Raise env.Skip where the package cannot be built or means nothing:
    the stock driver under test, another DPDK line than the installed one,
    Debian's packaging tools missing."""
    if env.is_stock():
        raise env.Skip("the package is of our plugin (AFXDP_PLUGIN)")
    if os.environ.get("AFXDP_DPDK_VERSION"):
        raise env.Skip("the package replaces the installed DPDK's stock driver: Debian 12's "
                       "22.11, not DPDK %s" % os.environ["AFXDP_DPDK_VERSION"])
    for prog in TOOLS:
        if not shutil.which(prog):
            raise env.Skip("%s not found (scripts/setup.sh installs dpkg-dev, debhelper, "
                           "lintian)" % prog)


def build():
    """scripts/deb.sh into this run's directory: the .deb's path, and deb.sh's
    own lines (what it built or gave again). env.Failure if it failed."""
    cp = env.run([DEB_SH, "--out", os.path.join(env.run_dir(), "deb")], check=False,
                 timeout=900)
    if cp.returncode != 0:
        raise env.Failure("scripts/deb.sh failed (exit %d):\n%s"
                          % (cp.returncode, (cp.stdout + cp.stderr)[-3000:]))
    return cp.stdout.strip().splitlines()[-1], cp.stderr


def sh(argv, timeout=300):
    """(exit code, stdout + stderr) of argv."""
    cp = env.run(argv, check=False, timeout=timeout)
    return cp.returncode, cp.stdout + cp.stderr


def soname(path):
    """The SONAME of the shared object at path (readelf), or None."""
    rc, out = sh(["readelf", "-d", path], timeout=30)
    for line in out.splitlines():
        if "(SONAME)" in line:
            return line.split("[", 1)[1].rstrip("]")
    return None
