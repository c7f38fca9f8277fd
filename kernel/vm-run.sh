#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# vm-run.sh <script> [args...]
#
# Boot the patched kernel (built and cached by build.sh) under qemu, with the
# host's root file system as the guest's root, read-only over 9p, and run
# <script> [args...] in it as root, from the current directory. The script's
# output appears on stdout (the guest console, kernel warnings included);
# the exit status is the script's.
#
# Other exit statuses:
#   77   no kernel image cached for the current patches, or no qemu: the
#        caller should report a skip (run build.sh first); with
#        AFXDP_VM_TAP=1, status 0 and TAP's "1..0 # SKIP <reason>"
#   124  the VM did not end within AFXDP_VM_TIMEOUT seconds (killed)
#   125  the VM ended without the script's status (kernel panic, crash)
#
# One guest death is not the job's: qemu's multi-threaded TCG can run a stale
# translation of kernel text that another vCPU has just patched (the kernel's
# int3-based text_poke_bp(): static calls, static keys, the BPF dispatcher at
# each XDP program change), and the guest then dies of an int3 that its memory
# no longer holds. vm-run.sh recognises exactly that oops (an int3 in kernel
# mode whose Code: line shows no int3 before the trapping address), says so,
# and boots the job once more with single-threaded TCG, where one vCPU runs at
# a time; a second death of any kind is the job's (125). A job that runs many
# checks in one boot resumes after those done (tests/integration/vm_suite.py):
# $AFXDP_VM_KEEP, a writable directory in the guest, survives into the
# second boot.
#
# Inside the guest: /proc, /sys, /sys/fs/bpf, devtmpfs on /dev, tmpfs on
# /run, /tmp (with the host's directories there that the job names bound
# in) and /dev/shm, hugetlbfs on /dev/hugepages with
# AFXDP_VM_HUGEPAGES 2 MB pages reserved, lo up. Everything else is the host's
# and read-only; $AFXDP_VM_RESULTS is a writable directory whose content is
# copied to the host directory AFXDP_VM_RESULTS_DIR, when that is set, once
# the VM has ended. Environment variables named AFXDP_* are passed in, and
# PYTHONPATH (the tests' library, python/, is on the host's root, which the
# guest sees at the same path) and LD_LIBRARY_PATH (another DPDK line's
# libraries, scripts/dpdk-build.sh).
#
# Settings (environment):
#   AFXDP_VM_KERNEL     a bzImage to boot instead of the cached one
#   AFXDP_VM_TIMEOUT    seconds before the VM is killed (default 1200)
#   AFXDP_VM_CPUS       vCPUs (default 2)
#   AFXDP_VM_MEM        memory (default 2G)
#   AFXDP_VM_HUGEPAGES  2 MB huge pages reserved in the guest (default 256)
#   AFXDP_VM_RESULTS_DIR  host directory receiving the guest's results
#   AFXDP_VM_ALLOW_KERNEL_WARN=1  do not fail a job during which the kernel
#                       logged a WARNING or BUG (by default that turns a
#                       successful status into 1; dmesg.txt in the results)
#   AFXDP_VM_DPDK_PLUGINS  all: the guest's DPDK plugin directory as the
#                       host's (default: the drivers the tests can use, see
#                       dpdk_plugins_used)
#   AFXDP_VM_TCG        multi (default: a host thread per vCPU) or single (one
#                       host thread runs the vCPUs in turn: slower, but no
#                       vCPU ever runs code another is patching)
#   AFXDP_VM_APPEND     kernel parameters added to the command line
#   AFXDP_VM_KMEMLEAK=1  boot with kmemleak=on (an image built with kmemleak,
#                       build.sh --debug): the guest scans for leaks after the
#                       job, before the kernel log is judged (a leak found
#                       is then a problem like a WARNING), and leaves the
#                       report in kmemleak.txt in the results
#   AFXDP_VM_ICOUNT     run with -icount shift=<value> (single-threaded TCG):
#                       guest time then counts guest instructions (2^shift ns
#                       each) instead of following the host's clock, which
#                       makes timings independent of the host's load
# In the guest, AFXDP_VM_IMAGE is the path of the image booted (the cache
# keeps what was built with it in the same directory: test_progs), and
# AFXDP_VM_TCG says how the vCPUs are emulated (multi or single).
#
# The VM always ends: qemu runs with -no-reboot and the kernel with panic=-1
# (a panic reboots, which ends qemu), the guest's init powers off after the
# script, and a host-side timeout kills qemu. KVM is not used: /dev/kvm here
# is a nested PVM that cannot run a normal kernel; TCG emulates instead.

