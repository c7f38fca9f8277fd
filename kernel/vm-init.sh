#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# PID 1 of the test VM started by vm-run.sh. The root file system is the
# host's, read-only: give the guest the writable places it needs, run the job
# vm-run.sh wrote to the results share, hand its exit status back there and
# power off. If anything here fails, the kernel panics when PID 1 exits,
# which ends qemu (-no-reboot, panic=-1).

PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
HOME=/tmp
export PATH HOME

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm /dev/hugepages
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
# 0755 as the host's: EAL loads no plugin from under a world-writable directory.
mount -t tmpfs -o mode=0755 tmpfs /run
mount -t bpf bpf /sys/fs/bpf
mount -t hugetlbfs hugetlbfs /dev/hugepages

share=/run/vm-share
mkdir -p "$share"
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 results "$share"; then
	echo "vm-init: cannot mount the results share" >&2
	exec /bin/busybox poweroff -f
fi

# A /tmp of the guest's own, with the host's directories there that the job
# needs (vm-run.sh lists them: a checkout under /tmp) bound back in.
mkdir -p /run/host-tmp
mount --bind /tmp /run/host-tmp
mount -t tmpfs tmpfs /tmp
while read -r dir; do
	if [ -d "/run/host-tmp/${dir#/tmp/}" ]; then
		mkdir -p "$dir"
	else
		: >"$dir"
	fi
	mount --bind "/run/host-tmp/${dir#/tmp/}" "$dir"
done <"$share/host-tmp"

# DPDK's plugin directory with only the drivers vm-run.sh listed
# (dpdk-plugins: "<directory> <file>" lines): EAL loads every one there
# into each process, which costs seconds a start under TCG. The whole
# directory stays visible under /run/dpdk-plugins-all.
if [ -s "$share/dpdk-plugins" ]; then
	for dir in $(cut -d' ' -f1 "$share/dpdk-plugins" | sort -u); do
		all=/run/dpdk-plugins-all$dir used=/run/dpdk-plugins-used$dir
		mkdir -p "$all" "$used"
		mount --bind "$dir" "$all"
		grep "^$dir " "$share/dpdk-plugins" | cut -d' ' -f2 | while read -r f; do
			ln -s "$all/$f" "$used/$f"
		done
		mount --bind "$used" "$dir"
	done
fi
. "$share/env.sh"
AFXDP_VM_RESULTS=$share/results
AFXDP_VM_KEEP=$share/keep
AFXDP_VM=1
export AFXDP_VM_RESULTS AFXDP_VM_KEEP AFXDP_VM

cat "$share/hugepages" >/proc/sys/vm/nr_hugepages 2>/dev/null
ip link set lo up

# The job's output goes to the console, which vm-run.sh shows on the host.
/bin/bash "$share/job.sh" </dev/null >/dev/console 2>&1
rc=$?

# kmemleak, when the kernel was booted with it on (vm-run.sh
# AFXDP_VM_KMEMLEAK=1): one scan now that the job is over, which logs how
# many new leaks it suspects; its report goes to the results.
if grep -qw kmemleak=on /proc/cmdline; then
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	if echo scan >/sys/kernel/debug/kmemleak; then
		cat /sys/kernel/debug/kmemleak >"$AFXDP_VM_RESULTS/kmemleak.txt"
	fi
fi

# A kernel warning, BUG, lockdep or KASAN report during the job fails it,
# unless allowed: the expressions of kernel-problems.ere, next to this
# script (which the kernel runs by its path on the host's root).
dmesg >"$AFXDP_VM_RESULTS/dmesg.txt" 2>/dev/null
problems=$(sed -e '/^#/d' -e '/^$/d' "$(dirname "$0")/kernel-problems.ere" | paste -sd'|')
[ -n "$problems" ] || problems='WARNING: CPU|BUG:|Call Trace'
if grep -qE "$problems" "$AFXDP_VM_RESULTS/dmesg.txt"; then
	{
		echo "vm-init: the kernel reported a problem during the job:"
		grep -E -B3 -A12 "$problems" "$AFXDP_VM_RESULTS/dmesg.txt" | head -n 200
	} >/dev/console
	if [ "$rc" = 0 ] && [ "${AFXDP_VM_ALLOW_KERNEL_WARN:-0}" != 1 ]; then
		rc=1
	fi
fi
echo "$rc" >"$share/rc"
sync
umount "$share"
exec /bin/busybox poweroff -f
