#!/usr/bin/env bash
# A Debian 13 (trixie) or Debian testing (forky) root as its users have it,
# made on this Debian 12 machine: debootstrap --variant=minbase from the
# Debian mirror apt already uses here (apt-get indextargets; the system's
# sources are not touched), then that suite's packages the project needs
# (scripts/setup.sh --packages: its DPDK, libxdp, libbpf, Open vSwitch, the
# build and test tools) and any set named with --with. Then, optionally, a
# command run inside it.
#
# Usage: scripts/root.sh <suite> [--with SET]... [--bind DIR]... [--refresh]
#                        [-- COMMAND [ARG]...]
#   suite       trixie (also: 13, stable) or forky (also: testing)
#   --with SET  more packages; SET is one of:
#                 qemu   Debian's qemu-system-x86 (Debian 13: qemu 10, whose
#                        emulated igb NIC the VM of issue 47 needs)
#   --bind DIR  also bind this machine's DIR, read-only, at its own path
#               (scripts/test.sh: the DPDK lines it built, whose plugins
#               find their libraries there by their rpath)
#   --refresh   look up the suite's package versions again even when a root
#               was made within the last AFXDP_ROOT_FRESH seconds
#   COMMAND     run inside the root as root (chroot), in the caller's
#               directory when the root has it (the checkout does), else /;
#               exit: the command's. Without one, the root's path is printed
#               on the last line.
#
# The root is cached under AFXDP_CACHE/roots, keyed by the suite, the package
# list and the version of every package apt would install for it (a private
# apt configuration resolves them against the suite's index; only when that
# index changed: a cached root costs the index's update, 2-4 s): a root of
# the same key is used as it is; a new key makes a new root (debootstrap and
# apt: 6-11 minutes on a busy machine of this kind) and, once it is
# complete, removes the suite's older roots that nobody has entered. Without
# network, the newest root of the suite and set is used, and that is said.
#
# Entering it: the command runs in a mount namespace of its own (unshare),
# so every mount made for it (and by it) goes when its last process ends,
# whatever ends it (a failure, Ctrl-C, SIGKILL): nothing is left mounted on
# this machine. Inside: a fresh /proc, this machine's /sys (a bpffs of its own
# at /sys/fs/bpf, as systemd mounts one on Debian 13) and /dev (with
# /dev/pts, /dev/shm and /dev/hugepages where mounted here), tmpfs on /run
# (so /run/netns, /run/af-xdp-direct and /run/openvswitch start empty and
# vanish) and /tmp, the checkout at its own path (read-write: builds go
# there), its git directory where it is outside the checkout (read-only), and
# ../shared beside it (read-only). The network namespace is this machine's:
# the tests' namespaces and veth pairs are made by the kernel under test.
# Passed in from the environment: AFXDP_*, BUILD_DIR, DEBFULLNAME, DEBEMAIL,
# TERM; nothing else (PATH, HOME and LANG are the root's own).
#
# Environment:
#   AFXDP_CACHE       default /var/cache/af-xdp-direct
#   AFXDP_ROOT_FRESH  seconds a root's package versions are trusted without
#                     asking the mirror again (default 0: every run asks;
#                     about 2 s)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${AFXDP_CACHE:-/var/cache/af-xdp-direct}
roots=$cache/roots
fresh=${AFXDP_ROOT_FRESH:-0}

log() { printf '[root] %s\n' "$*" >&2; }
die() { printf '[root] error: %s\n' "$1" >&2; exit "${2:-1}"; }

# Bump when what is made from the same packages changes (the steps below).
RECIPE=1
# Packages besides scripts/setup.sh's: what a minbase root lacks that the
# scripts use on a full system (deb.sh's git, the release tarballs' xz).
ROOT_PACKAGES=(git xz-utils ca-certificates kmod)
declare -A WITH=(
	[qemu]="qemu-system-x86 qemu-utils"
)

suite= with=() binds=() refresh=0 cmd=()
while [ $# -gt 0 ]; do
	case "$1" in
	--with)
		[ -n "${WITH[${2:-}]:-}" ] || die "--with ${2:-}: one of ${!WITH[*]}"
		with+=("$2"); shift 2 ;;
	--bind)
		[ -d "${2:-}" ] || die "--bind ${2:-}: not a directory"
		binds+=("$(cd "$2" && pwd -P)"); shift 2 ;;
	--refresh) refresh=1; shift ;;
	--) shift; cmd=("$@"); break ;;
	-*) die "unknown option '$1' (see the head of $0)" ;;
	*)
		[ -z "$suite" ] || die "one suite, not '$suite' and '$1'"
		suite=$1; shift ;;
	esac
