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

# Extract the kernel source of a series into the cache, once.
src_extract()
{
	local src

	src=$(src_dir "$1")
	[ ! -f "$src/.slabx-extracted" ] || return 0
	mkdir -p "$SLABX_CACHE"
	(
		flock 9
		[ ! -f "$src/.slabx-extracted" ] || exit 0
		echo "kernel: extracting $(src_version "$1") into $(dirname "$src")" >&2
		rm -rf "$(dirname "$src")"
		mkdir -p "$(dirname "$src")"
		tar xJf "$(src_tarball "$1")" -C "$(dirname "$src")"
		touch "$src/.slabx-extracted"
	) 9> "$SLABX_CACHE/.lock-src-$1"
}

# The series of Debian's linux-source package holding the source of the
# kernel whose build tree (a headers package) is $1, when its version is
# that kernel's; else nothing.
kernel_src_series()
{
	local release series

	release=$(cat "$1/include/config/kernel.release" 2> /dev/null) || return 0
	release=${release%%[!0-9.]*}
	series=$(echo "$release" | cut -d. -f1,2)
	[ "$(src_version "$series" 2> /dev/null | sed 's/[-~+].*//')" != "$release" ] ||
		echo "$series"
}

# Extract the source of the kernel whose build tree (a headers package) is
# $1, where Debian has it, for the tests built from it (kernel_src_of).
kernel_src_extract()
{
	local series

	series=$(kernel_src_series "$1")
	[ -z "$series" ] || src_extract "$series"
}

# The source tree of the kernel whose build tree is $1: the build tree's
# own (a kernel built from source), else Debian's linux-source of the same
# version where the tests extracted it (a headers package has no fs/ or
# lib/); nothing when there is neither.
kernel_src_of()
{
	local series

	[ ! -f "$1/fs/open.c" ] || { echo "$1"; return 0; }
	series=$(kernel_src_series "$1")
	[ -z "$series" ] || [ ! -f "$(src_dir "$series")/.slabx-extracted" ] ||
		src_dir "$series"
}

# Fragments, in merge order, for a flavour.
flavour_fragments()
{
	local d=$SLABX_TOP/scripts/configs

	case "$1" in
	debug) echo "$d/common.config $d/x86.config $d/debug.config $d/nocb.config $d/block.config" ;;
	debug-6.1) echo "$d/common.config $d/x86.config $d/debug.config $d/linux-6.1.config" ;;
	perf)  echo "$d/common.config $d/x86.config $d/perf.config" ;;
	rt)    echo "$d/common.config $d/x86.config $d/debug.config $d/rt.config $d/block.config" ;;
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
