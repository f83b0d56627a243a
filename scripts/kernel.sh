#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (or reuse from the cache) the test kernel of one flavour.
# Usage: scripts/kernel.sh FLAVOUR   -> prints the kernel build directory.
set -euo pipefail
. "$(dirname "$0")/common.sh"

flavour=${1:?usage: kernel.sh debug|debug-6.1|rt|kcsan|perf|um|um-perf}
kdir=$(kernel_dir "$flavour")
arch=$(flavour_arch "$flavour")

if [ -f "$kdir/.slabx-built" ]; then
	echo "$kdir"
	exit 0
fi

# One build of a flavour at a time; a waiter reuses what the first built.
mkdir -p "$SLABX_CACHE"
exec 9> "$SLABX_CACHE/.lock-$flavour"
flock 9
if [ -f "$kdir/.slabx-built" ]; then
	echo "$kdir"
	exit 0
fi

"$SLABX_TOP/scripts/deps.sh" >&2
series=$(flavour_series "$flavour")
src=$(src_dir "$series")
src_extract "$series"

# >>> um only: left out of the x86 flavours' cache key (common.sh)
# UML saves a process's FPU state with ptrace in a buffer of 2696 bytes,
# the XSAVE size up to AVX-512; on a host with AMX the host kernel wants
# the whole XSAVE area (11008 bytes there) and refuses a smaller one with
# EFAULT: init dies at once ("ptrace set fp regs failed, errno = 14").
# Mainline sizes the buffer at run time since; here it gets room for AMX
# (the um fragments give the kernel stack room for it in thread_info).
if [ "$arch" = um ]; then
	sed -i 's/DEFINE_LONGS(HOST_FP_SIZE, [0-9]*);/DEFINE_LONGS(HOST_FP_SIZE, 12288);/' \
		"$src/arch/x86/um/user-offsets.c"
	grep -q 'DEFINE_LONGS(HOST_FP_SIZE, 12288);' \
		"$src/arch/x86/um/user-offsets.c" ||
		{ echo "kernel: UML's FP buffer not found to patch" >&2; exit 1; }
fi

# <<< um only
echo "kernel: building $flavour in $kdir (a few minutes)" >&2
# Builds of this flavour under other keys are stale (not those of another
# flavour whose name starts with this one's: debug-6.1 for debug).
for old in "$SLABX_CACHE/kernel-$flavour-"*; do
	[[ ! "$old" =~ /kernel-$flavour-[0-9a-f]{16}$ ]] || rm -rf "$old"
done
mkdir -p "$kdir"
frags=$(flavour_fragments "$flavour")
mk=(make -s -C "$src" O="$kdir" ARCH="$arch" -j"$(nproc)")
"${mk[@]}" tinyconfig >&2
# shellcheck disable=SC2086
(cd "$kdir" && "$src/scripts/kconfig/merge_config.sh" -m -O "$kdir" \
	"$kdir/.config" $frags >&2)
"${mk[@]}" olddefconfig >&2

# Every option the fragments ask for must have survived the dependency
# resolution, or the flavour is not what it claims to be. A later fragment
# overrides an earlier one (as merge_config.sh does): rt turns PREEMPT off.
declare -A want=()
for f in $frags; do
	while read -r line; do
		case "$line" in
		CONFIG_*=*) want[${line%%=*}]=$line ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }; want[${opt%% *}]=$line ;;
		esac
	done < "$f"
done
bad=0
for opt in "${!want[@]}"; do
	line=${want[$opt]}
	case "$line" in
	CONFIG_*)
		grep -qxF "$line" "$kdir/.config" ||
			{ echo "kernel: $line did not stick" >&2; bad=1; } ;;
	*)
		grep -q "^$opt=" "$kdir/.config" &&
			{ echo "kernel: $opt should be off" >&2; bad=1; } ;;
	esac
done
[ $bad -eq 0 ] || exit 1

# A build takes minutes: a line a minute says it is moving.
progress()
{
	local start

	start=$(date +%s)
	while sleep 60; do
		echo "kernel: building $flavour: $(( ($(date +%s) - start) / 60 )) min," \
			"$(find "$kdir" -name '*.o' | wc -l) objects" >&2
	done
}
progress &
ticker=$!
trap 'kill $ticker 2> /dev/null || true' EXIT
"${mk[@]}" >&2
kill $ticker
touch "$kdir/.slabx-built"
echo "$kdir"
