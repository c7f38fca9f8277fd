#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# xsk-suite.sh [--layers L | --unpatched] [--kernel BZIMAGE] [--modes skb,drv]
#              [--results DIR] [--tap] [--busy MODES] [--run-known MODES]
#              [--thread-timeout S]
#
# The kernel's own AF_XDP suite, xskxceiver as test_xsk.sh runs it
# (tools/testing/selftests/bpf), in the test VM, on the image build.sh
# cached for the same layers (all of them by default; --unpatched: the
# measurement's baseline), in copy mode by default (skb and drv; zc for
# zero-copy). xskxceiver is built from the same tree as the kernel: the
# source package with the same layers applied (build-xskxceiver.sh) and the
# suite's own fixes (xsk-suite-fixes/), cached under
# $AFXDP_KERNEL_CACHE/xsk-suite/ by the image's key and a hash of the fixes
# and the build script. --kernel boots BZIMAGE instead (e.g. an image of
# earlier patches, to compare), with xskxceiver still from the tree of the
# layers named (the layers do not touch the suite's sources); so does
# AFXDP_VM_KERNEL, as for vm-run.sh. --thread-timeout S: an xskxceiver
# whose deadline for a test's stream and its completions (THREAD_TMOUT, 3 s)
# is S seconds (build-xskxceiver.sh --thread-timeout), cached apart (the
# directory's name ends in -t<S>): for a kernel too slow for 3 s under TCG
# (the debug image in copy mode, debug-run.sh); CI runs the stock 3 s.
#
# Each test runs on its own (tests/vm-xsk-suite.sh), plainly and with busy
# polling, and the per-test results are printed. Exit status: 0 when every
# test passed or skipped apart from the known failures, 1 otherwise, 77
# when the image is not built.
#
# --tap (the meson test vm-xsk-suite): TAP on stdout, a line per mode, test
# and variant, a known failure as an expected one ("not ok ... # TODO");
# the VM's console as TAP comments; "1..0 # SKIP" and status 0 when the
# image is not built. --busy MODES: busy polling only in these modes
# (comma separated, or none; default all). --run-known MODES: the known
# failures run only in these modes, reported as skipped in the others.
#
# Known failures: xsk-known-failures.txt, a test and its reason a line
# (kernel/README.md has the evidence): invalid Tx descriptors completed by
# Debian's 6.12.118 in copy and zero-copy mode, which the suite of the same
# tree predates; STAT_RX_DROPPED's headroom refused by xdp_umem_reg(); two
# statistics tests that read their counter 1 ms too early under TCG.
# A known failure that passes is reported, not failed.

set -u -o pipefail
. "$(dirname "$(readlink -f "$0")")/lib.sh"

known_list=$KERNEL_DIR/xsk-known-failures.txt
KNOWN_FAILURES=$(sed -n 's/^\([A-Z0-9_][A-Z0-9_]*\) .*/\1/p' "$known_list")

top=
# (as vm-run.sh: another image to boot, with xskxceiver of the layers named)
kernel=${AFXDP_VM_KERNEL:-}
modes=skb,drv
results=
tap=
busy_modes=
known_modes=
thread_timeout=
while [ $# -gt 0 ]; do
	case "$1" in
	--layers) top=$2; shift ;;
	--unpatched) top=none ;;
	--modes) modes=$2; shift ;;
	--kernel) kernel=$(readlink -f "$2"); shift ;;
	--results) results=$2; shift ;;
	--tap) tap=1 ;;
	--busy) busy_modes=$2; shift ;;
	--run-known) known_modes=$2; shift ;;
	--thread-timeout) thread_timeout=$2; shift ;;
	-h | --help) sed -n '3,/^set -u/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
	shift
done

# Not run: 77, or for TAP a skipped plan and status 0
skip() {
	if [ -n "$tap" ]; then
		echo "1..0 # SKIP $1"
		exit 0
	fi
	echo "skip: $1"
	exit 77
}
# In TAP, what is not a result is a comment
say() {
	if [ -n "$tap" ]; then
		echo "# xsk-suite.sh: $*"
	else
		echo "xsk-suite.sh: $*"
	fi
}

version=$(kernel_src_version)
if [ -z "$version" ] || [ ! -f "$KERNEL_SRC_TARBALL" ]; then
	skip "$KERNEL_SRC_PKG is not installed (kernel/build.sh installs it)"
