#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build slabx.ko and the test modules for a flavour's kernel, out of the
# source tree (build/mod-FLAVOUR/), so flavours do not clobber each other.
# Usage: [KDIR=dir] scripts/build-module.sh FLAVOUR [make args...]
#   -> prints the directory holding the .ko files.
set -euo pipefail
. "$(dirname "$0")/common.sh"

flavour=${1:?usage: build-module.sh FLAVOUR [make args]}
shift
kdir=${KDIR:-$("$SLABX_TOP/scripts/kernel.sh" "$flavour")}
arch=$(flavour_arch "$flavour")
[ -f "$kdir/Module.symvers" ] || [ -d "$kdir/include/config" ] ||
	{ echo "build-module: $kdir is not a kernel build directory" >&2; exit 1; }

mod=$SLABX_OUT/mod-$flavour
mkdir -p "$mod/tests"
cd "$SLABX_TOP"
# Copy only what changed, so Kbuild rebuilds only what it must.
for f in Kbuild ./*.c ./*.h tests/Kbuild tests/*.c tests/*.h; do
	cmp -s "$f" "$mod/$f" || cp "$f" "$mod/$f"
done
make -s -C "$kdir" ARCH="$arch" M="$mod" -j"$(nproc)" "$@" modules >&2
echo "$mod"
