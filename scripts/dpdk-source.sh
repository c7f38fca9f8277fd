#!/usr/bin/env bash
# A DPDK source tree from Debian's source package, fetched once: prints its
# path (AFXDP_CACHE/dpdk-<Debian version>/tree).
#
# Usage: scripts/dpdk-source.sh                    (as root)
#   The source of the installed DPDK: scripts/setup.sh takes the driver-SDK
#   headers from it (Debian's libdpdk-dev lacks them) and scripts/dpdk-l2fwd.sh
#   builds DPDK's own examples/l2fwd from it. Where apt has no source index,
#   it adds deb-src entries for the Debian archives the system already
#   installs from (taken from apt's own configuration: a local mirror works).
#   Where the mirror does not serve that source (Debian 13's and testing's
#   DPDK here, scripts/root.sh), a release tarball of the same LTS line
#   instead (scripts/dpdk-tarball.sh: AFXDP_DPDK_TARBALLS or ../shared/dpdk),
#   said on stderr: the build then checks that its driver-SDK headers agree
#   with the installed DPDK (buildtools/dpdk-sdk/same_line.py), or refuses it.
# Usage: scripts/dpdk-source.sh <Debian version> <suite>
#   That version from that suite's sources (e.g. 24.11.8-0+deb13u1 trixie),
#   for scripts/dpdk-build.sh, through an apt configuration of its own under
#   AFXDP_CACHE/apt-dpdk (the system's sources are not touched), from the
#   same archive as the installed release (/etc/os-release). When it
#   cannot be fetched, exit 3 with why: the suite now carries another version
#   (named, to pin instead), or its mirror does not serve the files.
# Environment:
#   AFXDP_CACHE   where downloaded sources are kept (default /var/cache/af-xdp-direct)
set -euo pipefail

cache=${AFXDP_CACHE:-/var/cache/af-xdp-direct}

log() { printf '[dpdk-source] %s\n' "$*" >&2; }
die() { printf '[dpdk-source] error: %s\n' "$1" >&2; exit "${2:-1}"; }

# The Debian archives this system installs from, as apt sees them: "URI
# suite component" per line, from the system's own configuration (a machine
# behind a local mirror uses that mirror). Security and updates suites too.
system_debian_archives() {
	apt-get indextargets --format '$(TARGET_OF) $(ORIGIN) $(REPO_URI) $(RELEASE) $(COMPONENT)' 2>/dev/null |
		awk '$1 == "deb" && $2 == "Debian" { print $3, $4, $5 }' | sort -u
}

# The installed release's codename (bookworm on Debian 12).
os_codename() {
	(. /etc/os-release && echo "${VERSION_CODENAME:-}")
}

# deb-src entries for the archives the system installs from, in the system's
# apt configuration (apt-get source of the installed DPDK needs them).
add_system_sources() {
	local srclist=/etc/apt/sources.list.d/af-xdp-direct-deb-src.list archives
	apt-get indextargets --format '$(CREATED_BY)' 2>/dev/null | grep -q Sources && return 0
	archives=$(system_debian_archives)
	[ -n "$archives" ] || die "apt lists no Debian archive to take a deb-src entry from (apt-get indextargets; run apt-get update?)"
	{
		echo "# added by af-xdp-direct scripts/dpdk-source.sh: source of the installed DPDK"
		echo "$archives" | while read -r uri suite component; do
			echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $suite $component"
		done
	} >"$srclist"
	apt-get update -qq
}

# The archive of the installed release's main suite: where another suite's
# sources are looked for too (the same mirror).
main_archive_uri() {
	local codename
	codename=$(os_codename)
	system_debian_archives | awk -v s="$codename" '$2 == s { print $1; exit }'
}

# Another suite's sources, in an apt configuration of our own.
apt_dir=$cache/apt-dpdk
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::State::Lists=$apt_dir/lists" -o "APT::Sandbox::User=root")

add_suite_sources() {
	local uri
	uri=$(main_archive_uri)
	[ -n "$uri" ] || die "apt lists no Debian archive for $(os_codename) to look for $1's sources in" 3
	mkdir -p "$apt_dir/lists/partial"
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $1 main" \
		>"$apt_dir/sources.list"
	apt-get "${apt_opts[@]}" update -qq >/dev/null 2>&1 ||
		log "apt-get update of $1's sources failed; using its index already cached, if any"
}

