#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# problems.sh <kernel-problems.ere> <vm_suite.py> <samples directory>
#
# The kernel-log detector on saved samples (tests/problems/): every
# <kind>.txt must be found a problem, every clean-*.txt not, both by
# kernel/vm-init.sh's grep (the expressions joined with |, as it joins
# them) and by tests/integration/vm_suite.py's KERNEL_PROBLEM, line by line
# as each reads dmesg.
set -u
[ $# = 3 ] || { echo "usage: $0 <kernel-problems.ere> <vm_suite.py> <samples>" >&2; exit 2; }
ere=$1
suite=$2
dir=$3

problems=$(sed -e '/^#/d' -e '/^$/d' "$ere" | paste -sd'|')
failed=0
n=0
for f in "$dir"/*.txt; do
	name=${f##*/}
	want=yes
	case "$name" in clean-*) want=no ;; esac
	got_grep=no
	grep -qE "$problems" "$f" && got_grep=yes
	got_py=$(python3 - "$suite" "$f" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("vm_suite", sys.argv[1])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
with open(sys.argv[2]) as f:
    print("yes" if any(m.KERNEL_PROBLEM.search(l.rstrip("\n")) for l in f) else "no")
PY
	)
	n=$((n + 1))
	if [ "$got_grep" = "$want" ] && [ "$got_py" = "$want" ]; then
		echo "ok: $name: problem=$want"
	else
		echo "FAIL: $name: expected problem=$want, vm-init.sh's grep says $got_grep, vm_suite.py says $got_py"
		failed=1
	fi
done
[ "$n" -gt 0 ] || { echo "FAIL: no samples in $dir"; exit 1; }
exit $failed
