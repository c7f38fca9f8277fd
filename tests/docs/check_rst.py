#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every RST page under doc/ parses without a warning (docutils, as Sphinx
would see the plain reStructuredText).  Exit 77 when docutils is missing."""
import io
import pathlib
import sys

try:
    import docutils.core
except ImportError:
    print("SKIP: python3-docutils is not installed (scripts/setup.sh installs it)")
    sys.exit(77)


def check(path):
    warnings = io.StringIO()
    try:
        docutils.core.publish_string(
            path.read_text(), source_path=str(path), writer_name="null",
            settings_overrides={"halt_level": 5, "report_level": 2,
                                "warning_stream": warnings})
    except Exception as e:  # noqa: BLE001 - a parse error is the finding
        return str(e)
    return warnings.getvalue().strip()


def main():
    root = pathlib.Path(sys.argv[1])
    pages = sorted(root.rglob("*.rst"))
    bad = 0
    for page in pages:
        problems = check(page)
        print("%s %s" % ("FAIL" if problems else "ok  ", page.relative_to(root)))
        if problems:
            print("    " + problems.replace("\n", "\n    "))
            bad += 1
    print("%d pages, %d with problems" % (len(pages), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
