#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build slabx for a kernel and install it as an out-of-tree module:
# /lib/modules/RELEASE/updates/slabx.ko (the test and benchmark modules
# below it, in updates/tests/), then depmod, so that `modprobe slabx` works.
# Usage: [KDIR=dir] [INSTALL_MOD_PATH=root] scripts/install-module.sh
#   KDIR: the kernel build tree (default: the running kernel's,
#   /lib/modules/$(uname -r)/build); INSTALL_MOD_PATH: install under this
#   root instead of / (packaging, tests).
set -euo pipefail
. "$(dirname "$0")/common.sh"

KDIR=${KDIR:-/lib/modules/$(uname -r)/build}
mod=$(KDIR=$KDIR "$SLABX_TOP/scripts/build-module.sh")
release=$(basename "$mod")
release=${release#mod-}
root=${INSTALL_MOD_PATH:-}
args=(INSTALL_MOD_DIR=updates ${root:+INSTALL_MOD_PATH="$root"})
# A distribution's headers ask for signed modules but lack the key (it
# stays with the distribution): install unsigned, as DKMS does without one.
[ -f "$KDIR/certs/signing_key.pem" ] || args+=(CONFIG_MODULE_SIG_ALL=)
make -s -C "$KDIR" M="$mod" "${args[@]}" modules_install >&2
depmod ${root:+-b "$root"} -a "$release"
echo "install: slabx installed in ${root}/lib/modules/$release/updates" >&2
