#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# build.sh [--layers <layer> | --unpatched] [--debug] [--force] [--keep-tree]
#
# Build the patched test kernel and cache it: Debian's linux-source-6.12,
# the layers of the series in kernel/patches/ (in the order of
# kernel/patches/layers: a, c, b, each on the ones before it),
# `make tinyconfig` + kernel/config.fragment, `make bzImage`, and the
# series' own BPF selftests from the same tree (build-selftest.sh: a
# test_progs of only those). The image and test_progs
# are cached under a hash of (source package version, fragment, patches,
# recipe), so a second run with the same inputs costs seconds. Prints where
# the image is, on the last line of output.
#
#   --layers L   only the layers up to and including L (its letter, e.g.
#                `--layers a` for the upstream candidate alone, `--layers c`
#                for a+c), to check that each builds on the ones below it;
#                the image is cached under its own key but is not the one
#                vm-run.sh boots (AFXDP_VM_KERNEL=<its bzImage> does)
#   --unpatched  the same source and configuration without the series: the
#                measurement's baseline, cached the same way (no selftest)
#   --debug      the debug image: kernel/config-debug.fragment on top of
#                config.fragment (lockdep, PROVE_RCU, KASAN, DEBUG_NET,
#                kmemleak when asked for at boot), cached under a key that
#                also hashes that fragment (the other images' keys do not
#                change); with --layers or --unpatched too. Not for
#                measuring; kernel/debug-run.sh runs the tests on it
#   --force      rebuild even if the image is cached
#   --keep-tree  keep the unpacked, built source tree (~3 GB) for inspection
#
# Settings (environment): AFXDP_KERNEL_CACHE (default
# /var/cache/af-xdp-direct/kernel), AFXDP_KERNEL_JOBS (make -j, default 2).
#
# Installs the packages it needs with apt-get when they are missing (as root).
# A full build takes about 5 minutes on 2 cores; the log is kept next to the
# image and its tail is shown on failure.

set -eu -o pipefail
. "$(dirname "$(readlink -f "$0")")/lib.sh"

force=0
keep_tree=0
top=
while [ $# -gt 0 ]; do
	arg=$1
	shift
	case "$arg" in
	--layers)
		[ $# -gt 0 ] || die "--layers needs a layer (a, c, b)"
		top=$1
		shift
		;;
	--layers=*) top=${arg#--layers=} ;;
	--unpatched) top=none ;;
	--debug) KERNEL_DEBUG=1 ;;
	--force) force=1 ;;
	--keep-tree) keep_tree=1 ;;
	-h | --help) sed -n '3,36p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$arg' (see --help)" ;;
	esac
done

jobs=${AFXDP_KERNEL_JOBS:-2}

# --- 1. packages ---------------------------------------------------------
packages=(
	"$KERNEL_SRC_PKG"		# the source tarball
	gcc make bc flex bison cpio	# the kernel build
	libelf-dev libssl-dev		# objtool, certificates
	dwarves				# pahole: BTF
	xz-utils			# the tarball
	qemu-system-x86			# vm-run.sh
	busybox-static			# poweroff -f in the guest
	iproute2 ethtool		# the tests, in the guest
	pkg-config libbpf-dev		# the test programs
	clang bpftool zlib1g-dev	# the series' BPF selftests
)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "missing packages: ${missing[*]} (run as root, or install them)"
	echo "build.sh: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; then
		apt-get update >/dev/null ||
			die "apt-get update failed"
		apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null ||
			die "cannot install ${missing[*]}"
	fi
fi

