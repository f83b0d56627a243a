#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# kselftest for what kmemleak sees of slabx's objects: memory referenced
# only from a live slabx object is not a leak, a leaked slabx object is
# one, reported with its allocation stack (tests/slabx_kmemleak_helper.c
# makes both). Needs kmemleak (CONFIG_DEBUG_KMEMLEAK, on): each case
# skips when kmemleak refuses to scan, unless the kernel command line says
# kmemleak=on.
# See Makefile for where it runs and how it finds the modules.

DIR=$(dirname "$(readlink -f "$0")")
# shellcheck source=/dev/null
. "$DIR/../kselftest/ktap_helpers.sh"
# shellcheck source=slabx_lib.sh
. "$DIR/slabx_lib.sh"

KMEMLEAK=/sys/kernel/debug/kmemleak
PARAMS=/sys/module/slabx_kmemleak_helper/parameters
report=/tmp/slabx_kmemleak.$$

# The report's entry for the object at address $1 (hex, no 0x): its
# header line and everything up to the next entry.
entry()
{
	awk -v head="unreferenced object 0x$1 " '
		index($0, "unreferenced object") { on = index($0, head) > 0 }
		on' "$report"
}

# Load the helper, let its objects age past kmemleak's 5 seconds, scan
# twice (a first scan only notes an object's checksum: it reports objects
# unreferenced and unchanged since the scan before).
# Return: 0, 1 on failure, 2 when kmemleak is off (its file refuses).
scan_helper_objects()
{
	slabx_load slabx || return 1
	slabx_load slabx_kmemleak_helper || return 1
	sleep 6
	echo scan 2> /dev/null > "$KMEMLEAK" || return 2
	echo scan > "$KMEMLEAK" || return 1
	cat "$KMEMLEAK" > "$report"
}

live_object_references_are_seen()
{
	local buf

	buf=$(cat "$PARAMS/held_buf") || return 1
	[ -z "$(entry "$buf")" ] && return 0
	ktap_print_msg "buffer held by a live slabx object reported as leaked:"
	entry "$buf" | sed 's/^/# /'
	return 1
}

leaked_object_is_reported()
{
	local obj

	obj=$(cat "$PARAMS/leaked") || return 1
	# The stack: slabx's allocation path (whichever of its functions the
	# fast path's tail call leaves on it) below the helper's call site.
	entry "$obj" | grep -q ' \[slabx\]$' &&
		entry "$obj" | grep -q 'make_objects' && return 0
	ktap_print_msg "leaked slabx object $obj not reported with its allocation; $(grep -c 'unreferenced object' "$report") objects reported:"
	sed 's/^/# /' "$report"
	return 1
}

ktap_print_header
slabx_require slabx_kmemleak_helper
ktap_set_plan 2
scan_helper_objects
rc=$?
if [ $rc = 2 ] && ! grep -qw 'kmemleak=on' /proc/cmdline; then
	ktap_test_skip "live object references are seen (kmemleak is off)"
	ktap_test_skip "leaked object is reported (kmemleak is off)"
elif [ $rc != 0 ]; then
	ktap_test_fail "live object references are seen (no scan)"
	ktap_test_fail "leaked object is reported (no scan)"
else
	ktap_test_result "live object references are seen" live_object_references_are_seen
	ktap_test_result "leaked object is reported" leaked_object_is_reported
fi
rmmod slabx_kmemleak_helper 2> /dev/null
rmmod slabx
rm -f "$report"
ktap_finished
