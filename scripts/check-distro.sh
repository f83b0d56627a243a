#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# slabx in the kernels people run: Debian 12's stock 6.1 and 6.12 kernels,
# generic and PREEMPT_RT (scripts/stock-kernel.sh fetches them).
#   1. slabx and every module without KUnit build warning-free (W=1)
#      against each kernel's headers package;
#   2. the example client of README.md builds against slabx's symbols;
#   3. `make install` lays out /lib/modules/RELEASE/updates (staged);
#   4. DKMS builds and installs slabx for each of the kernels
#      (make dkms-install; removed again at the end);
#   5. each stock kernel boots under QEMU with the slabx.ko that DKMS
#      installed and passes the kselftests, the torture test among them
#      (scripts/run-tests.sh stock-*).
# Prints one line per step and "N passed, N failed", also written to
# build/distro-check/counts as "passed failed".
set -uo pipefail
. "$(dirname "$0")/common.sh"

kernels=${SLABX_STOCK:-stock-6.12 stock-6.12-rt stock-6.1 stock-6.1-rt}
out=$SLABX_OUT/distro-check
rm -rf "$out"
mkdir -p "$out"
passed=0
failed=0

# One step: NAME, then the command; its output goes to $out/NAME.log.
step()
{
	local name=$1

	shift
	if "$@" > "$out/$name.log" 2>&1; then
		echo "distro: ok $name" >&2
		passed=$((passed + 1))
	else
		echo "distro: FAILED $name (log: $out/$name.log)" >&2
		tail -15 "$out/$name.log" | sed 's/^/  /' >&2
		failed=$((failed + 1))
	fi
}

# Build for KDIR with W=1: any warning fails (Kbuild's note that it skips
# BTF without a vmlinux, normal with headers only, is not one).
build_w1()
{
	local mod

	mod=$(KDIR=$1 "$SLABX_TOP/scripts/build-module.sh" W=1 2> "$out/w1.err") ||
		{ cat "$out/w1.err"; return 1; }
	cat "$out/w1.err"
	! grep -Ev '^Skipping BTF generation' "$out/w1.err" | grep -q . || return 1
	for ko in slabx.ko tests/slabx_demo.ko tests/slabx_bench.ko; do
		[ -f "$mod/$ko" ] || { echo "missing $ko"; return 1; }
	done
	echo "$mod" > "$out/mod-of-$(basename "$1")"
}

build_client()
{
	local mod dir=$out/client

	mod=$(cat "$out/mod-of-$(basename "$1")") || return 1
	rm -rf "$dir"
	cp -r "$SLABX_TOP/examples/client" "$dir"
	make -C "$1" M="$dir" SLABX_SRC="$SLABX_TOP" W=1 \
		KBUILD_EXTRA_SYMBOLS="$mod/Module.symvers" modules &&
		modinfo -F depends "$dir/slabx_client.ko" | grep -qx slabx
}

install_staged()
{
	local root=$out/root release

	release=${1#/usr/src/linux-headers-}
	KDIR=$1 INSTALL_MOD_PATH=$root "$SLABX_TOP/scripts/install-module.sh" &&
		grep -q '^updates/slabx\.ko[.a-z]*:' \
			"$root/lib/modules/$release/modules.dep" &&
		grep -q '^updates/tests/slabx_demo\.ko[.a-z]*: updates/slabx\.ko' \
			"$root/lib/modules/$release/modules.dep"
}

# The slabx.ko DKMS installed for a release; none: an empty line.
dkms_module()
{
	local ko

	for ko in "/lib/modules/$1/updates/dkms/slabx.ko"{,.xz}; do
		[ -f "$ko" ] && { echo "$ko"; return 0; }
	done
	echo
}

# make dkms-install (dkms add, build and install) for each release; each
# must then have its slabx.ko in updates/dkms and in modules.dep.
dkms_install()
{
	local release

	make -s -C "$SLABX_TOP" dkms-install RELEASES="$*" || return 1
	for release in "$@"; do
		if [ -z "$(dkms_module "$release")" ] ||
			! grep -q '^updates/dkms/slabx\.ko[.a-z]*:' \
				"/lib/modules/$release/modules.dep"; then
			echo "no slabx.ko installed for $release"
			return 1
		fi
	done
}

releases=()
declare -A release_of=()
for k in $kernels; do
	read -r kdir _ < <("$SLABX_TOP/scripts/stock-kernel.sh" "$k") ||
		{ echo "distro: FAILED $k: no kernel" >&2; failed=$((failed + 1)); continue; }
	release_of[$k]=${kdir#/usr/src/linux-headers-}
	releases+=("${release_of[$k]}")
	kernel_src_extract "$kdir"
	step "build-$k" build_w1 "$kdir"
	step "client-$k" build_client "$kdir"
done
read -r kdir _ < <("$SLABX_TOP/scripts/stock-kernel.sh" stock-6.12)
step install-stock-6.12 install_staged "$kdir"
step dkms dkms_install "${releases[@]}"

# The guests load the slabx.ko that DKMS installed for their kernel.
for k in $kernels; do
	rm -f "$SLABX_OUT/$k-check/counts"
	ko=$(dkms_module "${release_of[$k]:-}")
	SLABX_KO=$ko "$SLABX_TOP/scripts/run-tests.sh" "$k" check ||
		echo "distro: FAILED $k guest" >&2
	add_counts "$SLABX_OUT/$k-check/counts"
done
make -s -C "$SLABX_TOP" dkms-remove > /dev/null 2>&1

echo "$passed $failed" > "$out/counts"
echo "distro: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
