#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# vm-xsk-suite.sh <xskxceiver directory> <mode>...
#
# The kernel's own AF_XDP suite (tools/testing/selftests/bpf: xskxceiver
# through test_xsk.sh, built by build-xskxceiver.sh) in the given modes
# (skb, drv, zc), one test at a time: test_xsk.sh -m <mode> -t <n>, which
# runs the test plainly and then with busy polling, each time on a fresh
# veth pair. One test at a time because a test that ends in an error
# (exit_with_error()) ends the whole xskxceiver run, and with it every
# test after it.
#
# Writes, into $AFXDP_VM_RESULTS (or the current directory), each run's
# output (<mode>-<n>.log) and per mode a summary, <mode>.txt, one line per
# test: "<n> <name> <plain> <busy poll>", each PASS, FAIL, SKIP, ERROR (the
# run ended in an error) or NONE (no result). Meant for the test VM
# (kernel/xsk-suite.sh runs it there); exits 0 once every test has run,
# whatever its result: xsk-suite.sh judges the summaries.

set -u
[ $# -ge 2 ] || { echo "usage: $0 <xskxceiver directory> <mode>..." >&2; exit 2; }
dir=$1
shift
out=${AFXDP_VM_RESULTS:-$PWD}
cd "$dir" || exit 1
if [ ! -x ./xskxceiver ] || [ ! -f ./test_xsk.sh ]; then
	echo "no xskxceiver in $dir" >&2
	exit 1
fi

# (no process substitution: the guest has no /dev/fd)
list=$(./xskxceiver -l | sed -n 's/^\([0-9][0-9]*\): \([A-Z0-9_]*\)$/\2/p')
[ -n "$list" ] || { echo "xskxceiver -l lists no tests" >&2; exit 1; }
mapfile -t names <<<"$list"

# The result of one ksft line: "ok 1 PASS: ...", "ok 1 # SKIP ...",
# "not ok 1 FAIL: ...", "not ok 1 [file:function:line]: ERROR: ..."
verdict() {
	case "$1" in
	'') echo NONE ;;
	*'# SKIP'*) echo SKIP ;;
	'ok '*) echo PASS ;;
	'not ok '*FAIL*) echo FAIL ;;
	*) echo ERROR ;;
	esac
}

for mode in "$@"; do
	: >"$out/$mode.txt"
	for i in "${!names[@]}"; do
		log=$out/$mode-$i.log
		started=$(date +%s)
		timeout 600 ./test_xsk.sh -m "$mode" -t "$i" >"$log" 2>&1
		plain=$(grep -E '^(not )?ok [0-9]+ ' "$log" | sed -n 1p)
		busy=$(grep -E '^(not )?ok [0-9]+ ' "$log" | sed -n 2p)
		line="$i ${names[$i]} $(verdict "$plain") $(verdict "$busy")"
		echo "$line" >>"$out/$mode.txt"
		echo "xsk-suite: $mode $line ($(( $(date +%s) - started )) s)"
	done
done
exit 0
