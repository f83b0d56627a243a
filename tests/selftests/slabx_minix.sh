#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# kselftest: a real module ported to slabx. slabx_minix.ko is the kernel's
# own fs/minix with its inode cache (a constructor, frees after an RCU
# grace period) on slabx, built from the target kernel's source by
# tests/minix_port.sed (Documentation/porting.md). On a loop device, in
# rounds: files created and written, stat'ed, read back and deleted; then
# unmount and unload, with every inode back in slabx and nothing leaked.
# The same workload on the kernel's own minix.ko in the same boot is the
# control, and on a kernel without lockdep gives the file operations per
# second of both: a figure, never a verdict (make bench measures
# performance). See Makefile for where it
# runs and how it finds the modules.
#
# SLABX_MINIX_ROUNDS, SLABX_MINIX_DIRS and SLABX_MINIX_FILES size the
# workload (rounds of DIRS directories of FILES files).

DIR=$(dirname "$(readlink -f "$0")")
# shellcheck source=/dev/null
. "$DIR/../kselftest/ktap_helpers.sh"
# shellcheck source=slabx_lib.sh
. "$DIR/slabx_lib.sh"

ROUNDS=${SLABX_MINIX_ROUNDS:-2}
DIRS=${SLABX_MINIX_DIRS:-10}
FILES=${SLABX_MINIX_FILES:-250}
STATS=/sys/kernel/debug/slabx/minix_inode_cache/stats
TMP=$(mktemp -d)
MNT=$TMP/mnt
IMG=$TMP/minix.img

