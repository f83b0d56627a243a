#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages slabx needs to build and test, if missing.
set -euo pipefail

pkgs=(linux-source-6.12 linux-source-6.1 qemu-system-x86 busybox-static
      sparse flex bison libelf-dev libssl-dev bc cpio xz-utils kmod python3
      gcc make perl shellcheck dkms gnuplot-nox util-linux)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
