#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# stale_int3.sh consoles <dir>
#   kernel/stale-int3.awk on saved guest consoles: only stale-int3.txt (the
#   oops of a vm suite run in CI) is the stale int3; int3-in-memory.txt (the
#   same with the int3 still in memory), other-oops.txt and clean.txt not.
# stale_int3.sh vm <vm-run.sh> <xdp object>
#   kernel/vm-run.sh's second boot, for real: vm-text-poke.sh under
#   multi-threaded TCG until the guest dies of the stale int3 (a skip when
#   this qemu does not make one in 120 s); vm-run.sh must then say so, boot
#   the job again with single-threaded TCG and return its status, 0.
set -u
here=$(dirname "$(readlink -f "$0")")
awk_prog=$here/../stale-int3.awk

check_consoles() {
	local dir=$1 f want got failed=0
	for f in stale-int3 int3-in-memory other-oops clean; do
		want=1
		[ "$f" = stale-int3 ] && want=0
		awk -f "$awk_prog" "$dir/$f.txt" >/dev/null
		got=$?
		if [ "$got" = "$want" ]; then
			echo "ok: $f.txt: status $got"
		else
			echo "FAIL: $f.txt: status $got, expected $want"
			failed=1
		fi
	done
	return $failed
}

check_rerun() {
	local vm=$1 obj=$2 out rc
	out=$(AFXDP_VM_TCG=multi AFXDP_VM_TIMEOUT=400 "$vm" "$here/vm-text-poke.sh" "$obj" 120 2>&1)
	rc=$?
	if [ "$rc" = 77 ]; then
		echo "$out"
		return 77
	fi
	grep -E 'Oops|RIP: 0010|^vm-run:|program changes' <<<"$out"
	if ! grep -q 'booting the job again' <<<"$out"; then
		if [ "$rc" = 0 ]; then
			echo "SKIP: no stale int3 in 120 s of program changes under multi-threaded TCG (this qemu did not make one)"
			return 77
		fi
		echo "FAIL: vm-run.sh status $rc without a second boot"
		return 1
	fi
	if ! grep -q 'program changes with AFXDP_VM_TCG=single' <<<"$out"; then
		echo "FAIL: the second boot did not run the job with single-threaded TCG (status $rc)"
		return 1
	fi
	[ "$rc" = 0 ] || { echo "FAIL: vm-run.sh status $rc after the second boot"; return 1; }
	echo "ok: the stale int3 ended the first boot, the second ran the job and vm-run.sh returned 0"
}

case "${1:-}" in
consoles) check_consoles "$2" ;;
vm) check_rerun "$2" "$3" ;;
*) echo "usage: $0 consoles <dir> | vm <vm-run.sh> <xdp object>" >&2; exit 2 ;;
esac
