#!/usr/bin/env bash
# One-shot set-up of a fresh Debian 12 machine for building and testing the
# extended AF_XDP PMD: Debian packages, the driver-SDK headers of the installed
# DPDK (from Debian's source package, only when they are missing), and the build
# (with DPDK's own examples/l2fwd from that source, for the benchmark).
#
# Usage: scripts/setup.sh [--no-build | --packages]
#   --packages  print the Debian packages it installs, one a line, and exit
#               (scripts/root.sh installs the same in a Debian 13 or testing root)
# Environment:
#   AFXDP_CACHE   where downloaded sources are kept (default /var/cache/af-xdp-direct;
#                 scripts/dpdk-source.sh fetches them)
#   BUILD_DIR     meson build directory (default ./build)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$top/build}
do_build=1
[ "${1:-}" = "--no-build" ] && do_build=0

log() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }

packages=(
	# build
	gcc make meson ninja-build pkg-config python3-pyelftools clang llvm
	# DPDK (runtime, apps and headers), XDP libraries
	dpdk dpdk-dev libdpdk-dev libxdp-dev libbpf-dev bpftool
	# fetching the DPDK source package; building and checking our Debian
	# package (scripts/deb.sh)
	dpkg-dev debhelper lintian build-essential
	# tests: topology, traffic and measurement
	iproute2 ethtool iputils-ping netcat-openbsd valgrind procps coreutils
	python3
	# tests of real clients: reading dpdk-dumpcap's captures back; Open vSwitch
	tcpdump openvswitch-switch-dpdk
	# benchmark: its plot (bench/run.py draws none, and says so, without it);
	# the check of the documentation (tests/docs: docutils, and pygments for
	# its code blocks)
	python3-matplotlib python3-docutils python3-pygments
)

if [ "${1:-}" = "--packages" ]; then
	printf '%s\n' "${packages[@]}"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || die "run as root: packages are installed and the tests need CAP_NET_ADMIN/CAP_BPF"

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	log "installing: ${missing[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
	log "all packages present"
fi

# The driver-SDK headers (ethdev_driver.h, bus_vdev_driver.h, ...) are not in
# Debian's libdpdk-dev.  Fetch the exact source of the installed DPDK once.
# bpffs at /sys/fs/bpf, as systemd mounts it on every Debian system: libxdp
# pins its dispatcher there. A fresh machine of CI's kind comes without one.
# (Processes under `ip netns exec`, as the tests run them, see a /sys of
# their own without it all the same: tests/integration/test_bpffs.py.)
if ! grep -qs '^[^ ]* /sys/fs/bpf bpf ' /proc/mounts; then
	if mount -t bpf bpf /sys/fs/bpf 2>/dev/null; then
		log "bpffs was not mounted at /sys/fs/bpf: mounted it, as systemd would"
	else
		log "warning: no bpffs at /sys/fs/bpf, and it cannot be mounted here"
	fi
fi

dpdk_incdir=$(pkg-config --variable=includedir libdpdk)/dpdk
sdk_opt=""
if [ -f "$dpdk_incdir/ethdev_driver.h" ] && [ -f "$dpdk_incdir/bus_vdev_driver.h" ]; then
	log "installed DPDK has the driver-SDK headers; nothing to fetch"
else
	tree=$("$top/scripts/dpdk-source.sh")
	sdk_opt="-Ddpdk_sdk=$tree"
	log "driver-SDK headers from $tree"
fi

if [ $do_build -eq 1 ]; then
	if [ -d "$build_dir" ]; then
		meson configure "$build_dir" $sdk_opt >/dev/null
	else
		meson setup "$build_dir" "$top" $sdk_opt
	fi
	ninja -C "$build_dir"
	log "built: $(ls "$build_dir"/drivers/net/af_xdp/*.so 2>/dev/null | head -n1)"
	# DPDK's own examples/l2fwd, for the benchmark (cached; a second to build).
	log "DPDK's l2fwd: $(BUILD_DIR="$build_dir" "$top/scripts/dpdk-l2fwd.sh")"
fi