done
case "$suite" in
trixie | 13 | stable) suite=trixie ;;
forky | testing) suite=forky ;;
"") die "usage: $0 <trixie|forky> [--with SET]... [-- COMMAND...]" ;;
*) die "suite '$suite': trixie (Debian 13) or forky (Debian testing)" ;;
esac
[ "$(id -u)" -eq 0 ] || die "run as root: debootstrap, chroot and mounts"
mapfile -t with < <(printf '%s\n' "${with[@]}" | sort -u | sed '/^$/d')
set_name=$suite${with[*]:+-$(IFS=-; echo "${with[*]}")}

packages=()
mapfile -t packages < <("$top/scripts/setup.sh" --packages)
packages+=("${ROOT_PACKAGES[@]}")
for w in "${with[@]}"; do
	read -ra extra <<<"${WITH[$w]}"
	packages+=("${extra[@]}")
done
mapfile -t packages < <(printf '%s\n' "${packages[@]}" | sort -u)

for tool in debootstrap unshare chroot flock; do
	command -v "$tool" >/dev/null || {
		log "installing debootstrap (Debian 12's) on this machine"
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends debootstrap >/dev/null
		break
	}
done

# --- the suite's archives, on this machine's mirror -----------------------------
# "URI suite" of the Debian archives apt installs from here.
archives=$(apt-get indextargets --format '$(TARGET_OF) $(ORIGIN) $(REPO_URI) $(RELEASE)' 2>/dev/null |
	awk '$1 == "deb" && ($2 == "Debian" || $2 == "Debian-Security") { print $3, $4 }' | sort -u)
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
main_uri=$(awk -v s="$codename" '$2 == s { print $1; exit }' <<<"$archives")
security_uri=$(awk -v s="$codename-security" '$2 == s { print $1; exit }' <<<"$archives")
[ -n "$main_uri" ] || die "apt lists no Debian archive for $codename here (apt-get indextargets): no mirror to make a $suite root from"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
sources() {
	echo "deb [signed-by=$keyring] $main_uri $suite main"
	[ "$suite" = forky ] || echo "deb [signed-by=$keyring] $main_uri $suite-updates main"
	[ -z "$security_uri" ] || echo "deb [signed-by=$keyring] $security_uri $suite-security main"
}

# --- the key: the suite, the packages, the versions apt would install ------------
mkdir -p "$roots"
apt_dir=$roots/apt-$suite
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=-"
	-o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
	-o "Dir::State::status=$apt_dir/status" -o "APT::Sandbox::User=root")

# The newest complete root of this suite and set, or nothing.
newest_root() {
	ls -t "$roots"/"$set_name"-*.complete 2>/dev/null | grep -E "/$set_name-[0-9a-f]{12}\.complete$" |
		head -n1 | sed 's/\.complete$//' || true
}