cleanup()
{
	umount "$MNT" 2> /dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# Load one of the kernel's own modules, unless it is there already (or
# built in): modprobe on a distribution, else $SLABX_MODULES/kernel/ (the
# test guest's copy of the kernel's modules).
kernel_mod_load()
{
	[ -e "/sys/module/$1" ] && return 0
	modprobe "$1" 2> /dev/null && return 0
	[ -f "${SLABX_MODULES:-}/kernel/$1.ko" ] &&
		insmod "$SLABX_MODULES/kernel/$1.ko"
}

# A fresh minix v2 image with 30-character names: made here when
# mkfs.minix is there, else the test guest's ($SLABX_DATA/minix.img.gz,
# made by run-tests.sh with the same arguments).
make_image()
{
	if command -v mkfs.minix > /dev/null; then
		rm -f "$IMG"
		truncate -s 32M "$IMG" &&
			mkfs.minix -2 -n 30 -i 24000 "$IMG" 32768 > /dev/null
	elif [ -f "${SLABX_DATA:-}/minix.img.gz" ]; then
		gunzip -c "$SLABX_DATA/minix.img.gz" > "$IMG"
	else
		return 1
	fi
}

uptime_cs()
{
	local up

	read -r up _ < /proc/uptime
	echo "${up%.*}${up#*.}"
}

# One round on $MNT: DIRS directories of FILES files, each created and
# written; then every file stat'ed and each directory's last file read
# back; then all deleted. $1: the round, in what
# the files hold. $2: a command run between creating and deleting.
round()
{
	local d=0 i n

	while [ $d -lt "$DIRS" ]; do
		mkdir "$MNT/d$d" || return 1
		i=0
		while [ $i -lt "$FILES" ]; do
			echo "$1.$d.$i" > "$MNT/d$d/f$i" || return 1
			i=$((i + 1))
		done
		d=$((d + 1))
	done
	$2 || return 1
	d=0
	while [ $d -lt "$DIRS" ]; do
		n=$(stat -c %F "$MNT/d$d"/* | grep -c 'regular')
		[ "$n" = "$FILES" ] ||
			{ ktap_print_msg "d$d: $n files of $FILES"; return 1; }
		[ "$(cat "$MNT/d$d/f$((FILES - 1))")" = "$1.$d.$((FILES - 1))" ] ||
			{ ktap_print_msg "d$d: a file lost what was written"; return 1; }
		d=$((d + 1))
	done
	d=0
	while [ $d -lt "$DIRS" ]; do
		rm -r "$MNT/d$d" || return 1
		d=$((d + 1))
	done
}

# The whole workload on file system type $1, on a fresh image; $2 as for
# round(). Sets $CS to the centiseconds it took, mount to unmount.
workload()
{
	local r=0 t0

	make_image || { ktap_print_msg "no minix image"; return 1; }
	t0=$(uptime_cs)
	mount -t "$1" -o loop "$IMG" "$MNT" ||
		{ ktap_print_msg "cannot mount $1"; return 1; }
	while [ $r -lt "$ROUNDS" ]; do
		round $r "$2" || { umount "$MNT"; return 1; }
		r=$((r + 1))
	done
	umount "$MNT" || return 1
	CS=$(($(uptime_cs) - t0))
	[ $CS -gt 0 ] || CS=1
}

# Objects out with users: allocated and not freed (objects_inuse counts
# those cached in sheaves too).
outstanding()
{
	echo $(($(statval $STATS alloc) - $(statval $STATS free)))
}

# Between creating and deleting a round's files: they are slabx's
# objects (their inodes stay cached while the files exist).
inodes_from_slabx()
{
	local n

	n=$(outstanding)
	[ "$n" -ge $((DIRS * FILES)) ] ||
		{ ktap_print_msg "$n inodes out of slabx with $((DIRS * FILES)) files"; return 1; }
}

# After unmount every inode goes back to slabx, the last ones from the
# VFS's RCU callbacks after a grace period: as many frees as allocations
# within 30 s.
inodes_back()
{
	local t=0

	while [ $t -lt 30 ]; do
		[ "$(outstanding)" = 0 ] && return 0
		sleep 1
		t=$((t + 1))
	done
	ktap_print_msg "after unmount: alloc $(statval $STATS alloc), free $(statval $STATS free)"
	return 1
}

files_per_s()
{
	echo $((3 * ROUNDS * DIRS * FILES * 100 / $1))
}

ktap_print_header
# shellcheck disable=SC2119 # slabx_minix is looked for below
slabx_require
ktap_set_plan 4

# Built where the kernel's source was there and the kernel has a block
# layer (tests/Kbuild); mounted on a loop device.
if ! slabx_mod_path slabx_minix > /dev/null || ! kernel_mod_load loop ||
	[ ! -e /dev/loop-control ]; then
	if [ -e /dev/loop-control ] || slabx_mod_path slabx_minix > /dev/null; then
		ktap_print_msg "slabx_minix.ko or the loop device is missing where the other is there"
		ktap_exit_fail_msg "slabx_minix: not built, or no loop device"
	fi
	for t in workload inodes unload compared; do
		ktap_test_skip "slabx_minix $t: no block layer, or no kernel source to build it from"
	done
	ktap_finished
fi
mkdir -p "$MNT"

slabx_load slabx || ktap_exit_fail_msg "cannot load slabx"
slabx_klog_mark
ok=0
slabx_load slabx_minix || ok=1
[ $ok = 1 ] || workload slabx_minix inodes_from_slabx || ok=1
ktap_test_result "slabx_minix: $ROUNDS rounds of $((DIRS * FILES)) files created, written, stat'ed, read back and deleted, their inodes slabx's" [ $ok = 0 ]
cs_slabx=${CS:-0}

ktap_test_result "slabx_minix: every inode back in slabx after unmount" inodes_back

ok=0
rmmod slabx_minix || ok=1
[ ! -e "$STATS" ] || ok=1
leaks=$(slabx_klog | grep 'minix_inode_cache')
if [ -n "$leaks" ]; then
	echo "$leaks" | while read -r line; do ktap_print_msg "$line"; done
	ktap_print_msg "slabx reported the cache at unload"
	ok=1
fi
rmmod slabx || ok=1
ktap_test_result "slabx_minix: unloads with nothing leaked" [ $ok = 0 ]

# The kernel's own minix.ko, same workload, same boot: the control (a
# failure on both is the workload's, not the port's), timed against the
# port on a kernel without lockdep (and so without its other checkers);
# under lockdep the timing says nothing.
if kernel_mod_load minix && grep -qw minix /proc/filesystems; then
	if [ "$cs_slabx" -gt 0 ] && workload minix true; then
		if [ -e /proc/lockdep ]; then
			ktap_print_msg "not timed: a kernel with lockdep"
		else
			ktap_print_msg "file operations per second (create and write, stat, delete): slabx_minix $(files_per_s "$cs_slabx"), minix $(files_per_s "$CS"); time slabx_minix/minix $((cs_slabx * 100 / CS))%"
		fi
		ktap_test_pass "minix.ko: the same workload passes"
	else
		ktap_test_fail "minix.ko: the same workload passes"
	fi
	rmmod minix 2> /dev/null
else
	ktap_test_skip "minix.ko: the kernel's own minix is not there to compare with"
fi
ktap_finished