set -u
. "$(dirname "$(readlink -f "$0")")/lib.sh"

SKIP=77

if [ $# -lt 1 ]; then
	echo "usage: $0 <script> [args...]" >&2
	exit 2
fi

# A job that reports in TAP (AFXDP_VM_TAP=1: tests/integration/vm_suite.py)
# is skipped in TAP's words, with status 0.
skip() {
	if [ "${AFXDP_VM_TAP:-0}" = 1 ]; then
		echo "1..0 # SKIP $1"
		exit 0
	fi
	echo "SKIP: $1"
	exit $SKIP
}

image=$(kernel_image) ||
	skip "no patched kernel cached for the current patches and fragment (run kernel/build.sh)"
qemu=$(command -v qemu-system-x86_64) ||
	skip "qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"

script=$1
shift
case "$script" in
/*) ;;
*) if [ -e "$script" ]; then script=$(readlink -f "$script"); fi ;;
esac

# The guest has its own /run and /dev/shm (tmpfs): host files there are
# invisible to it.
for a in "$script" "$@"; do
	case "$a" in
	/run/* | /dev/shm/*)
		[ -e "$a" ] && die "$a is not visible in the guest, which mounts its own tmpfs there (use another directory)"
		;;
	esac
done

# It has its own /tmp too, but what the job needs of the host's /tmp (a
# checkout cloned there, its build) vm-init.sh binds back in: the first
# directory under /tmp of the job's script, its arguments, the current
# directory, and the paths of the environment passed in.
host_tmp_dirs() {
	local p
	for p in "$script" "$@" "$PWD" $(env | sed -nE \
		's/^(AFXDP_[A-Za-z0-9_]*|PYTHONPATH|LD_LIBRARY_PATH)=//p' | tr ':' ' '); do
		case "$p" in
		/tmp/?*) p=${p#/tmp/} && echo "/tmp/${p%%/*}" ;;
		esac
	done | sort -u
}

# EAL loads every library of Debian's DPDK plugin directory into each DPDK
# process: 128 drivers, whose relocation and constructors take most of a
# testpmd's start under TCG (14 s of 15 on a loaded machine). The guest's
# directory holds only the libraries its DPDK programs can use here: the
# buses, mempool and common drivers, the null, ring and af_xdp net drivers,
# and what testpmd, dpdk-proc-info and Open vSwitch link (loaded by ld.so in any
# case), with what those link in turn. Lines "<directory> <file name>".
dpdk_plugins_used() {
	local dir libs
	for dir in /usr/lib/*/dpdk/pmds-*; do
		[ -d "$dir" ] || continue
		# shellcheck disable=SC2010 # the directory's names are DPDK's: no odd characters
		libs=$(cd "$dir" && ls | grep -E '^librte_((bus|mempool|common)_|net_(af_xdp|null|ring)\.)'
			ldd /usr/bin/dpdk-testpmd /usr/bin/dpdk-proc-info \
				/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk 2>/dev/null |
				awk '$1 ~ /^librte_/ {print $1}')
		# shellcheck disable=SC2046 # one argument a library
		libs=$( (cd "$dir" && echo "$libs" && ldd $(echo "$libs" | sort -u) 2>/dev/null |
			awk '$1 ~ /^librte_/ {print $1}') | sort -u)
		for lib in $libs; do
			[ -e "$dir/$lib" ] || continue
			# each name EAL may list: lib.so, lib.so.N, lib.so.N.M
			(cd "$dir" && ls -d "${lib%%.so*}".so*) | sed "s#^#$dir #"
		done
	done | sort -u
}

timeout_s=${AFXDP_VM_TIMEOUT:-1200}
cpus=${AFXDP_VM_CPUS:-2}
mem=${AFXDP_VM_MEM:-2G}
tcg=${AFXDP_VM_TCG:-multi}
case "$tcg" in
multi | single) ;;
*) die "AFXDP_VM_TCG must be multi or single, not '$tcg'" ;;
esac
[ -n "${AFXDP_VM_ICOUNT:-}" ] && tcg=single

work=$(mktemp -d /tmp/afxdp-vm.XXXXXX) || die "cannot create a temporary directory"
share=$work/share
mkdir -p "$share"
qpid=