# The version of dpdk that suite's Sources index lists, or nothing.
listed_version() {
	local idx
	for idx in "$apt_dir"/lists/*_dists_"$1"_main_source_Sources*; do
		[ -f "$idx" ] || continue
		# apt's own reader: the index is compressed as apt chose (lz4 here).
		/usr/lib/apt/apt-helper cat-file "$idx" | awk '/^Package: dpdk$/ { p = 1 } p && /^Version:/ && !done { print $2; done = 1 }'
	done
}

# Why dpdk=$1 of suite $2 could not be fetched (apt's log in $3); exits 3.
not_fetched() {
	local listed
	listed=$(listed_version "$2")
	grep -E '^(E|W):' "$3" | sed 's/^/[dpdk-source]   /' >&2 || true
	if [ -z "$listed" ]; then
		die "cannot read Debian's $2 source index: dpdk $1 cannot be fetched (no network to the Debian mirror?)" 3
	elif [ "$listed" != "$1" ]; then
		die "Debian's $2 now carries dpdk $listed, not the pinned $1: pin $listed instead" 3
	fi
	die "Debian's $2 lists dpdk $1 but its mirror does not serve the files (see above)" 3
}

if [ $# -eq 0 ]; then
	pkgver=$(dpkg-query -W -f='${Version}' libdpdk-dev 2>/dev/null) ||
		die "libdpdk-dev is not installed (scripts/setup.sh installs it)"
	suite=
elif [ $# -eq 2 ]; then
	pkgver=$1 suite=$2
else
	die "usage: $0 [<Debian version> <suite>]"
fi
srcdir="$cache/dpdk-$pkgver"
if [ ! -f "$srcdir/.complete" ]; then
	[ "$(id -u)" -eq 0 ] || die "run as root: the source of dpdk=$pkgver must be fetched into $srcdir"
	log "fetching Debian source of dpdk=$pkgver${suite:+ ($suite)} into $srcdir"
	rm -rf "$srcdir" && mkdir -p "$srcdir"
	if [ -z "$suite" ]; then
		add_system_sources
		if [ -f "$srcdir.unserved" ] ||
			! (cd "$srcdir" && apt-get source -qq "dpdk=$pkgver") >"$srcdir.log" 2>&1; then
			# once not served, not asked again (a marker beside the cache)
			[ -f "$srcdir.unserved" ] || { grep -E '^E:' "$srcdir.log" |
				sed 's/^/[dpdk-source]   /' >&2 || true; date -R >"$srcdir.unserved"; }
			rm -rf "$srcdir" "$srcdir.log"
			line=$(echo "$pkgver" | cut -d. -f1-2)
			log "the mirror does not serve Debian's source of dpdk $pkgver ($srcdir.unserved): a release of the same line, $line, instead"
			tree=$("$(dirname "$0")/dpdk-tarball.sh" "$line") ||
				die "no source of dpdk $pkgver: not served, and no release tarball of DPDK $line (AFXDP_DPDK_TARBALLS)" 3
			# not cached here: the tarball's tree is (AFXDP_CACHE/dpdk-src)
			echo "$tree"
			exit 0
		fi
		rm -f "$srcdir.log"
	else
		add_suite_sources "$suite"
		if ! (cd "$srcdir" && apt-get "${apt_opts[@]}" source -qq "dpdk=$pkgver") \
			>"$srcdir.log" 2>&1; then
			rm -rf "$srcdir"
			not_fetched "$pkgver" "$suite" "$srcdir.log"
		fi
		rm -f "$srcdir.log"
	fi
	tree=$(find "$srcdir" -mindepth 1 -maxdepth 1 -type d -name 'dpdk*' | head -n1)
	[ -n "$tree" ] || die "apt-get source dpdk=$pkgver produced no tree in $srcdir"
	ln -sfn "$(basename "$tree")" "$srcdir/tree"
	touch "$srcdir/.complete"
fi
echo "$srcdir/tree"