# --- 2. the cache key --------------------------------------------------------
version=$(kernel_src_version)
[ -n "$version" ] || die "$KERNEL_SRC_PKG is not installed"
[ -f "$KERNEL_SRC_TARBALL" ] || die "$KERNEL_SRC_TARBALL is missing (reinstall $KERNEL_SRC_PKG)"
[ -n "$(kernel_layers)" ] || die "no layers in $KERNEL_DIR/patches"
layers_text=$(kernel_layers_upto "$top") || die "no layer '$top' (see --help)"
layers=()
[ -z "$layers_text" ] || mapfile -t layers <<<"$layers_text"
if [ ${#layers[@]} -gt 0 ]; then
	mapfile -t patches < <(kernel_patches "${layers[@]}")
	key=$(kernel_key "$version" "${layers[@]}")
	what="$(printf '%s ' "${layers[@]}")(${#patches[@]} patches)"
else
	patches=()
	key=$(kernel_key "$version" none)
	what="unpatched"
fi
fragments=("$KERNEL_DIR/config.fragment")
if [ "$KERNEL_DEBUG" = 1 ]; then
	fragments+=("$KERNEL_DIR/config-debug.fragment")
	what="$what, debug"
fi
has_layer() {
	printf '%s\n' "${layers[@]}" | grep -q "^$1-"
}
images=$KERNEL_CACHE/images
image=$images/$key/bzImage

if [ "$force" = 0 ] && [ -f "$image" ]; then
	echo "kernel image (cached, $KERNEL_SRC_PKG $version, $what, key $key):"
	echo "$image"
	exit 0
fi

mkdir -p "$KERNEL_CACHE" "$images"
exec 9>"$KERNEL_CACHE/.lock"
if ! flock -n 9; then
	echo "build.sh: another build is running, waiting for it"
	flock 9
fi
if [ "$force" = 0 ] && [ -f "$image" ]; then
	echo "kernel image (built meanwhile, key $key):"
	echo "$image"
	exit 0
fi

# --- 3. source + patches --------------------------------------------------
build=$KERNEL_CACHE/build/$key
log=$KERNEL_CACHE/build/$key.log
rm -rf "$build"
mkdir -p "$build"
: >"$log"
started=$(date +%s)
echo "build.sh: $KERNEL_SRC_PKG $version, $what, key $key"
echo "build.sh: unpacking into $build"
tar -xf "$KERNEL_SRC_TARBALL" -C "$build"
src=$build/$(basename "$KERNEL_SRC_TARBALL" .tar.xz)
out=$build/out
[ -f "$src/Makefile" ] || die "unexpected tarball layout: no $src/Makefile"

for p in "${patches[@]}"; do
	echo "build.sh: applying ${p#"$KERNEL_DIR"/patches/}"
	if ! patch -d "$src" -p1 --batch --forward --fuzz=0 --no-backup-if-mismatch \
		<"$p" >>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		die "${p#"$KERNEL_DIR"/patches/} does not apply to $KERNEL_SRC_PKG $version and the layers below it"
	fi
done

# --- 4. configuration -------------------------------------------------------
kmake() {
	nice -n 10 make -C "$src" O="$out" ARCH=x86_64 "$@"
}
echo "build.sh: tinyconfig +$(printf ' %s' "${fragments[@]#"$KERNEL_DIR"/}")"
{
	kmake tinyconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${fragments[@]}"
	kmake olddefconfig
} >>"$log" 2>&1 || { tail -n 20 "$log" >&2; die "configuration failed (log: $log)"; }

# Kconfig silently drops options whose dependencies are not met: check that
# every line of the fragment made it.
dropped=()
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		grep -qxF -- "$line" "$out/.config" || dropped+=("$line")
		;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		grep -qE "^$opt=(y|m)$" "$out/.config" && dropped+=("$line")
		;;
	esac
done < <(cat "${fragments[@]}")
if [ ${#dropped[@]} -gt 0 ]; then
	printf '  %s\n' "${dropped[@]}" >&2
	die "these fragment options did not survive olddefconfig (unmet dependencies?)"
fi

# --- 5. build ---------------------------------------------------------------
echo "build.sh: make -j$jobs bzImage (about 5 minutes on 2 cores; log: $log)"
if ! kmake -j"$jobs" bzImage >>"$log" 2>&1; then
	grep -E 'error|Error' "$log" | tail -n 20 >&2 || true
	echo "--- last lines of $log:" >&2
	tail -n 15 "$log" >&2
	die "the kernel build failed"
fi

# The feature must be in the kernel's BTF: that is how the tests find it.
if command -v bpftool >/dev/null && [ ${#layers[@]} -gt 0 ]; then
	btf=$(bpftool btf dump file "$out/vmlinux" 2>/dev/null) ||
		die "cannot read the BTF of $out/vmlinux"
	if has_layer b; then
		for name in BPF_FUNC_redirect_xsk XDP_REDIRECT_XSK; do
			grep -q "'$name' val=" <<<"$btf" || die "$name is not in the kernel's BTF"
		done
	fi
	# the batched map path, which the driver detects by this function
	grep -q "FUNC 'xdp_do_redirect_xsk_batch'" <<<"$btf" ||
		die "xdp_do_redirect_xsk_batch is not in the kernel's BTF"
fi

# --- 5b. the series' BPF selftests, from the same tree -----------------------
# (layer a adds them; the unpatched baseline has none)
if [ ${#layers[@]} -gt 0 ]; then
	echo "build.sh: the series' BPF selftests (build-selftest.sh)"
	if ! "$KERNEL_DIR/build-selftest.sh" "$src" "$build/selftest" >>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		die "the BPF selftests of the series do not build (log: $log)"
	fi
fi

# --- 6. cache ---------------------------------------------------------------
tmp=$images/$key.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
cp "$out/arch/x86/boot/bzImage" "$tmp/bzImage"
[ ${#layers[@]} -eq 0 ] || cp "$build/selftest/test_progs" "$tmp/test_progs"
cp "$out/.config" "$tmp/config"
cp "$log" "$tmp/build.log"
{
	echo "source: $KERNEL_SRC_PKG $version"
	echo "layers: ${layers[*]:-none (unpatched)}"
	[ "$KERNEL_DEBUG" = 0 ] || echo "flavour: debug (config-debug.fragment)"
	echo "patches:"
	for p in "${patches[@]}"; do echo "  ${p#"$KERNEL_DIR"/patches/}"; done
	echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) in $(( $(date +%s) - started )) s with make -j$jobs"
	echo "compiler: $(gcc --version | head -n 1)"
} >"$tmp/info"
rm -rf "${images:?}/${key:?}"
mv "$tmp" "$images/$key"
if [ "$keep_tree" = 0 ]; then
	rm -rf "$build"
fi
rm -f "$log"

echo "build.sh: built in $(( $(date +%s) - started )) s"
echo "kernel image ($KERNEL_SRC_PKG $version, $what, key $key):"
echo "$image"
