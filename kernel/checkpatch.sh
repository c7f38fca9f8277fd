#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# checkpatch.sh [patch...]
#
# Check the series in kernel/patches/ (every layer, or the patches given)
# with the kernel's own scripts/checkpatch.pl --strict, taken from the same
# Debian linux-source-6.12 the series applies to. Exit 0 when every patch is
# clean (no error, warning or check), 1 otherwise, with checkpatch's report;
# 77 (skip) when the source package is not installed.
#
# The cover letters (0000) are not patches and are not checked. Two
# messages are ignored:
# - FILE_PATH_CHANGES ("does MAINTAINERS need updating?") for the new
#   selftest files, which the BPF entry's tools/testing/selftests/bpf/ covers;
# - MISSING_SIGN_OFF: the patches carry no author and no Signed-off-by on
#   purpose. The Developer's Certificate of Origin is a person's statement:
#   whoever posts the series adds their own (git am -s, git commit -s), and
#   checkpatch then sees it. Instead this script fails a patch that has a
#   From: or Signed-off-by: line in its message, so that no identity that
#   nobody answers for comes back.
# The patches are fed on standard input: given the relative name
# kernel/patches/..., checkpatch 6.12 reports every blank context line as
# trailing whitespace (an absolute name or standard input does not).
#
# Only checkpatch.pl and its two data files are taken from the tarball, into
# $AFXDP_KERNEL_CACHE/checkpatch/<source version>/ (once).

set -eu -o pipefail
. "$(dirname "$(readlink -f "$0")")/lib.sh"

# Without the source package, a skip (77) with the reason, as the vm tests
# skip without a kernel: kernel/build.sh installs it.
version=$(kernel_src_version)
if [ -z "$version" ] || [ ! -f "$KERNEL_SRC_TARBALL" ]; then
	echo "skip: $KERNEL_SRC_TARBALL not installed (kernel/build.sh installs $KERNEL_SRC_PKG)"
	exit 77
fi

dir=$KERNEL_CACHE/checkpatch/$version
top=$(basename "$KERNEL_SRC_TARBALL" .tar.xz)
script=$dir/$top/scripts/checkpatch.pl
if [ ! -f "$script" ]; then
	mkdir -p "$dir"
	tmp=$(mktemp -d "$dir/.unpack.XXXXXX")
	tar -xf "$KERNEL_SRC_TARBALL" -C "$tmp" "$top/scripts/checkpatch.pl" \
		"$top/scripts/spelling.txt" "$top/scripts/const_structs.checkpatch"
	rm -rf "${dir:?}/$top"
	mv "$tmp/$top" "$dir/$top"
	rmdir "$tmp"
fi

if [ $# -eq 0 ]; then
	mapfile -t patches < <(kernel_patches)
else
	patches=("$@")
fi
[ ${#patches[@]} -gt 0 ] || die "no patches to check"

failed=0
for p in "${patches[@]}"; do
	name=${p#"$KERNEL_DIR"/patches/}
	# the message: the mail header and the commit log, before the diffstat
	signed=$(sed -n '/^---$/q; /^\(From\|Signed-off-by\): /p' "$p")
	if [ -n "$signed" ]; then
		echo "FAIL  $name"
		echo "      carries an identity; whoever posts the series signs it:"
		echo "$signed" | sed 's/^/      /'
		failed=1
	elif out=$(perl "$script" --strict --no-tree \
		--ignore FILE_PATH_CHANGES,MISSING_SIGN_OFF \
		--summary-file -q - <"$p" 2>&1); then
		echo "ok    $name"
	else
		echo "FAIL  $name"
		echo "$out" | sed 's/^/      /'
		failed=1
	fi
done
exit $failed