# The key of the root to use, from the suite's index as the mirror serves it
# now. apt's resolver (up to 20 s on a busy machine) runs only when the index
# (its Release files) or the package list changed since the last lookup;
# otherwise that lookup's key is used.
root_key() {
	local index versions key
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
	: >"$apt_dir/status"
	sources >"$apt_dir/sources.list"
	apt-get "${apt_opts[@]}" update -qq >"$apt_dir/update.log" 2>&1 || return 1
	grep -q '^[EW]: ' "$apt_dir/update.log" && return 1
	index=$({ printf '%s\n' "recipe $RECIPE" "main $main_uri" "security $security_uri" \
		"${packages[@]}"; cat "$apt_dir"/lists/*Release; } | sha256sum | cut -c1-16)
	if [ "$(cut -d' ' -f1 "$apt_dir/key-$set_name" 2>/dev/null)" = "$index" ]; then
		cut -d' ' -f2 "$apt_dir/key-$set_name"
		return 0
	fi
	# every package and version an empty system would get: the closure
	versions=$(apt-get "${apt_opts[@]}" -s install --no-install-recommends "${packages[@]}" 2>&1 |
		awk '/^Inst / { v = $3; sub(/^\(/, "", v); print $2, v }' | sort)
	[ -n "$versions" ] || return 1
	key=$(printf '%s\n' "recipe $RECIPE" "suite $suite" "main $main_uri" \
		"security $security_uri" "${packages[@]}" "--" "$versions" | sha256sum | cut -c1-12)
	echo "$index $key" >"$apt_dir/key-$set_name"
	echo "$key"
}

# One lookup or making at a time per suite (its sets share the apt index).
exec 9>"$roots/$suite.lock"
flock 9
root=
recent=$(newest_root)
if [ "$refresh" = 0 ] && [ -n "$recent" ] && [ "$fresh" -gt 0 ] &&
	[ $(($(date +%s) - $(stat -c %Y "$recent.complete"))) -lt "$fresh" ]; then
	root=$recent
	log "$set_name: $(basename "$root"), made less than $fresh s ago (AFXDP_ROOT_FRESH)"
elif key=$(root_key) && [ -n "$key" ]; then
	root=$roots/$set_name-$key
else
	[ -n "$recent" ] || {
		sed 's/^/[root]   /' "$apt_dir/update.log" >&2 2>/dev/null || true
		die "cannot read $suite's package index from $main_uri, and no $set_name root is cached" 3
	}
	root=$recent
	log "cannot read $suite's package index (see $apt_dir/update.log): using the cached $(basename "$root")"
fi

# --- making it ----------------------------------------------------------------------
# The mounts a command inside needs, in the current (private) mount namespace.
# $1: the root. Run by the unshare'd shell below, never in this machine's.
mount_script='
set -eu
r=$1 top=$2
shift 2
# the root a mount point of its own: `ip netns exec` makes / a slave mount
mount --bind "$r" "$r"
mount -t proc proc "$r/proc"
mount --rbind /sys "$r/sys"
mount -t bpf bpf "$r/sys/fs/bpf"
mount --rbind /dev "$r/dev"
mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs "$r/run"
mkdir -p "$r/run/lock"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$r/tmp"
if [ -n "$top" ]; then
	mkdir -p "$r$top"
	mount --bind "$top" "$r$top"
fi
while [ "$1" != -- ]; do
	mkdir -p "$r$1"
	mount --bind "$1" "$r$1"
	mount -o remount,bind,ro "$r$1"
	shift
done
shift
# The root made the namespace root (pivot_root, the old one detached), not
# the process root only (chroot): a path read back from /proc (the link of a
# descriptor) by a process in a mount namespace made from this one (ip netns
# exec) is then the path in the root, not on this machine.
cd "$r"
pivot_root . .
umount -l .
exec chroot . "$@"
'

# What is passed into the root from the environment.
root_env() {
	printf '%s\n' PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 "TERM=${TERM:-dumb}"
	env | grep -E '^(AFXDP_[A-Z0-9_]*|BUILD_DIR|DEBFULLNAME|DEBEMAIL|MESON_TESTTHREADS)=' || true
}

# The directories bound read-only besides the checkout: ../shared beside it,
# the DPDK tarballs' directory (AFXDP_DPDK_TARBALLS), the checkout's git
# directory where it is elsewhere (a git worktree's), those of --bind. Each
# once, none inside the checkout or another.
read_only_dirs() {
	local d common
	{
		[ ! -d "$top/../shared" ] || (cd "$top/../shared" && pwd -P)
		[ -z "${AFXDP_DPDK_TARBALLS:-}" ] || [ ! -d "$AFXDP_DPDK_TARBALLS" ] ||
			(cd "$AFXDP_DPDK_TARBALLS" && pwd -P)
		if common=$(git -C "$top" rev-parse --path-format=absolute --git-common-dir 2>/dev/null); then
			(cd "$common" && pwd -P)
		fi
		[ ${#binds[@]} -eq 0 ] || printf '%s\n' "${binds[@]}"
	} | sort -u | while read -r d; do
		case "$d/" in "$top"/*) continue ;; esac
		echo "$d"
	done | awk '{ for (i = 1; i <= n; i++) if (index($0 "/", kept[i] "/") == 1) next; kept[++n] = $0; print }'
}

# Run "$@" inside root $1 (mounted as above; with the checkout when $2 is 1).
in_root() {
	local r=$1 with_tree=$2 tree=
	shift 2
	local -a envs ro=()
	mapfile -t envs < <(root_env)
	if [ "$with_tree" = 1 ]; then
		tree=$top
		mapfile -t ro < <(read_only_dirs)
	fi
	unshare --mount --propagation private --fork --kill-child -- \
		sh -c "$mount_script" root "$r" "$tree" "${ro[@]}" -- /usr/bin/env -i "${envs[@]}" "$@"
}

make_root() {
	local r=$1 t0 t1 t2
	log "making $(basename "$r"): debootstrap $suite from $main_uri, then ${#packages[@]} packages (a few minutes; log $r.log)"
	rm -rf "$r" "$r.complete" "$r.log"
	mkdir -p "$r"
	t0=$(date +%s)
	local script=/usr/share/debootstrap/scripts/$suite
	[ -e "$script" ] || script=/usr/share/debootstrap/scripts/sid
	if ! nice -n 10 debootstrap --variant=minbase --keyring="$keyring" "$suite" "$r" \
		"$main_uri" "$script" >>"$r.log" 2>&1; then
		tail -n 20 "$r.log" >&2
		die "debootstrap $suite failed (log: $r.log)"
	fi
	t1=$(date +%s)
	sources >"$r/etc/apt/sources.list"
	# How apt reaches the mirror here (its proxy; whether it takes a Release
	# file past its Valid-Until, as a mirror serving a snapshot needs): the
	# same in the root.
	apt-config dump | grep -iE '^Acquire::(Check-Valid-Until|Check-Date|(https?|ftp)::Proxy) ' \
		>"$r/etc/apt/apt.conf.d/50af-xdp-direct-root" || true
	cp /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null || true
	# No service starts in a root: their packages are installed, their
	# daemons run by the tests themselves.
	printf '#!/bin/sh\nexit 101\n' >"$r/usr/sbin/policy-rc.d"
	chmod 755 "$r/usr/sbin/policy-rc.d"
	if ! in_root "$r" 0 sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive nice -n 10 \
		apt-get install -y -q --no-install-recommends "$@" && apt-get clean' \
		install "${packages[@]}" >>"$r.log" 2>&1; then
		tail -n 20 "$r.log" >&2
		die "installing $suite's packages in the root failed (log: $r.log)"
	fi
	t2=$(date +%s)
	in_root "$r" 0 dpkg-query -W -f '${Package} ${Version}\n' >"$r.versions"
	echo "debootstrap $((t1 - t0)) s, packages $((t2 - t1)) s, $(du -sm "$r" | cut -f1) MB" >>"$r.log"
	touch "$r.complete"
	log "$(basename "$r") made: debootstrap $((t1 - t0)) s, packages $((t2 - t1)) s"
}

# Older roots of this suite and set nobody is in (each entry holds a shared
# lock on its root's lock file).
prune() {
	local old
	for old in "$roots"/"$set_name"-*.complete; do
		old=${old%.complete}
		[ "$old" != "$1" ] || continue
		[[ "$(basename "$old")" =~ ^$set_name-[0-9a-f]{12}$ ]] || continue	# another set's
		(
			flock -n 8 || { log "$(basename "$old") is in use: kept"; exit 0; }
			rm -rf "$old" "$old.complete" "$old.log" "$old.versions"
			log "removed the older $(basename "$old")"
		) 8>"$old.lock"
		rm -f "$old.lock" 2>/dev/null || true
	done
}

if [ ! -f "$root.complete" ]; then
	make_root "$root"
	prune "$root"
else
	log "$set_name: $(basename "$root") (cached): $(awk '$1 == "libdpdk-dev" || $1 == "libxdp-dev" || $1 == "libbpf-dev" || $1 == "openvswitch-switch-dpdk" { printf "%s %s  ", $1, $2 }' "$root.versions")"
fi
flock -u 9
exec 9>&-

if [ ${#cmd[@]} -eq 0 ]; then
	echo "$root"
	exit 0
fi
# Held while inside, so that prune() leaves this root alone.
exec 8>"$root.lock"
flock -s 8
dir=/
case "$PWD/" in "$top"/*) dir=$PWD ;; esac
in_root "$root" 1 sh -c 'cd "$1" && shift && exec "$@"' enter "$dir" "${cmd[@]}"