cleanup() {
	if [ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null; then
		kill "$qpid" 2>/dev/null
		wait "$qpid" 2>/dev/null
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The job: run from the current directory.
{
	echo "cd $(printf %q "$PWD") || exit 126"
	printf 'exec %q' "$script"
	for a in "$@"; do printf ' %q' "$a"; done
	echo
} >"$share/job.sh"
echo "${AFXDP_VM_HUGEPAGES:-256}" >"$share/hugepages"
host_tmp_dirs "$@" >"$share/host-tmp"
[ "${AFXDP_VM_DPDK_PLUGINS:-used}" = all ] || dpdk_plugins_used >"$share/dpdk-plugins"
mkdir -p "$share/keep"

init=$KERNEL_DIR/vm-init.sh
[ -x "$init" ] || die "$init is missing or not executable"

# cache=loose: the guest keeps what it read of the root, whose files do not
# change under it (read-only to the guest, built by the host before the
# boot); 9p's default reads every exec's binary and libraries through qemu
# again, which halved the speed of the tests' boots under TCG (README).
cmdline="console=ttyS0 root=hostroot rootfstype=9p"
cmdline+=" rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose ro"
cmdline+=" init=$init panic=-1 oops=panic loglevel=4 quiet"
[ "${AFXDP_VM_KMEMLEAK:-0}" = 1 ] && cmdline+=" kmemleak=on"
cmdline+="${AFXDP_VM_APPEND:+ $AFXDP_VM_APPEND}"

# What the console shows of the guest: all of it; for a TAP job, the
# kernel's messages as TAP comments.
console_filter() {
	if [ "${AFXDP_VM_TAP:-0}" = 1 ]; then
		sed -u -E '/^(ok |not ok |1\.\.|#)/!s/^/# /'
	else
		cat
	fi
}

# Boot the VM once, with TCG as $tcg says, and wait for it to end: qemu's
# status in qrc, the guest's console in $work/console.log (also shown).
boot_vm() {
	local accel tail_pid

	rm -rf "$share/results" "$share/rc"
	mkdir -p "$share/results"
	# The AFXDP_* environment, PYTHONPATH and LD_LIBRARY_PATH, for the
	# guest's init and the job; the image's directory also holds what was
	# built with it.
	export AFXDP_VM_IMAGE=$image AFXDP_VM_TCG=$tcg
	env | grep -E '^(AFXDP_[A-Za-z0-9_]*|PYTHONPATH|LD_LIBRARY_PATH)=' | while IFS= read -r kv; do
		echo "export $(printf %q "$kv")"
	done >"$share/env.sh"

	# shellcheck disable=SC2054 # commas belong to qemu options
	accel=(-accel "tcg,thread=$tcg")
	if [ -n "${AFXDP_VM_ICOUNT:-}" ]; then
		# shellcheck disable=SC2054
		accel+=(-icount "shift=$AFXDP_VM_ICOUNT,sleep=on")
	fi

	: >"$work/console.log"
	timeout -k 10 "$timeout_s" "$qemu" \
		"${accel[@]}" -cpu max -smp "$cpus" -m "$mem" \
		-nodefaults -no-user-config -display none -no-reboot \
		-kernel "$image" -append "$cmdline" \
		-serial "file:$work/console.log" \
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
		-virtfs "local,path=$share,mount_tag=results,security_model=none,multidevs=remap" \
		</dev/null >"$work/qemu.log" 2>&1 &
	qpid=$!

	# In the background: a signal must reach the traps while we wait.
	tail -n +1 -f --pid="$qpid" "$work/console.log" | tr -d '\r' | console_filter &
	tail_pid=$!
	wait "$qpid"
	qrc=$?
	qpid=
	wait "$tail_pid"
}

boot_vm
if [ "$tcg" = multi ] && [ ! -s "$share/rc" ] && where=$(awk -f "$KERNEL_DIR/stale-int3.awk" "$work/console.log"); then
	echo "vm-run: the guest died of an int3 its memory no longer holds, at $where:" \
		"qemu's multi-threaded TCG ran a stale translation of kernel text patched" \
		"by another vCPU (see kernel/README.md); booting the job again, once," \
		"with single-threaded TCG" >&2
	tcg=single
	boot_vm
fi

if [ -n "${AFXDP_VM_RESULTS_DIR:-}" ]; then
	mkdir -p "$AFXDP_VM_RESULTS_DIR" &&
		cp -a "$share/results/." "$AFXDP_VM_RESULTS_DIR/" 2>/dev/null
fi

if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	echo "vm-run: the VM did not end within ${timeout_s}s and was killed" >&2
	exit 124
fi
if [ ! -s "$share/rc" ]; then
	echo "vm-run: the VM ended (qemu status $qrc) without the script's exit status" >&2
	sed 's/^/qemu: /' "$work/qemu.log" >&2
	exit 125
fi
rc=$(cat "$share/rc")
case "$rc" in
'' | *[!0-9]*) echo "vm-run: bad exit status '$rc' from the guest" >&2; exit 125 ;;
esac
exit "$rc"
