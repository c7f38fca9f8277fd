#!/usr/bin/env bash
# Print a path from which EAL will load the plugin built in <build dir>.
# EAL refuses plugins under a world-writable directory (/tmp, ...); then the
# plugin is copied to a root-owned directory under /run and that path printed.
#
# Usage: scripts/plugin-path.sh [build dir]
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${1:-$top/build}
plugin=$(ls "$build_dir"/drivers/net/af_xdp/librte_net_af_xdp_direct.so.*.*.* 2>/dev/null | head -n1)
[ -n "$plugin" ] || { echo "plugin-path: no plugin built in $build_dir (run scripts/setup.sh)" >&2; exit 1; }
plugin=$(realpath "$plugin")

dir=$(dirname "$plugin")
while [ "$dir" != "/" ]; do
	if [ -n "$(find "$dir" -maxdepth 0 -perm -0002 2>/dev/null)" ]; then
		stage=/run/af-xdp-direct/plugins
		install -d -m 0755 /run/af-xdp-direct "$stage"
		install -m 0755 "$plugin" "$stage/"
		echo "plugin-path: $dir is world-writable, EAL would refuse it: using a copy in $stage" >&2
		echo "$stage/$(basename "$plugin")"
		exit 0
	fi
	dir=$(dirname "$dir")
done
echo "$plugin"
