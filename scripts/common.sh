# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared settings for the slabx scripts; sourced, not run.

SLABX_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SLABX_CACHE=${SLABX_CACHE:-/var/cache/slabx}
SLABX_OUT=${SLABX_OUT:-$SLABX_TOP/build}
# Kernel source series of a flavour: the test kernels are built from
# Debian's linux-source-6.12, the *-6.1 flavours from linux-source-6.1.
flavour_series()
{
	case "$1" in
	*-6.1) echo 6.1 ;;
	*) echo 6.12 ;;
	esac
}

# The series whose scripts slabx uses (checkpatch, kernel-doc, kunit.py,
# the kselftest helpers), for every flavour.
# shellcheck disable=SC2034 # used by the scripts that source this file
TOOLS_SERIES=6.12

# Debian's source package of a series, as a tarball.
src_tarball()
{
	echo "/usr/src/linux-source-$1.tar.xz"
}

# Version of the Debian kernel source package of a series, part of every
# cache key.
src_version()
{
	dpkg-query -W -f='${Version}' "linux-source-$1"
}

# Directory holding the extracted kernel source of a series.
src_dir()
{
	echo "$SLABX_CACHE/src-$(src_version "$1")/linux-source-$1"
}

# Fragments, in merge order, for a flavour.
flavour_fragments()
{
	local d=$SLABX_TOP/scripts/configs

	case "$1" in
	debug) echo "$d/common.config $d/x86.config $d/debug.config $d/nocb.config" ;;
	debug-6.1) echo "$d/common.config $d/x86.config $d/debug.config $d/linux-6.1.config" ;;
	perf)  echo "$d/common.config $d/x86.config $d/perf.config" ;;
	rt)    echo "$d/common.config $d/x86.config $d/debug.config $d/rt.config" ;;
	kcsan) echo "$d/common.config $d/x86.config $d/kcsan.config" ;;
	um)    echo "$d/common.config $d/um.config" ;;
	um-perf) echo "$d/common.config $d/um-perf.config" ;;
	stock-*) echo "Debian's $1 kernel: no fragments" >&2; return 1 ;;
	*)     echo "unknown flavour $1" >&2; return 1 ;;
	esac
}

flavour_arch()
{
	case "$1" in
	um | um-*) echo um ;;
	*)  echo x86_64 ;;
	esac
}

# kernel.sh as far as flavour $1 goes: its "um only" lines are left out
# of the x86 flavours' keys, so that a change there rebuilds only UML.
kernel_script()
{
	if [ "$(flavour_arch "$1")" = um ]; then
		cat "$SLABX_TOP/scripts/kernel.sh"
	else
		sed '/^# >>> um only/,/^# <<< um only/d' "$SLABX_TOP/scripts/kernel.sh"
	fi
}

# Build directory of a flavour, keyed by source version, fragments and
# the build script itself, so any change there means a fresh kernel.
kernel_dir()
{
	local key series

	# The source version is part of the key: install it first.
	series=$(flavour_series "$1")
	[ -n "$(src_version "$series" 2>/dev/null)" ] ||
		"$SLABX_TOP/scripts/deps.sh" >&2
	# shellcheck disable=SC2046 # one path per fragment, no spaces
	key=$( { src_version "$series"; cat $(flavour_fragments "$1");
		 kernel_script "$1"; } | sha256sum | cut -c1-16)
	echo "$SLABX_CACHE/kernel-$1-$key"
}

# Add the "passed failed" counts in file $1 to the caller's $passed and
# $failed; a missing file (a run that never got that far) is one failure.
add_counts()
{
	local p=0 q=1

	[ ! -f "$1" ] || read -r p q < "$1"
	passed=$((passed + p))
	failed=$((failed + q))
}

# slabx.ko built for Debian's stock 6.12, as users run it, for the checks
# of its machine code and objects: prints the directory of its objects.
stock_module_dir()
{
	local kdir log dir

	read -r kdir _ < <("$SLABX_TOP/scripts/stock-kernel.sh" stock-6.12)
	log=$(mktemp)
	if ! dir=$(SLABX_OUT=$SLABX_OUT/fastpath KDIR=$kdir \
		   "$SLABX_TOP/scripts/build-module.sh" 2> "$log"); then
		cat "$log"
		rm -f "$log"
		return 1
	fi
	rm -f "$log"
	echo "$dir"
}
