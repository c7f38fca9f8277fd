#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# vm-selftest.sh
#
# The series' own BPF selftests (tools/testing/selftests/bpf: prog_tests and
# progs xdp_xsk_redirect), which build.sh builds from the patched tree into
# a test_progs of only those and caches next to the kernel image. Meant for
# the test VM (kernel/vm-run.sh, which says in AFXDP_VM_IMAGE which image it
# booted); skipped (77) when that image has no test_progs next to it, e.g.
# an image booted with AFXDP_VM_KERNEL.

set -u
test_progs=$(dirname "${AFXDP_VM_IMAGE:-/nonexistent/bzImage}")/test_progs
if [ ! -x "$test_progs" ]; then
	echo "SKIP: no test_progs next to the kernel image ($test_progs): run kernel/build.sh"
	exit 77
fi
# test_progs may write next to where it runs: the guest's own /tmp
cd /tmp || exit 1
"$test_progs" -t xdp_xsk_redirect