fi
layers=()
layers_text=$(kernel_layers_upto "$top") || die "no layer '$top'"
[ -z "$layers_text" ] || mapfile -t layers <<<"$layers_text"
if [ ${#layers[@]} -gt 0 ]; then
	key=$(kernel_key "$version" "${layers[@]}")
	mapfile -t patches < <(kernel_patches "${layers[@]}")
else
	key=$(kernel_key "$version" none)
	patches=()
fi
image=${kernel:-$KERNEL_CACHE/images/$key/bzImage}
if [ ! -f "$image" ]; then
	skip "no image for key $key: run kernel/build.sh${top:+ with the same option}"
fi

# --- xskxceiver from the same tree --------------------------------------------
# (the suite's fixes and its build script name the build too, and a
# deadline other than the stock one)
[[ "$thread_timeout" =~ ^([1-9][0-9]*)?$ ]] ||
	die "--thread-timeout wants a whole number of seconds, not '$thread_timeout'"
fixes=("$KERNEL_DIR"/xsk-suite-fixes/*.patch)
suite_key=$(cat "${fixes[@]}" "$KERNEL_DIR/build-xskxceiver.sh" | sha256sum | cut -c1-8)
suite_key+=${thread_timeout:+-t$thread_timeout}
xsk=$KERNEL_CACHE/xsk-suite/$key-$suite_key
build_args=()
[ -z "$thread_timeout" ] || build_args=(--thread-timeout "$thread_timeout")
if [ ! -x "$xsk/xskxceiver" ]; then
	tmp=$xsk.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	say "unpacking $KERNEL_SRC_PKG $version and applying ${#patches[@]} patches and ${#fixes[@]} fixes of the suite"
	tar -xf "$KERNEL_SRC_TARBALL" -C "$tmp" --wildcards '*/tools' '*/include' '*/arch/x86' \
		'*/scripts' '*/Makefile' '*/net/xdp' '*/drivers/net/veth.c' '*/kernel/bpf' '*/net/core' \
		'*/Documentation/networking' || die "cannot unpack $KERNEL_SRC_TARBALL"
	src=$tmp/$(basename "$KERNEL_SRC_TARBALL" .tar.xz)
	for p in "${patches[@]}" "${fixes[@]}"; do
		patch -d "$src" -p1 --batch --forward --fuzz=0 --no-backup-if-mismatch \
			<"$p" >/dev/null || die "${p#"$KERNEL_DIR"/} does not apply"
	done
	"$KERNEL_DIR/build-xskxceiver.sh" "${build_args[@]}" "$src" "$tmp/out" >"$tmp/build.log" 2>&1 || {
		tail -n 20 "$tmp/build.log" >&2
		die "xskxceiver does not build"
	}
	rm -rf "$xsk"
	mkdir -p "$xsk"
	cp "$tmp/out/xskxceiver" "$tmp/out/test_xsk.sh" "$tmp/out/xsk_prereqs.sh" "$xsk/"
	rm -rf "$tmp"
fi

# --- the suite in the VM ------------------------------------------------------
[ -n "$results" ] || results=$(mktemp -d "${TMPDIR:-/tmp}/xsk-suite.XXXXXX")
mkdir -p "$results"
say "$image (xskxceiver of key $key-$suite_key: ${layers[*]:-unpatched}; deadline ${thread_timeout:-3} s), modes $modes, results in $results"
guest_args=(--known "$known_list")
[ -z "$tap" ] || guest_args+=(--tap)
[ -z "$busy_modes" ] || guest_args+=(--busy "$busy_modes")
[ -z "$known_modes" ] || guest_args+=(--run-known "$known_modes")
# 31 tests per mode and variant, 1-5 s each under TCG (a failing one waits
# for its deadline, 3 s or --thread-timeout)
# shellcheck disable=SC2086 # one argument per mode
AFXDP_VM_TAP=${tap:-0} AFXDP_VM_TIMEOUT=${AFXDP_VM_TIMEOUT:-3600} AFXDP_VM_KERNEL=$image \
	AFXDP_VM_RESULTS_DIR=$results \
	"$KERNEL_DIR/vm-run.sh" "$KERNEL_DIR/tests/vm-xsk-suite.sh" "${guest_args[@]}" "$xsk" ${modes//,/ }
rc=$?
# TAP: the lines are the verdict
[ -z "$tap" ] || exit "$rc"
[ "$rc" = 77 ] && exit 77
[ "$rc" = 0 ] || die "the VM job failed (status $rc)"

failed=0
for mode in ${modes//,/ }; do
	[ -s "$results/$mode.txt" ] || die "no results for mode $mode"
	while read -r n name plain busy; do
		known=0
		grep -qw -- "$name" <<<"$KNOWN_FAILURES" && known=1
		note=
		variants=("$plain" "$busy")
		case ",${busy_modes:-$mode}," in *",$mode,"*) ;; *) variants=("$plain") busy=- ;; esac
		for v in "${variants[@]}"; do
			case "$v" in
			PASS) [ "$known" = 0 ] || note=" (a known failure passes)" ;;
			SKIP) ;;
			NOTRUN) note=" (known failure, not run)" ;;
			*)
				if [ "$known" = 1 ]; then
					note=" (known failure)"
				else
					note=" (FAILED)"
					failed=1
				fi
				;;
			esac
		done
		printf '%s %2d %-36s %-5s %-5s%s\n' "$mode" "$n" "$name" "$plain" "$busy" "$note"
	done <"$results/$mode.txt"
done
exit "$failed"
