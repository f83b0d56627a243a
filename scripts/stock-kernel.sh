#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch one of Debian's stock kernels, as users run them: the headers
# package installed (the build tree slabx compiles against), the image
# and a few of its modules only unpacked into the cache (the host's /boot
# and /lib/modules are left alone).
# Usage: scripts/stock-kernel.sh FLAVOUR
#   stock-6.12, stock-6.12-rt: Debian 12's 6.12 LTS kernels
#   stock-6.1, stock-6.1-rt:   Debian 12's default 6.1 LTS kernels
#   -> prints "KDIR IMAGE MODULES": the headers' build tree, the bzImage
#      and the directory of the kernel's own modules (kernel/ of
#      /lib/modules/RELEASE) with those the guests load.
set -euo pipefail
. "$(dirname "$0")/common.sh"

flavour=${1:?usage: stock-kernel.sh stock-6.12|stock-6.12-rt|stock-6.1|stock-6.1-rt}

# The metapackage that follows the newest kernel of the series.
case "$flavour" in
stock-6.12)    meta=linux-image-6.12-amd64 ;;
stock-6.12-rt) meta=linux-image-6.12-rt-amd64 ;;
stock-6.1)     meta=linux-image-amd64 ;;
stock-6.1-rt)  meta=linux-image-rt-amd64 ;;
*) echo "stock-kernel: unknown flavour $flavour" >&2; exit 1 ;;
esac

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

# The kernel release the metapackage points at, e.g. 6.12.118+deb12-amd64.
release=$(apt-cache depends "$meta" 2>/dev/null |
	sed -n 's/^ *Depends: linux-image-\([0-9].*\)$/\1/p' | head -1)
if [ -z "$release" ]; then
	$SUDO apt-get update -q >&2
	release=$(apt-cache depends "$meta" |
		sed -n 's/^ *Depends: linux-image-\([0-9].*\)$/\1/p' | head -1)
fi
[ -n "$release" ] || { echo "stock-kernel: no kernel behind $meta" >&2; exit 1; }

# The headers by their exact name: the metapackages would pull the image
# into /boot as well.
headers=linux-headers-$release
kdir=/usr/src/$headers
if [ ! -f "$kdir/Module.symvers" ]; then
	echo "stock-kernel: installing $headers" >&2
	$SUDO apt-get install -y -q --no-install-recommends "$headers" >&2
fi

dir=$SLABX_CACHE/stock-$release
image=$dir/boot/vmlinuz-$release
mods=$dir/lib/modules/$release/kernel
# With the image, the kernel's own modules the guests load: the loop
# device and the minix file system (tests/selftests/slabx_minix.sh).
if [ ! -f "$image" ] || [ ! -f "$dir/.slabx-modules" ]; then
	echo "stock-kernel: unpacking linux-image-$release into $dir" >&2
	mkdir -p "$dir"
	(cd "$dir" && rm -f ./*.deb && apt-get download -q "linux-image-$release" >&2)
	dpkg-deb --fsys-tarfile "$dir"/linux-image-*.deb |
		tar -x -C "$dir" --wildcards "./boot/vmlinuz-$release" \
			"./lib/modules/$release/kernel/drivers/block/loop.ko*" \
			"./lib/modules/$release/kernel/fs/minix/minix.ko*"
	rm -f "$dir"/*.deb
	touch "$dir/.slabx-modules"
fi
echo "$kdir $image $mods"
