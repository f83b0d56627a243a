#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build slabx.ko and the test modules out of the source tree, into a
# directory of their own per target kernel, so builds do not clobber each
# other: build/mod-FLAVOUR/ for a test kernel flavour, build/mod-RELEASE/
# for any other kernel build tree (KDIR, e.g. a linux-headers-* package).
# Usage: scripts/build-module.sh FLAVOUR [make args...]
#        KDIR=dir scripts/build-module.sh [FLAVOUR] [make args...]
#   -> prints the directory holding the .ko files.
set -euo pipefail
. "$(dirname "$0")/common.sh"

# A first argument that is not a make variable (VAR=value) is a flavour.
flavour=
case ${1:-} in
"" | *=*) ;;
*) flavour=$1; shift ;;
esac
[ -n "$flavour" ] || [ -n "${KDIR:-}" ] ||
	{ echo "usage: [KDIR=dir] build-module.sh FLAVOUR [make args]" >&2; exit 1; }
kdir=${KDIR:-$("$SLABX_TOP/scripts/kernel.sh" "$flavour")}
if [ ! -e "$kdir" ] && [ "$kdir" = "/lib/modules/$(uname -r)/build" ]; then
	echo "build-module: no build tree for the running kernel $(uname -r) at $kdir:" \
		"install its headers (Debian: apt-get install linux-headers-$(uname -r))," \
		"or name another kernel's with KDIR=" >&2
	exit 1
fi
[ -f "$kdir/Module.symvers" ] || [ -d "$kdir/include/config" ] ||
	{ echo "build-module: $kdir is not a kernel build directory" >&2; exit 1; }
if [ -n "$flavour" ]; then
	name=$flavour
	set -- ARCH="$(flavour_arch "$flavour")" "$@"
else
	# The release as uname -r says it (Debian's headers have the
	# upstream version in include/config/kernel.release).
	name=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' \
		"$kdir/include/generated/utsrelease.h" 2>/dev/null)
	[ -n "$name" ] ||
		{ echo "build-module: $kdir has no kernel release" >&2; exit 1; }
	! grep -qs '^CONFIG_UML=y' "$kdir/.config" || set -- ARCH=um "$@"
fi
# The tests built from the kernel's own source (tests/Kbuild) find it here
# when the build tree has none (a headers package).
ksrc=$(kernel_src_of "$kdir")
[ -z "$ksrc" ] || set -- SLABX_KERNEL_SRC="$ksrc" "$@"

mod=$SLABX_OUT/mod-$name
mkdir -p "$mod/tests"
cd "$SLABX_TOP"
# Copy only what changed, so Kbuild rebuilds only what it must.
for f in Kbuild ./*.c ./*.h tests/Kbuild tests/*.c tests/*.h tests/*.sed; do
	cmp -s "$f" "$mod/$f" || cp "$f" "$mod/$f"
done
make -s -C "$kdir" M="$mod" -j"$(nproc)" "$@" modules >&2
echo "$mod"
