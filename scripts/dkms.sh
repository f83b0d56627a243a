#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Hand slabx to DKMS, which then rebuilds it for every kernel installed.
# Usage: scripts/dkms.sh install [RELEASE...]   sources into
#          /usr/src/slabx-VERSION, then dkms add, build and install for
#          each RELEASE (default: the running kernel)
#        scripts/dkms.sh build RELEASE...        the same without install
#        scripts/dkms.sh remove                  every release, and the sources
set -euo pipefail
. "$(dirname "$0")/common.sh"

action=${1:?usage: dkms.sh install|build|remove [RELEASE...]}
shift
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$SLABX_TOP/dkms.conf")
src=/usr/src/slabx-$version
command -v dkms > /dev/null ||
	{ echo "dkms.sh: dkms is not installed (apt-get install dkms)" >&2; exit 1; }

# The sources DKMS builds from: what Kbuild needs, nothing of build/.
copy_sources()
{
	rm -rf "$src"
	mkdir -p "$src/tests"
	cd "$SLABX_TOP"
	cp dkms.conf Kbuild ./*.c ./*.h "$src/"
	cp tests/Kbuild tests/*.c tests/*.h tests/*.sed "$src/tests/"
}

# Whatever DKMS has of this version goes, even an entry whose sources
# were deleted: dkms needs them back to remove it.
remove_all()
{
	local st

	st=$(dkms status -m slabx -v "$version" 2>&1 || true)
	if [ -n "$st" ]; then
		[ -f "$src/dkms.conf" ] || copy_sources
		dkms remove -m slabx -v "$version" --all
	fi
	rm -rf "$src"
}

case "$action" in
install | build)
	[ $# -gt 0 ] || set -- "$(uname -r)"
	remove_all
	copy_sources
	dkms add -m slabx -v "$version"
	for release in "$@"; do
		dkms "$action" -m slabx -v "$version" -k "$release"
	done
	;;
remove)
	remove_all
	;;
*)
	echo "dkms.sh: unknown action $action" >&2
	exit 1
	;;
esac
