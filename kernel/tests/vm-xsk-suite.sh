#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# vm-xsk-suite.sh [--known FILE] [--tap] [--busy MODES] [--run-known MODES]
#                  <xskxceiver directory> <mode>...
#
# The kernel's own AF_XDP suite (tools/testing/selftests/bpf: xskxceiver,
# built by build-xskxceiver.sh) in the given modes (skb, drv, zc), as
# test_xsk.sh runs it: per mode, on a veth pair set up the way test_xsk.sh
# sets it up, every test plainly, then on a fresh pair with busy polling
# (napi_defer_hard_irqs 2, gro_flush_timeout 200 us, xskxceiver -b). Each
# test is an xskxceiver process of its own (-t <n>): a test that ends in an
# error (exit_with_error()) would end a whole-suite run, and with it every
# test after it; and test_xsk.sh itself costs ~10 s a run under TCG where a
# test takes 1-5 s. After a failure not in the known list (--known FILE,
# "<name> <reason>" lines) the next test gets a fresh pair: a failure that
# leaves the pair unusable (zero-copy TEARDOWN with busy polling, see
# kernel/README.md) is then its own, not every later test's.
#
# Writes, into $AFXDP_VM_RESULTS (or the current directory), each run's
# output (<mode>-<n>.log plainly, <mode>-<n>-busy.log busy polling) and per
# mode a summary, <mode>.txt, one line per test: "<n> <name> <plain> <busy
# poll>", each PASS, FAIL, SKIP, ERROR (the run ended in an error) or NONE
# (no result). Meant for the test VM (kernel/xsk-suite.sh runs it there);
# exits 0 once every test has run, whatever its result: xsk-suite.sh judges
# the summaries.
#
# --tap: also a TAP line on stdout per mode, test and variant ("ok 7 -
# zc/POLL_TX/busy"), judged against the known list: a known failure that
# fails is "not ok ... # TODO <reason>" (an expected failure), one that
# passes a plain "ok"; the run's output of a test that failed goes out as
# TAP comments.
# --busy MODES: the busy-polling variant only in these modes (comma
# separated, or none; default all), the others plain only (CI's time).
# --run-known MODES: the known failures run only in these modes (default
# all); in the others they are reported as skipped, not run (CI's time).

set -u
tap=
known_file=
busy_modes=all
known_modes=all
while [ $# -gt 0 ]; do
	case "$1" in
	--known) known_file=$2; shift 2 ;;
	--tap) tap=1; shift ;;
	--busy) busy_modes=$2; shift 2 ;;
	--run-known) known_modes=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || { echo "usage: $0 [--known FILE] [--tap] [--busy MODES] <xskxceiver directory> <mode>..." >&2; exit 2; }
dir=$1
shift
out=${AFXDP_VM_RESULTS:-$PWD}
cd "$dir" || exit 1
if [ ! -x ./xskxceiver ]; then
	echo "no xskxceiver in $dir" >&2
	exit 1
fi

# (no process substitution: the guest has no /dev/fd)
list=$(./xskxceiver -l | sed -n 's/^\([0-9][0-9]*\): \([A-Z0-9_]*\)$/\2/p')
[ -n "$list" ] || { echo "xskxceiver -l lists no tests" >&2; exit 1; }
mapfile -t names <<<"$list"

declare -A known=()
if [ -n "$known_file" ]; then
	while read -r name reason; do
		case "$name" in '' | '#'*) continue ;; esac
		known[$name]=$reason
	done <"$known_file"
fi

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

# Whether mode $2 is in the list $1 (comma separated, or all)
in_list() {
	[ "$1" = all ] && return 0
	case ",$1," in *",$2,"*) return 0 ;; esac
	return 1
}
has_busy() { in_list "$busy_modes" "$1"; }

# The pair the tests run on (xsk-veth.sh); $1: busy polling
. "$(dirname "$(readlink -f "$0")")/xsk-veth.sh"
veth0=xskx0
veth1=xskx1
veth_up() { xsk_veth_pair "$veth0" "$veth1" "$1"; }

if [ -n "$tap" ]; then
	planned=0
	for mode in "$@"; do
		planned=$((planned + ${#names[@]}))
		has_busy "$mode" && planned=$((planned + ${#names[@]}))
	done
	echo "1..$planned"
fi
tap_n=0
tap_line() { # mode, test index, variant, verdict, log
	local name=${names[$2]} reason=${known[${names[$2]}]:-}
	tap_n=$((tap_n + 1))
	case "$4" in
	PASS) echo "ok $tap_n - $1/$name/$3${reason:+ # a known failure passed}" ;;
	SKIP) echo "ok $tap_n - $1/$name/$3 # SKIP $(sed -n 's/.*# SKIP //p' "$5" | head -n 1)" ;;
	NOTRUN) echo "ok $tap_n - $1/$name/$3 # SKIP known failure, not run here (xsk-suite.sh runs it): $reason" ;;
	*)
		sed -E '/^(DEBUG|\.\.\.\.|-----)/d; s/^#* ?/# /' "$5" | head -n 20
		if [ -n "$reason" ]; then
			echo "not ok $tap_n - $1/$name/$3: $4 # TODO known: $reason"
		else
			echo "not ok $tap_n - $1/$name/$3: $4"
		fi
		;;
	esac
}

for mode in "$@"; do
	declare -A res=()
	variants=0
	has_busy "$mode" && variants="0 1"
	for busy in $variants; do
		suffix=
		args=()
		[ "$busy" = 1 ] && suffix=-busy && args=(-b)
		if ! veth_up "$busy"; then
			echo "cannot set up the veth pair" >&2
			exit 1
		fi
		for i in "${!names[@]}"; do
			log=$out/$mode-$i$suffix.log
			started=$(date +%s)
			if [ -n "${known[${names[$i]}]:-}" ] && ! in_list "$known_modes" "$mode"; then
				res[$i.$busy]=NOTRUN
				[ -z "$tap" ] || tap_line "$mode" "$i" "$([ "$busy" = 1 ] && echo busy || echo plain)" NOTRUN "$log"
				continue
			fi
			timeout 300 ./xskxceiver -i "$veth0" -i "$veth1" -m "$mode" -t "$i" "${args[@]}" \
				>"$log" 2>&1
			v=$(verdict "$(grep -E '^(not )?ok [0-9]+ ' "$log" | sed -n 1p)")
			res[$i.$busy]=$v
			case "$v" in
			PASS | SKIP | NOTRUN) ;;
			*) [ -n "${known[${names[$i]}]:-}" ] || veth_up "$busy" || exit 1 ;;
			esac
			[ -z "$tap" ] || tap_line "$mode" "$i" "$([ "$busy" = 1 ] && echo busy || echo plain)" "$v" "$log"
			echo "# xsk-suite: $mode ${names[$i]}${suffix} $v ($(($(date +%s) - started)) s)" >&2
		done
		ip link del "$veth0"
	done
	: >"$out/$mode.txt"
	for i in "${!names[@]}"; do
		echo "$i ${names[$i]} ${res[$i.0]} ${res[$i.1]:-NONE}" >>"$out/$mode.txt"
	done
	unset res
done
exit 0
