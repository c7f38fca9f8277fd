#!/usr/bin/env bash
# Run a DPDK secondary process (dpdk-dumpcap, dpdk-pdump, dpdk-proc-info, ...)
# against a running primary whose ports are af_xdp_direct's.
#
# Usage: scripts/afxdp-secondary.sh <tool> [tool arguments...]
#   e.g. scripts/afxdp-secondary.sh dpdk-dumpcap --file-prefix=fc1 -i net_af_xdp0 -c 20 -w x.pcapng
#
# Two things must match the primary, and the tools alone get neither right:
# - the driver: a secondary probes the primary's ports with the driver of the
#   same name it has, DPDK's stock net_af_xdp unless it loads our plugin, and
#   dpdk-dumpcap has no -d. The stock driver cannot drive our ports: it asks
#   the primary for afxdp_mp_send_fds, which we refuse, and fails its probe.
# - the mempool drivers' numbering: a mempool records its driver as an index
#   in a table each process fills as it loads the drivers, and pdump's capture
#   pool, created by the secondary, is used by the primary. Debian's
#   dpdk-testpmd links some mempool drivers directly, the tools load them all
#   from the plugin directory: the numbers differ and the primary cannot
#   allocate from the capture pool (nothing is captured). Loading first what
#   the primary's executable links makes the tables equal.
# So the tool runs with LD_PRELOAD of the plugin the primary has mapped and of
# the bus, net and mempool drivers its executable links, in its link order.
# With our Debian package installed (scripts/deb.sh) every DPDK process loads
# our driver from DPDK's plugin directory: then only the mempool drivers are
# preloaded. Without the package, this script is how DPDK's tools reach our
# ports.
#
# The primary is found by its EAL file prefix (--file-prefix among the tool's
# arguments, default "rte"): the process holding its runtime config open.
# Environment: AFXDP_PLUGIN  the plugin to load (default: the one the primary
# has mapped).
set -euo pipefail

me=afxdp-secondary
die() { printf '%s: %s\n' "$me" "$*" >&2; exit 1; }

[ $# -ge 1 ] || die "usage: $0 <dpdk tool> [its arguments]"
tool=$(command -v "$1") || die "no such program: $1"
shift

prefix=rte
prev=""
for a in "$@"; do
	case "$a" in
	--file-prefix=*) prefix=${a#--file-prefix=} ;;
	esac
	if [ "$prev" = "--file-prefix" ]; then
		prefix=$a
	fi
	prev=$a
done

# EAL's runtime directory (eal_get_runtime_dir): /var/run for root.
if [ "$(id -u)" -eq 0 ]; then
	rundir=/var/run/dpdk/$prefix
else
	rundir=${XDG_RUNTIME_DIR:-/tmp}/dpdk/$prefix
fi
config=$rundir/config
[ -e "$config" ] || die "no DPDK primary with file prefix '$prefix' ($config does not exist): start the primary first, or give the tool its --file-prefix"

# The primary keeps its config open (it holds a lock on it); secondaries
# close theirs once attached.
config=$(realpath "$config")
holder=$(find /proc/[0-9]*/fd -maxdepth 1 -lname "$config" 2>/dev/null | grep -v "^/proc/$$/" | head -n1 || true)
primary=${holder#/proc/}
primary=${primary%%/*}
[ -n "$primary" ] || die "no running process holds $config: the primary with file prefix '$prefix' is gone"
exe=$(readlink "/proc/$primary/exe") || die "cannot read the executable of pid $primary"

plugin=${AFXDP_PLUGIN:-$(grep -o '/[^ ]*librte_net_af_xdp_direct\.so[.0-9]*' "/proc/$primary/maps" | head -n1 || true)}
if [ -z "$plugin" ]; then
	# Installed from our Debian package (scripts/deb.sh), the plugin has the
	# stock driver's file name in DPDK's plugin directory, which the tool
	# loads too: only the mempool drivers need preloading.
	installed=$(grep -o '/[^ ]*/pmds-[^/ ]*/librte_net_af_xdp\.so[.0-9]*' "/proc/$primary/maps" | head -n1 || true)
	[ -n "$installed" ] && readelf -d "$installed" 2>/dev/null | grep -q 'SONAME.*librte_net_af_xdp_direct' ||
		die "the primary (pid $primary, $exe) has not loaded af_xdp_direct's plugin: its ports are not ours, run $(basename "$tool") directly"
fi
[ -z "$plugin" ] || [ -f "$plugin" ] || die "plugin $plugin (mapped by pid $primary) is no longer there: set AFXDP_PLUGIN"

linked=$(ldd "$exe" | awk '$2 == "=>" && $3 ~ /librte_mempool_/ { print $3 }' | tr '\n' ' ')
preload="$plugin${linked:+ $linked}"
preload=${preload# }
printf '%s: primary pid %s (%s); LD_PRELOAD=%s\n' "$me" "$primary" "$exe" "${preload% }" >&2
LD_PRELOAD="${preload% }${LD_PRELOAD:+ $LD_PRELOAD}" exec "$tool" "$@"
